#!/usr/bin/env python3
"""rocket report on 1,000,000 event records: elapsed time and peak memory (docs/BENCHMARKS.md).

Writes a log of experiment conversations (two variants and a holdout, a five-block funnel with
drop-offs, times to answer) to a temporary file, then runs the release `rocket report` on it
three times under /usr/bin/time, printing the best time and the peak RSS. The goal: at most 2 s
and 200 MB here.

Run from the package root after `swift build -c release --product rocket`:
    python3 scripts/bench-report.py [RECORDS]
"""
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROCKET = os.environ.get("ROCKET_BIN", os.path.join(ROOT, ".build", "release", "rocket"))


def write_log(path, target):
    rng = random.Random(42)
    blocks = ["welcome", "ask", "name", "plan", "done"]
    records, conversations = 0, 0
    t = 1_796_000_000.0
    with open(path, "w") as f:
        while records < target:
            conversations += 1
            cid = "%032x" % rng.getrandbits(128)
            u = rng.random()
            if u < 0.1:
                f.write('{"at":%.6f,"event":"exposure","flow":"onboarding","experiment":"copy","variant":"holdout","shown":false,"conversation":"%s"}\n' % (t, cid))
                records += 1
                continue
            variant = "a" if u < 0.55 else "b"
            tail = ',"variant":"%s","conversation":"%s"}\n' % (variant, cid)
            f.write('{"at":%.6f,"event":"exposure","flow":"onboarding","experiment":"copy","variant":"%s","shown":true,"conversation":"%s"}\n' % (t, variant, cid))
            f.write('{"at":%.6f,"event":"started","flow":"onboarding"' % t + tail)
            records += 2
            keep = 0.8 if variant == "a" else 0.85
            for k, b in enumerate(blocks):
                f.write('{"at":%.6f,"event":"blockAdded","index":%d,"id":"%s","type":"text"' % (t, k, b) + tail)
                records += 1
                if rng.random() > keep:
                    f.write('{"at":%.6f,"event":"dismissed","reason":"closed","count":%d,"ids":[]' % (t, k + 1) + tail)
                    records += 1
                    break
                t += rng.expovariate(1 / 3.0)
                f.write('{"at":%.6f,"event":"tapped","index":%d,"id":"%s","automatic":false' % (t, k, b) + tail)
                records += 1
            else:
                f.write('{"at":%.6f,"event":"dismissed","reason":"completed","count":5,"ids":[]' % t + tail)
                records += 1
            t += 1
    return records, conversations


def main():
    target = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    if not os.access(ROCKET, os.X_OK):
        sys.exit(f"{ROCKET} is missing: swift build -c release --product rocket")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "events.jsonl")
        records, conversations = write_log(path, target)
        size = os.path.getsize(path)
        best, peak = None, 0
        for _ in range(3):
            r = subprocess.run(["/usr/bin/time", "-f", "%e %M", ROCKET, "report", path, "--json"], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit("rocket report failed: " + r.stderr)
            elapsed, rss = r.stderr.strip().splitlines()[-1].split()
            best = float(elapsed) if best is None else min(best, float(elapsed))
            peak = max(peak, int(rss))
        print(f"report: {records:,} records ({conversations:,} conversations, {size / 1e6:.0f} MB): best of 3 {best:.2f} s, peak RSS {peak / 1024:.0f} MB")


if __name__ == "__main__":
    main()
