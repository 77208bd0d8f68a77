#!/bin/sh
# The shipped `rocket`: a fully static, size-optimised release build (-Osize kept fewer code pages
# resident than -O: 7.4 MB peak against 7.95 MB in the terminal benchmark before the functions
# were ordered, same start-up and CPU). Used by check-static.sh (CI) and bench-tty.sh, so what CI
# checks is what is measured.
set -eu
cd "$(dirname "$0")/.."
# The functions the terminal interaction runs are laid out together (scripts/rocket.order, made by
# scripts/gen-order.sh, handed to the toolchain's lld): code is mapped in 64 KiB windows, so
# scattered hot functions cost RSS. Names the binary no longer has are skipped without a warning.
swift build -c release -Xswiftc -static-executable -Xswiftc -Osize -Xswiftc -use-ld=lld \
  -Xlinker --symbol-ordering-file="$PWD/scripts/rocket.order" -Xlinker --no-warn-symbol-ordering --product rocket "$@"
