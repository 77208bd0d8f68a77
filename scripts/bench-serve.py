#!/usr/bin/env python3
"""Measures `rocket serve` (the release build) beside nginx, in one run:

- intents per second through HTTP on loopback with wrk (scripts/bench/intents.lua), and nginx
  serving a small static file with the same threads and connections (wrk -t2 -c100); the same
  intents naming the view each client holds (the same script with ROCKET_BENCH_HELD, Rocket-Settled);
- 10,000 event streams held open at once, each receiving a change;
- memory per idle conversation (RSS growth over 10,000 started conversations);
- navigation to first bubble in headless chromium (reduced motion), median and slowest of 7
  (timed as Tests/Browser/first_bubble.py says);
- the widget's size, gzipped.

Needs wrk, nginx and chromium (Debian) and Playwright (pip): sh scripts/install-deps.sh --bench puts
them in. Build first: sh scripts/build-release.sh
Prints a Markdown table for docs/BENCHMARKS.md. Never part of the tests.
"""
import gzip
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROCKET = os.environ.get("ROCKET_BIN", os.path.join(ROOT, ".build", "release", "rocket"))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Browser"))
import first_bubble as bubble_timing  # noqa: E402  (how the first bubble is timed: shared with the browser suite)


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def serve(store, flows, extra=()):
    # One machine plays every client: the per-visitor and per-address limits are lifted, and the
    # streams test names its clients as a trusted proxy would (X-Forwarded-For from 127.0.0.1).
    args = [ROCKET, "serve", "--port", "0", "--store", store, "--flows", flows, "--rate", "1000000",
            "--rate-per-address", "1000000", "--max-per-address", "10000000", "--trust-proxy", "127.0.0.1",
            "--max-conversations", "1000000", *extra]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = p.stdout.readline().strip()
    return p, url, int(url.rsplit(":", 1)[1].strip("/"))


def post(url, path, body, visitor=None):
    headers = {"Content-Type": "application/json"}
    if visitor:
        headers["Rocket-Visitor"] = visitor
    req = urllib.request.Request(url.rstrip("/") + path, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def token(url):
    """A new visitor's token, as the widget gets one."""
    req = urllib.request.Request(url.rstrip("/") + "/v1/visitors", data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())["token"]


def cpu_seconds(pids):
    """User and system CPU time of the processes `pids` (all their threads), in seconds."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def nginx_pids():
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/comm") as f:
                    if f.read().strip() == "nginx":
                        pids.append(int(d))
            except OSError:
                pass
    return pids


def wrk(url, script=None, seconds=5, env_extra=None, pids=()):
    """wrk's requests a second, p50 and p99 (ms), the CPU time `pids` spent per request (µs), and
    the bytes read per request."""
    args = ["wrk", "-t2", "-c100", f"-d{seconds}s", "--latency"] + (["-s", script] if script else []) + [url]
    env = dict(os.environ, ROCKET_BENCH_TOKENS=" ".join(token(url) for _ in range(8)), **(env_extra or {})) if script else None
    before = cpu_seconds(pids)
    out = subprocess.run(args, capture_output=True, text=True, env=env).stdout
    spent = cpu_seconds(pids) - before
    # A refused or failed request would count as served: the run is void.
    if "Non-2xx" in out:
        sys.exit("bench-serve: wrk saw failed requests, the figures would be wrong:\n" + out)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    def ms(label):
        m = re.search(label + r"\s+([\d.]+)(us|ms|s)", out)
        v = float(m.group(1))
        return v / 1000 if m.group(2) == "us" else v * 1000 if m.group(2) == "s" else v
    m = re.search(r"(\d+) requests in [\d.]+\w+, ([\d.]+)(B|KB|MB|GB) read", out)
    count = int(m.group(1))
    read = float(m.group(2)) * {"B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}[m.group(3)]
    return rps, ms("50%"), ms("99%"), spent / count * 1e6, read / count


def nginx_start(root):
    os.makedirs(os.path.join(root, "html"), exist_ok=True)
    with open(os.path.join(root, "html", "small.json"), "w") as f:
        f.write('{"ok":true,"note":"a small static JSON file for the benchmark"}\n')
    # nginx's workers run as nobody: every folder down to the file must let them in (mkdtemp's
    # are the owner's only, and nginx then answered 403 to every request).
    for folder in (os.path.dirname(root), root, os.path.join(root, "html")):
        os.chmod(folder, os.stat(folder).st_mode | 0o755)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    conf = os.path.join(root, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""worker_processes 2; pid {root}/nginx.pid; error_log {root}/error.log;
events {{ worker_connections 4096; }}
http {{ access_log off; server {{ listen 127.0.0.1:{port}; root {root}/html; }}
client_body_temp_path {root}/b; proxy_temp_path {root}/p; fastcgi_temp_path {root}/f; uwsgi_temp_path {root}/u; scgi_temp_path {root}/s; }}
""")
    subprocess.run(["nginx", "-c", conf, "-p", root], check=True)
    time.sleep(0.3)
    url = f"http://127.0.0.1:{port}/small.json"
    with urllib.request.urlopen(url, timeout=10) as r:
        if r.status != 200 or b'"ok":true' not in r.read():
            sys.exit("bench-serve: nginx does not serve the small file")
    return conf, url


def streams(url, port, pid, count=10_000):
    """Opens `count` event streams (one conversation each), then changes every conversation and
    checks that every stream received its change."""
    ids, tokens = [], []
    for k in range(count):
        tokens.append(token(url))
        r = post(url, "/v1/conversations", {"flow": "loop", "reducedMotion": True}, visitor=tokens[k])
        ids.append(r["conversation"]["id"])
    socks = []
    before = rss_kb(pid)
    for k, cid in enumerate(ids):
        s = socket.create_connection(("127.0.0.1", port))
        client = f"10.{k // 65536}.{k // 256 % 256}.{k % 256}"
        s.sendall(f"GET /v1/conversations/{cid}/events HTTP/1.1\r\nHost: x\r\nRocket-Visitor: {tokens[k]}\r\n"
                  f"X-Forwarded-For: {client}\r\n\r\n".encode())
        socks.append(s)
    def drain(s, needle, timeout=30):
        s.settimeout(timeout)
        buf = b""
        while needle not in buf:
            chunk = s.recv(65536)
            if not chunk:
                return False
            buf += chunk
        return True
    opened = sum(drain(s, b"event: state") for s in socks)
    per_stream = (rss_kb(pid) - before) / count
    start = time.monotonic()
    for k, cid in enumerate(ids):
        post(url, f"/v1/conversations/{cid}/intents", {"intent": "tap"}, visitor=tokens[k])
    received = sum(drain(s, b'"step":1') for s in socks)
    elapsed = time.monotonic() - start
    for s in socks:
        s.close()
    return opened, received, elapsed, per_stream


def first_bubble(url, runs=7):
    from playwright.sync_api import sync_playwright
    times = []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        for _ in range(runs + 1):
            c = b.new_context(reduced_motion="reduce")
            page = c.new_page()
            times.append(bubble_timing.open_timed(page, url + "play/loop", 15000))
            c.close()
        b.close()
    return statistics.median(times[1:]), max(times[1:])  # the first run warms the browser up


def missing():
    """What the benchmark needs and this machine lacks, each with how to get it."""
    out = []
    for tool in ("wrk", "nginx", "chromium"):
        if not shutil.which(tool) and not (tool == "nginx" and os.access("/usr/sbin/nginx", os.X_OK)):
            out.append(f"{tool} (sh scripts/install-deps.sh --bench)")
    try:
        import playwright  # noqa: F401
    except ImportError:
        out.append("the Python module playwright (sh scripts/install-deps.sh --bench)")
    if not os.access(ROCKET, os.X_OK):
        out.append(f"the release build {ROCKET} (sh scripts/build-release.sh)")
    return out


def main():
    lacking = missing()
    if lacking:
        for what in lacking:
            print(f"bench-serve: needs {what}", file=sys.stderr)
        sys.exit(69)
    tmp = tempfile.mkdtemp(prefix="rocket-bench-serve-")
    flows = os.path.join(tmp, "flows")
    os.makedirs(flows)
    shutil.copy(os.path.join(ROOT, "scripts", "bench", "loop.json"), flows)
    rows = []
    # 1. Intents through HTTP beside nginx, interleaved: rocket, nginx, rocket, nginx, rocket.
    conf, static = nginx_start(os.path.join(tmp, "nginx"))
    r_runs, h_runs, n_runs, s_runs, g_runs = [], [], [], [], []
    try:
        for i in range(3):
            p, url, _ = serve(os.path.join(tmp, f"w{i}.sqlite"), flows)
            r_runs.append(wrk(url, os.path.join(ROOT, "scripts", "bench", "intents.lua"), pids=[p.pid]))
            h_runs.append(wrk(url, os.path.join(ROOT, "scripts", "bench", "intents.lua"), env_extra={"ROCKET_BENCH_HELD": "1"}, pids=[p.pid]))
            s_runs.append(wrk(url, os.path.join(ROOT, "scripts", "bench", "start.lua"), pids=[p.pid]))
            reader = token(url)
            cid = post(url, "/v1/conversations", {"flow": "loop", "reducedMotion": True}, visitor=reader)["conversation"]["id"]
            g_runs.append(wrk(url, os.path.join(ROOT, "scripts", "bench", "read.lua"), env_extra={"ROCKET_BENCH_READ": f"{reader} {cid}"}, pids=[p.pid]))
            p.send_signal(signal.SIGTERM)
            p.wait()
            if i < 2:
                n_runs.append(wrk(static, pids=nginx_pids()))
    finally:
        subprocess.run(["nginx", "-c", conf, "-p", os.path.join(tmp, "nginx"), "-s", "stop"])
    r = sorted(r_runs)[1]
    n = sorted(n_runs)[0] if len(n_runs) == 1 else max(n_runs)
    rows.append(("intents/s over HTTP, wrk -t2 -c100 (median of 3)", f"{r[0]:,.0f}",
                 f"p50 {r[1]:.1f} ms, p99 {r[2]:.1f} ms; server CPU {r[3]:.0f} µs each; {r[4]:,.0f} bytes an answer"))
    rows.append(("nginx, a small static file, same wrk (best of 2)", f"{n[0]:,.0f}", f"p50 {n[1]:.1f} ms, p99 {n[2]:.1f} ms; nginx CPU {n[3]:.0f} µs each"))
    rows.append(("rocket ÷ nginx", f"{r[0] / n[0]:.2f}", "goal ≥ 0.5, p99 ≤ 10 ms"))
    hr = sorted(h_runs)[1]
    rows.append(("intents/s naming the view held (Rocket-Settled, as the widget does; median of 3)", f"{hr[0]:,.0f}",
                 f"p50 {hr[1]:.1f} ms, p99 {hr[2]:.1f} ms; ÷ nginx {hr[0] / n[0]:.2f}; server CPU {hr[3]:.0f} µs each; {hr[4]:,.0f} bytes an answer"))
    st, g = sorted(s_runs)[1], sorted(g_runs)[1]
    rows.append(("POST /v1/conversations/s (median of 3)", f"{st[0]:,.0f}",
                 f"p50 {st[1]:.1f} ms, p99 {st[2]:.1f} ms; ÷ nginx {st[0] / n[0]:.2f}; server CPU {st[3]:.0f} µs each"))
    rows.append(("GET /v1/conversations/{id}/s (median of 3)", f"{g[0]:,.0f}",
                 f"p50 {g[1]:.1f} ms, p99 {g[2]:.1f} ms; ÷ nginx {g[0] / n[0]:.2f}; server CPU {g[3]:.0f} µs each"))
    # 2. Streams, memory, first bubble on one server.
    p, url, port = serve(os.path.join(tmp, "s.sqlite"), flows)
    try:
        opened, received, elapsed, per_stream = streams(url, port, p.pid)
        rows.append(("event streams open at once", f"{opened:,}", f"{received:,} received their change; all changes in {elapsed:.2f} s; goal 10,000"))
        rows.append(("memory per idle event stream (RSS growth / streams)", f"{per_stream:.1f} KB", "goal ≤ 8 KB"))
        before = rss_kb(p.pid)
        visitor = token(url)
        for k in range(10_000):
            post(url, "/v1/conversations", {"flow": "loop"}, visitor=visitor)
        time.sleep(0.5)
        after = rss_kb(p.pid)
        rows.append(("memory per idle conversation (RSS growth / 10,000)", f"{(after - before) * 1024 / 10_000 / 1024:.1f} KB",
                     f"RSS {before / 1024:.1f} → {after / 1024:.1f} MB; goal ≤ 4 KB"))
        median, slowest = first_bubble(url)
        rows.append(("navigation → first bubble, headless chromium, reduced motion (median of 7)", f"{median:.0f} ms",
                     f"the slowest of the 7: {slowest:.0f} ms; goal ≤ 150 ms in every run"))
        with urllib.request.urlopen(url + "widget.js") as r:
            widget = r.read()
        rows.append(("the widget (JavaScript with its CSS), gzipped", f"{len(gzip.compress(widget, 9)) / 1024:.1f} KB",
                     f"{len(widget) / 1024:.1f} KB plain; goal ≤ 30 KB gzipped"))
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait()
    shutil.rmtree(tmp, ignore_errors=True)
    print("| measure | value | notes |\n|---|---:|---|")
    for a, b, c in rows:
        print(f"| {a} | {b} | {c} |")


if __name__ == "__main__":
    main()
