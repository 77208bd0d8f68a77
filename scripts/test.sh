#!/bin/sh
# Every test: formatting (swift-format, .swift-format), the layer rules (check-imports.py), the embedded web files current
# (gen-web-assets.py), the widget's script (node --check, node --test Tests/Widget/), the Swift Testing suites, the browser
# tests of `rocket serve` (Debian's chromium driven by Playwright; axe-core on every step of every example flow), docs/DEPLOY.md's deployment
# (three rocket serve on PostgreSQL behind nginx with TLS, instances killed under load), docs/deploy's systemd units
# (verified, their ExecStart= run as systemd would, its system calls held to their filter), the API reference build
# (DocC, warnings as errors), then the static-binary check. CI runs this (.ci/run).
set -eu
cd "$(dirname "$0")/.."
# One PostgreSQL cluster for the whole run (the PostgreSQL store's tests make a database each in
# it), in a temporary folder, stopped however the run ends.
ROCKET_TEST_POSTGRES=$(sh scripts/postgres-cluster.sh start)
export ROCKET_TEST_POSTGRES
trap 'sh scripts/postgres-cluster.sh stop "$ROCKET_TEST_POSTGRES"' EXIT
trap 'exit 130' INT TERM
swift format lint --strict --recursive Sources Tests Package.swift
python3 scripts/check-imports.py
python3 scripts/gen-web-assets.py --check
node --check Sources/RocketServer/Web/widget.js
node --test Tests/Widget/
# Bounded: a test that hangs fails the run (the log shows it started and never ended; the suites take about two
# minutes, a clean build about five), instead of holding CI until its own limit.
timeout --kill-after=30 1800 swift test
python3 Tests/Browser/browser_test.py
python3 Tests/Browser/axe_test.py
python3 Tests/Deploy/deploy_test.py
python3 Tests/Deploy/systemd_test.py
sh scripts/docs.sh
sh scripts/check-static.sh
