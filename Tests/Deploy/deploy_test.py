#!/usr/bin/env python3
"""The deployment of docs/DEPLOY.md, run on loopback: a PostgreSQL cluster of its own, three
`rocket serve` sharing it, and nginx in front with TLS (docs/deploy/nginx.conf, a self-signed
certificate made here). A visitor plays a conversation through nginx while instances are killed
with SIGKILL and started again; every answer 200 must be in the store, each applied once, and an
event stream held through nginx must follow changes made through any instance. Then eight
visitors at once while an instance is killed; then an instance is killed with a timer pending,
which another must run (watched in the database).

Run by scripts/test.sh after `swift build` (the debug rocket; ROCKET_BIN picks another).
Bounded: every wait has a deadline; the whole run takes well under a minute.
"""
import hashlib
import hmac
import http.client
import http.server
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROCKET = os.environ.get("ROCKET_BIN", os.path.join(ROOT, ".build", "debug", "rocket"))
LOOP = {"version": 1, "start": "tick", "blocks": [{"id": "tick", "type": "text", "text": "Tick", "next": "tick"}]}
# A bubble that goes on by itself after 1.5 s: its timer must run even when its instance is killed.
TIMED = {"version": 1, "start": "wait", "blocks": [{"id": "wait", "type": "text", "text": "Wait", "showNextAfter": 1.5, "next": "done"},
                                                   {"id": "done", "type": "text", "text": "Done"}]}
# A question whose answer ends the conversation: its result must be kept once, whichever
# instance ended it.
ASK = {"version": 1, "start": "name", "blocks": [{"id": "name", "type": "textInput", "text": "Your name?", "buttonTitle": "Send"}]}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def fail(message):
    print(f"deploy test: FAIL: {message}", file=sys.stderr)
    raise SystemExit(1)


class Instance:
    """One `rocket serve` on the shared store, behind nginx."""

    def __init__(self, port, store, flows, keys, public, extra=()):
        self.port, self.args = port, [
            ROCKET, "serve", "--port", str(port), "--store", store, "--flows", flows, "--api-key-file", keys,
            "--trust-proxy", "127.0.0.1", "--public-url", public,
            # Every visitor of this test comes from 127.0.0.1: the per-address limits would be the test's.
            "--rate-per-address", "100000", "--rate", "1000", *extra,
        ]
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("http://"):
            fail(f"rocket serve did not start: {line}{self.proc.stderr.read()}")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Client:
    """HTTPS to nginx, trusting only the test's own certificate."""

    def __init__(self, port, cert):
        self.port = port
        self.context = ssl.create_default_context(cafile=cert)

    def call(self, method, path, body=None, headers=None):
        """One request, tried again (for up to 5 s) while nginx has no instance it trusts (502)
        or the answer says to try again (503, 504): what a client does after an instance dies."""
        for attempt in range(50):
            status, parsed, answer_headers = self.once(method, path, body, headers)
            if status not in (502, 503, 504):
                break
            time.sleep(0.1)
        return status, parsed, answer_headers

    def once(self, method, path, body=None, headers=None):
        c = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context, timeout=10)
        h = {"Content-Type": "application/json"} if body is not None else {}
        h.update(headers or {})
        c.request(method, path, body=json.dumps(body) if body is not None else None, headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = None
        return r.status, parsed, dict(r.getheaders())


class Receiver:
    """The site's webhook endpoint: records every delivery (its headers and body) and answers 204."""

    def __init__(self):
        self.deliveries, lock = [], threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with lock:
                    receiver.deliveries.append((dict(self.headers.items()), body))
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def new_visitor(client, public, flow):
    """A new anonymous visitor (its headers) and the conversation of `flow` it starts (its id);
    raises when either is refused."""
    status, v, _ = client.call("POST", "/v1/visitors", {})
    if status != 201:
        raise RuntimeError(f"POST /v1/visitors answered {status}")
    who = {"Rocket-Visitor": v["token"], "Origin": public}
    status, c, _ = client.call("POST", "/v1/conversations", {"flow": flow, "reducedMotion": True}, who)
    if status != 201:
        raise RuntimeError(f"the start of {flow} answered {status}: {c}")
    return who, c["conversation"]["id"]


def while_restarting(work, count, instance, problems, after):
    """Runs work(n) for n in 0..<count on threads of their own while `instance` is killed with
    SIGKILL `after` seconds in and started again half a second later; fails with the first
    problems the workers noted."""
    threads = [threading.Thread(target=work, args=(n,)) for n in range(count)]
    for t in threads:
        t.start()
    time.sleep(after)
    instance.kill()
    time.sleep(0.5)
    instance.start()
    for t in threads:
        t.join(timeout=60)
    if problems:
        fail("; ".join(problems[:5]))


def main():
    if not os.access(ROCKET, os.X_OK):
        fail(f"{ROCKET} is missing: run swift build first")
    tmp = tempfile.mkdtemp(prefix="rocket-deploy.")
    cluster = subprocess.run(
        ["sh", os.path.join(ROOT, "scripts", "postgres-cluster.sh"), "start", str(os.getpid())],
        capture_output=True, text=True, check=True).stdout.strip()
    nginx_root = os.path.join(tmp, "nginx")
    os.makedirs(nginx_root)
    instances = []
    nginx_conf = os.path.join(nginx_root, "nginx.conf")
    try:
        # A self-signed certificate for 127.0.0.1 (what a site gets from its CA).
        cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
             "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert],
            check=True, capture_output=True)
        flows = os.path.join(tmp, "flows")
        os.makedirs(flows)
        with open(os.path.join(flows, "loop.json"), "w") as f:
            json.dump(LOOP, f)
        with open(os.path.join(flows, "timed.json"), "w") as f:
            json.dump(TIMED, f)
        with open(os.path.join(flows, "ask.json"), "w") as f:
            json.dump(ASK, f)
        keys = os.path.join(tmp, "keys")
        with open(keys, "w") as f:
            f.write("site-key-for-the-deploy-test-0123456789\n")
        listen = free_port()
        public = f"https://127.0.0.1:{listen}"
        ports = [free_port() for _ in range(3)]
        # Every instance may send results to the site's webhook; the holder of its lease does.
        receiver = Receiver()
        hook_secret = os.path.join(tmp, "hook-secret")
        with open(hook_secret, "w") as f:
            f.write("webhook-secret-for-the-deploy-test-0123456789\n")
        os.chmod(hook_secret, 0o600)
        hook = ["--webhook", f"http://127.0.0.1:{receiver.port}/hook", "--webhook-secret-file", hook_secret]
        instances = [Instance(p, cluster, flows, keys, public, hook) for p in ports]
        for i in instances:
            i.start()
        with open(os.path.join(ROOT, "docs", "deploy", "nginx.conf")) as f:
            conf = f.read()
        upstreams = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;" for p in ports)
        for name, value in {"ROOT": nginx_root, "UPSTREAMS": upstreams, "LISTEN": f"127.0.0.1:{listen}", "CERT": cert, "KEY": key}.items():
            conf = conf.replace(f"@{name}@", value)
        if "@" in conf.replace("$", ""):
            leftover = [w for w in conf.split() if w.startswith("@")]
            if leftover:
                fail(f"docs/deploy/nginx.conf has placeholders the test does not fill: {leftover}")
        with open(nginx_conf, "w") as f:
            f.write(conf)
        subprocess.run(["nginx", "-t", "-q", "-c", nginx_conf, "-p", nginx_root], check=True)
        subprocess.run(["nginx", "-c", nginx_conf, "-p", nginx_root], check=True)
        client = Client(listen, cert)
        deadline = time.monotonic() + 10
        while True:
            try:
                if client.call("GET", "/readyz")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                fail("nginx and the instances did not become ready")
            time.sleep(0.05)

        status, visitor, _ = client.call("POST", "/v1/visitors", {})
        if status != 201:
            fail(f"POST /v1/visitors answered {status}")
        me = {"Rocket-Visitor": visitor["token"], "Origin": public}
        status, started, _ = client.call("POST", "/v1/conversations", {"flow": "loop", "reducedMotion": True}, me)
        if status != 201:
            fail(f"the start answered {status}: {started}")
        cid = started["conversation"]["id"]

        # An event stream through nginx (buffering off): it must see changes made through any
        # instance. When its instance is killed the stream ends, and it comes back as a browser's
        # EventSource does: again, with Last-Event-ID.
        seen = {"version": 0, "streams": 0}

        def open_stream():
            c = http.client.HTTPSConnection("127.0.0.1", listen, context=client.context, timeout=15)
            headers = dict(me, Accept="text/event-stream")
            if seen["version"]:
                headers["Last-Event-ID"] = str(seen["version"])
            c.request("GET", f"/v1/conversations/{cid}/events", headers=headers)
            r = c.getresponse()
            if r.status != 200:
                fail(f"the event stream answered {r.status}")
            seen["streams"] += 1
            return c, r

        stream, events = open_stream()

        def stream_reaches(version, seconds=10):
            nonlocal stream, events
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                # The body ends when the instance does: nginx ends it (a stream's answer lasts
                # until its connection closes) or cuts it off; either way it is opened again.
                try:
                    raw = events.readline()
                except (http.client.HTTPException, ConnectionError):
                    raw = b""
                if not raw:
                    stream.close()
                    stream, events = open_stream()
                    continue
                line = raw.decode("utf-8", "replace")
                if line.startswith("id: "):
                    seen["version"] = max(seen["version"], int(line[4:].strip()))
                    if seen["version"] >= version:
                        return True
            return False

        acknowledged, step, refused = 0, 0, 0
        for k in range(60):
            if k == 15:
                instances[0].kill()
            if k == 30:
                instances[0].start()
                instances[1].kill()
            if k == 45:
                instances[1].start()
            # A client retries a failed POST with the same step: rocket applies it once.
            status, answer, _ = client.call("POST", f"/v1/conversations/{cid}/intents", {"intent": "tap", "step": step}, me)
            if status == 200:
                acknowledged += 1
                step = answer["conversation"]["step"]
                version = answer["conversation"]["version"]
                if k % 10 == 9 and not stream_reaches(version):
                    fail(f"the event stream did not reach version {version} (tap {k})")
            elif status == 409:
                refused += 1
                status, read, _ = client.call("GET", f"/v1/conversations/{cid}", headers=me)
                step = read["conversation"]["step"]
            else:
                fail(f"tap {k} answered {status}: {answer}")
        stream.close()
        status, final, _ = client.call("GET", f"/v1/conversations/{cid}", headers=me)
        if status != 200:
            fail(f"the last read answered {status}")
        if final["conversation"]["step"] != step:
            fail(f"the store's step is {final['conversation']['step']}, the last acknowledged {step}")
        if acknowledged < 40:
            fail(f"only {acknowledged} of 60 taps were acknowledged ({refused} refused as stale)")
        print(f"deploy test: ok: 3 instances behind nginx (TLS), 2 killed and restarted; {acknowledged} taps acknowledged, "
              f"{refused} refused as stale and read again; the store's step is {step}; "
              f"the event stream followed every change ({seen['streams']} connections)")

        # Under load: eight visitors tap their own conversations at once while an instance is
        # killed with SIGKILL and started again. What each was last told is what the store holds.
        results, problems = {}, []

        def visitor_taps(n):
            try:
                who, cid = new_visitor(client, public, "loop")
                last = 0
                for _ in range(40):
                    status, answer, _ = client.call("POST", f"/v1/conversations/{cid}/intents", {"intent": "tap", "step": last}, who)
                    if status == 200:
                        last = answer["conversation"]["step"]
                    elif status == 409:
                        status, read, _ = client.call("GET", f"/v1/conversations/{cid}", headers=who)
                        last = read["conversation"]["step"]
                    else:
                        problems.append(f"visitor {n}: a tap answered {status}: {answer}")
                        return
                results[cid] = (who, last)
            except Exception as e:  # noqa: BLE001 (a failed request is a failed test, said plainly)
                problems.append(f"visitor {n}: {e!r}")

        while_restarting(visitor_taps, 8, instances[2], problems, after=0.5)
        for cid, (who, last) in results.items():
            status, read, _ = client.call("GET", f"/v1/conversations/{cid}", headers=who)
            if status != 200 or read["conversation"]["step"] != last:
                fail(f"conversation {cid}: the store holds step {read and read.get('conversation', {}).get('step')} ({status}: {read}), its visitor was last told {last}")
        if len(results) != 8:
            fail(f"only {len(results)} of 8 visitors finished")
        print(f"deploy test: ok: 8 visitors × 40 taps while an instance was killed and restarted: every acknowledged tap is stored")

        # Results across instances: twelve visitors answer a question that ends their conversation
        # while an instance is killed and started again; the site's back end then reads
        # GET /v1/results page by page through nginx and finds each answer once.
        answered, problems = {}, []

        def visitor_answers(n):
            try:
                who, cid = new_visitor(client, public, "ask")
                for _ in range(50):
                    status, answer, _ = client.call("POST", f"/v1/conversations/{cid}/intents", {"intent": "submit", "text": f"Name {n}"}, who)
                    if status == 200:
                        answered[cid] = (who, f"Name {n}")
                        return
                    time.sleep(0.05)  # the question not shown yet (its intro), or an instance restarting
                problems.append(f"answerer {n}: the answer was never taken ({status}: {answer})")
            except Exception as e:  # noqa: BLE001
                problems.append(f"answerer {n}: {e!r}")

        while_restarting(visitor_answers, 12, instances[1], problems, after=0.3)
        # Each ends once its answer is in (a step of its own, on whichever instance runs it).
        deadline = time.monotonic() + 15
        for cid, (who, _) in answered.items():
            while True:
                status, read, _ = client.call("GET", f"/v1/conversations/{cid}", headers=who)
                if status == 200 and read["conversation"]["status"] == "dismissed":
                    break
                if time.monotonic() > deadline:
                    fail(f"conversation {cid} did not end: {status} {read}")
                time.sleep(0.05)
        site = {"Authorization": "Bearer site-key-for-the-deploy-test-0123456789"}
        seen, after = {}, 0
        while True:
            status, page, _ = client.call("GET", f"/v1/results?flow=ask&limit=5&after={after}", headers=site)
            if status != 200:
                fail(f"GET /v1/results answered {status}: {page}")
            for r in page["results"]:
                if r["conversation"] in seen:
                    fail(f"the result of {r['conversation']} came twice")
                seen[r["conversation"]] = r["answers"].get("name")
            if not page["results"]:
                break
            after = page["next"]
        expected = {cid: name for cid, (_, name) in answered.items()}
        if seen != expected or len(seen) != 12:
            fail(f"the results are {seen}, not the 12 answers given {expected}")
        print("deploy test: ok: 12 answers given while an instance was killed and restarted: GET /v1/results through nginx lists each once")

        # The webhook got them too, from whichever instance held its lease (a killed holder's lease
        # runs out and another goes on from the place kept): each at least once, first arrivals in
        # order, every one signed.
        deadline = time.monotonic() + 45
        while time.monotonic() < deadline:
            got = {json.loads(body)["conversation"] for _, body in receiver.deliveries}
            if set(expected) <= got:
                break
            time.sleep(0.1)
        firsts, seen_seq = [], set()
        for headers, body in receiver.deliveries:
            sig = dict(part.split("=", 1) for part in headers.get("Rocket-Signature", "").split(","))
            mac = hmac.new(b"webhook-secret-for-the-deploy-test-0123456789", sig.get("t", "").encode() + b"." + body, hashlib.sha256).hexdigest()
            if not hmac.compare_digest(mac, sig.get("v1", "")):
                fail(f"a webhook delivery is not signed right: {headers}")
            seq = json.loads(body)["seq"]
            if seq not in seen_seq:
                seen_seq.add(seq)
                firsts.append(seq)
        got = {json.loads(body)["conversation"]: json.loads(body)["answers"].get("name") for _, body in receiver.deliveries}
        if any(got.get(cid) != name for cid, name in expected.items()):
            fail(f"the webhook got {got}, not the 12 answers given {expected}")
        if firsts != sorted(firsts):
            fail(f"the webhook's deliveries came out of order: {firsts}")
        print(f"deploy test: ok: the webhook got the 12 results ({len(receiver.deliveries)} deliveries, first arrivals in order, all signed)")

        # A timer whose instance is killed runs on another: started on instance 0 directly, which
        # is killed at once; within the timer and the takeover's grace the bubble has gone on.
        direct = f"127.0.0.1:{instances[0].port}"
        c = http.client.HTTPConnection(direct, timeout=10)
        c.request("POST", "/v1/conversations", body=json.dumps({"flow": "timed", "reducedMotion": True}),
                  headers={"Content-Type": "application/json", "Rocket-Visitor": me["Rocket-Visitor"]})
        r = c.getresponse()
        timed = json.loads(r.read())
        if r.status != 201:
            fail(f"the timed start answered {r.status}: {timed}")
        tid = timed["conversation"]["id"]
        instances[0].kill()
        # Watched in the database, not through rocket (a read would load it into the instance
        # that answers, which would then run the timer itself): the takeover must do it.
        end = time.monotonic() + 10
        row = ""
        while time.monotonic() < end:
            row = subprocess.run(["psql", cluster, "-Atc", f"SELECT deadline IS NULL, version FROM rocket_conversations WHERE id = '{tid}'"],
                                 capture_output=True, text=True).stdout.strip()
            if row.startswith("t|"):
                break
            time.sleep(0.2)
        if not row.startswith("t|"):
            fail(f"the killed instance's timer did not run elsewhere within 10 s (deadline null, version: {row})")
        status, read, _ = client.call("GET", f"/v1/conversations/{tid}", headers=me)
        texts = [item.get("text") for item in read["conversation"]["transcript"]] if status == 200 else []
        if "Done" not in texts:
            fail(f"the conversation after the takeover shows {texts}")
        instances[0].start()
        print("deploy test: ok: the timer of a conversation whose instance was killed ran on another")
    finally:
        if os.path.exists(os.path.join(nginx_root, "nginx.pid")):
            subprocess.run(["nginx", "-c", nginx_conf, "-p", nginx_root, "-s", "stop"], capture_output=True)
        for i in instances:
            i.stop()
        subprocess.run(["sh", os.path.join(ROOT, "scripts", "postgres-cluster.sh"), "stop", cluster], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
