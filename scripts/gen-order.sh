#!/bin/sh
# Regenerates scripts/rocket.order: the functions the terminal benchmark's interaction runs (a
# message, a two-option choice, a typed name; ../shared/tools/peers/rocket-bench.json), in the
# order callgrind first names them. scripts/build-release.sh hands the file to the linker (lld's
# --symbol-ordering-file), so those functions sit together in the binary: the kernel maps code in
# 64 KiB windows around each first touch, and scattered functions cost a window each (peak RSS
# 5.5 MB instead of 8.0 MB). A stale file is harmless: names that no longer exist are skipped and
# new functions are placed after the ordered ones.
# Needs valgrind and the terminal bench harness (python3, pyte): see ../shared/tools/peers/run.sh.
set -eu
cd "$(dirname "$0")/.."
sh scripts/build-release.sh >/dev/null 2>&1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strip -g -o "$tmp/rocket" .build/release/rocket  # valgrind cannot read this toolchain's debug info
python3 ../shared/tools/ttybench.py --cols 80 --rows 24 --runs 1 --script ../shared/tools/scripts/rocket.json -- \
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/cg" "$tmp/rocket" play --instant ../shared/tools/peers/rocket-bench.json >/dev/null 2>&1
# Function names as callgrind first gives them, without its recursion marks ('2) and addresses.
grep -oE '^c?fn=\([0-9]+\) .+' "$tmp/cg" | sed -E -e 's/^c?fn=\([0-9]+\) //' -e "s/'[0-9]+$//" | grep -vE '^0x' | awk '!seen[$0]++' > scripts/rocket.order
echo "scripts/rocket.order: $(wc -l < scripts/rocket.order) functions"
