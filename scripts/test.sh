#!/bin/sh
# Every test: formatting (swift-format, .swift-format), the layer rules (check-imports.py), the Swift Testing suites, the browser
# tests of `rocket serve` (Debian's chromium driven by Playwright), the API reference build
# (DocC, warnings as errors), then the static-binary check. CI runs this (.ci/run).
set -eu
cd "$(dirname "$0")/.."
swift format lint --strict --recursive Sources Tests Package.swift
python3 scripts/check-imports.py
swift test
python3 Tests/Browser/browser_test.py
sh scripts/docs.sh
sh scripts/check-static.sh
