#!/bin/sh
# The shipped `rocket`: a fully static, size-optimised release build (-Osize keeps fewer code
# pages resident: 7.4 MB peak against 7.95 MB with -O in the terminal benchmark, same start-up
# and CPU). Used by check-static.sh (CI) and bench-tty.sh, so what CI checks is what is measured.
set -eu
cd "$(dirname "$0")/.."
swift build -c release -Xswiftc -static-executable -Xswiftc -Osize --product rocket "$@"
