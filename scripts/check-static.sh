#!/bin/sh
# Builds the fully static `rocket` (what docs/BENCHMARKS.md measures) and checks its symbol table:
# no Foundation, CoreFoundation, ICU or _StringProcessing code may be linked into it.
set -eu
cd "$(dirname "$0")/.."
sh scripts/build-release.sh 2>&1 | grep -v "requires at runtime the shared libraries" || true
bin=.build/release/rocket
[ -x "$bin" ] || { echo "check-static: error: $bin was not built" >&2; exit 1; }
found=$(nm "$bin" | grep -E '10Foundation|__CFInitialize| _?CF[A-Z][A-Za-z]+(Create|Get|Release)| (u|ucol|ubrk|ucnv|uloc|udat|unum|ures)_[a-zA-Z]+(_[0-9]+)?$' | head -5 || true)
if [ -n "$found" ]; then
  echo "check-static: error: the static rocket links Foundation, CoreFoundation or ICU code:" >&2
  echo "$found" >&2
  exit 1
fi
# Swift's string algorithms module links its regular expression parser too (1.3 MB): our code
# uses RocketCore's TextHelpers (replacingAll, splitting(at:), containsText, range(ofText:)).
found=$(nm "$bin" | grep -E '17_StringProcessing|12_RegexParser' | head -5 || true)
if [ -n "$found" ]; then
  echo "check-static: error: the static rocket links _StringProcessing (use RocketCore's TextHelpers instead):" >&2
  echo "$found" >&2
  exit 1
fi
echo "check-static: ok: no Foundation, CoreFoundation, ICU or _StringProcessing symbols in $bin ($(wc -c < "$bin") bytes)"
