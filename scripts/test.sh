#!/bin/sh
# Every test: the Swift Testing suites, then the static-binary check. CI runs this (.ci/run).
set -eu
cd "$(dirname "$0")/.."
swift test
sh scripts/check-static.sh
