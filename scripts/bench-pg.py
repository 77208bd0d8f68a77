#!/usr/bin/env python3
"""Measures `rocket serve` on PostgreSQL (the release build), side by side in one run:

- intents per second and p99 at 100 connections (wrk -t2 -c100, scripts/bench/intents-spread.lua:
  each visitor taps 64 conversations in turn): one instance on SQLite, one on PostgreSQL, two and
  three on PostgreSQL behind nginx (docs/deploy/nginx.conf without TLS), and nginx serving a small
  static file as the reference;
- event fan-out: an intent on one instance to the frame on a stream held by another, p50/p99;
- the cap race: 3 instances × 200 concurrent starts of a flow allowed 5 executions;
- peak RSS of an instance holding 10,000 idle conversations (PostgreSQL store).

PostgreSQL is a cluster of its own with fsync on (scripts/postgres-cluster.sh, ROCKET_PG_FSYNC=on).
Needs wrk and nginx (Debian). Build first: sh scripts/build-release.sh. Prints a Markdown table
for docs/BENCHMARKS.md. Never part of the tests.
"""
import http.client
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
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
bench = __import__("bench-serve")

ROOT = bench.ROOT
CLUSTER = os.path.join(ROOT, "scripts", "postgres-cluster.sh")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def proxy(root, ports, affinity=False):
    """nginx in front of `ports`, as docs/deploy/nginx.conf says, plain HTTP (the reference is too);
    with `affinity`, each visitor goes to one instance while it is up (docs/DEPLOY.md's option)."""
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(ROOT, "docs", "deploy", "nginx.conf")) as f:
        conf = f.read()
    listen = free_port()
    conf = conf.replace("listen @LISTEN@ ssl;", f"listen 127.0.0.1:{listen};")
    conf = "\n".join(line for line in conf.split("\n") if "ssl_" not in line)
    upstreams = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;" for p in ports)
    if affinity:
        upstreams = "        hash $http_rocket_visitor consistent;\n" + upstreams
    conf = conf.replace("@ROOT@", root).replace("@UPSTREAMS@", upstreams)
    path = os.path.join(root, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    subprocess.run(["nginx", "-c", path, "-p", root], check=True)
    time.sleep(0.3)
    return path, f"http://127.0.0.1:{listen}/"


def stop_proxy(path):
    subprocess.run(["nginx", "-c", path, "-p", os.path.dirname(path), "-s", "stop"], capture_output=True)


def intents(url, seconds=5):
    """(2xx answers per second, p50 ms, p99 ms, non-2xx answers): wrk counts every answer, and a
    tap another request beat (409) is not a served intent."""
    script = os.path.join(ROOT, "scripts", "bench", "intents-spread.lua")
    env = dict(os.environ, ROCKET_BENCH_TOKENS=" ".join(bench.token(url) for _ in range(8)))
    out = subprocess.run(["wrk", "-t2", "-c100", f"-d{seconds}s", "--latency", "-s", script, url], capture_output=True, text=True, env=env).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    bad = int(m.group(1)) if (m := re.search(r"Non-2xx or 3xx responses: (\d+)", out)) else 0

    def ms(label):
        m = re.search(label + r"\s+([\d.]+)(us|ms|s)", out)
        v = float(m.group(1))
        return v / 1000 if m.group(2) == "us" else v * 1000 if m.group(2) == "s" else v

    return rps * (total - bad) / max(1, total), ms("50%"), ms("99%"), bad


def fan_out(a, b, samples=300):
    """Milliseconds from an intent sent to instance `a` to its frame on a stream held by `b`."""
    visitor = bench.token(a)
    cid = bench.post(a, "/v1/conversations", {"flow": "loop", "reducedMotion": True}, visitor=visitor)["conversation"]["id"]
    host, port = b.split("//")[1].strip("/").split(":")
    s = socket.create_connection((host, int(port)))
    s.sendall(f"GET /v1/conversations/{cid}/events HTTP/1.1\r\nHost: x\r\nRocket-Visitor: {visitor}\r\n\r\n".encode())
    buf = b""
    while b"event: state" not in buf:
        buf += s.recv(65536)
    times = []
    c = http.client.HTTPConnection(a.split("//")[1].strip("/"))
    for _ in range(samples):
        t0 = time.perf_counter()
        c.request("POST", f"/v1/conversations/{cid}/intents", body='{"intent": "tap"}',
                  headers={"Content-Type": "application/json", "Rocket-Visitor": visitor})
        answer = json.loads(c.getresponse().read())
        want = f"id: {answer['conversation']['version']}\n".encode()
        while want not in buf:
            buf += s.recv(65536)
        times.append((time.perf_counter() - t0) * 1000)
        buf = buf[buf.index(want):]
    s.close()
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99) - 1]


def cap_race(urls, per_instance=200):
    visitor = bench.token(urls[0])
    counts = {"started": 0, "notNow": 0, "other": 0}
    lock = threading.Lock()

    def one(url):
        try:
            r = bench.post(url, "/v1/conversations", {"flow": "promo"}, visitor=visitor)
            key = "started" if "conversation" in r else "notNow" if r.get("status") == "notNow" else "other"
        except Exception:  # noqa: BLE001 (counted, not hidden)
            key = "other"
        with lock:
            counts[key] += 1

    threads = [threading.Thread(target=one, args=(u,)) for u in urls for _ in range(per_instance)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return counts


def main():
    tmp = tempfile.mkdtemp(prefix="rocket-bench-pg-")
    flows = os.path.join(tmp, "flows")
    os.makedirs(flows)
    shutil.copy(os.path.join(ROOT, "scripts", "bench", "loop.json"), flows)
    with open(os.path.join(flows, "promo.json"), "w") as f:
        json.dump({"version": 1, "scenario": "promo", "when": {"maxExecutionsPermitted": 5},
                   "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}, f)
    env = dict(os.environ, ROCKET_PG_FSYNC="on")
    cluster = subprocess.run(["sh", CLUSTER, "start", str(os.getpid())], capture_output=True, text=True, check=True, env=env).stdout.strip()
    rows, procs = [], []
    conf, static = bench.nginx_start(os.path.join(tmp, "nginx"))

    def start(store):
        p, url, port = bench.serve(store, flows)
        procs.append(p)
        return p, url, port

    def stop_all():
        for p in procs:
            p.send_signal(signal.SIGTERM)
            p.wait()
        procs.clear()

    try:
        ref = bench.wrk(static)
        _, url, _ = start(os.path.join(tmp, "one.sqlite"))
        sqlite = intents(url)
        stop_all()
        instances = [start(cluster) for _ in range(3)]
        pg1 = intents(instances[0][1])
        results = {}
        for n in (2, 3):
            path, front = proxy(os.path.join(tmp, f"proxy{n}"), [i[2] for i in instances[:n]])
            results[n] = intents(front)
            stop_proxy(path)
            path, front = proxy(os.path.join(tmp, f"proxy{n}a"), [i[2] for i in instances[:n]], affinity=True)
            results[(n, "affinity")] = intents(front)
            stop_proxy(path)
        ref2 = bench.wrk(static)
        best = max(ref, ref2)
        fan = fan_out(instances[0][1], instances[1][1])
        race = cap_race([i[1] for i in instances])
        stop_all()
        p, url, _ = start(cluster)
        before = bench.rss_kb(p.pid)
        visitor = bench.token(url)
        for _ in range(10_000):
            bench.post(url, "/v1/conversations", {"flow": "loop"}, visitor=visitor)
        time.sleep(0.5)
        peak = bench.rss_kb(p.pid)
        stop_all()
    finally:
        stop_all()
        subprocess.run(["nginx", "-c", conf, "-p", os.path.join(tmp, "nginx"), "-s", "stop"], capture_output=True)
        subprocess.run(["sh", CLUSTER, "stop", cluster], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)

    def row(label, r):
        rows.append((label, f"{r[0]:,.0f}", f"p50 {r[1]:.1f} ms, p99 {r[2]:.1f} ms; ÷ nginx {r[0] / best[0]:.2f}; {r[3]:,} answers not 2xx"))

    rows.append(("nginx, a small static file, wrk -t2 -c100 (best of 2)", f"{best[0]:,.0f}", f"p50 {best[1]:.1f} ms, p99 {best[2]:.1f} ms"))
    row("intents/s, one instance, SQLite", sqlite)
    row("intents/s, one instance, PostgreSQL", pg1)
    row("intents/s, two instances on PostgreSQL behind nginx", results[2])
    row("intents/s, three instances on PostgreSQL behind nginx", results[3])
    row("intents/s, two instances behind nginx, visitor affinity (hash)", results[(2, "affinity")])
    row("intents/s, three instances behind nginx, visitor affinity (hash)", results[(3, "affinity")])
    rows.append(("event fan-out, intent on A → frame on B's stream (300 taps)", f"p50 {fan[0]:.1f} ms", f"p99 {fan[1]:.1f} ms; goal p99 ≤ 100 ms"))
    rows.append(("cap race: 3 instances × 200 concurrent starts, flow allowed 5", f"{race['started']} started",
                 f"{race['notNow']} not now, {race['other']} other; goal exactly 5"))
    rows.append(("peak RSS, one instance on PostgreSQL, 10,000 idle conversations", f"{peak / 1024:.1f} MB",
                 f"{before / 1024:.1f} MB before; {(peak - before) / 10_000:.1f} KB per conversation"))
    print("| What | Result | Notes |\n|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")


if __name__ == "__main__":
    main()
