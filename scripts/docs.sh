#!/bin/sh
# The API reference: symbol graphs of every library module, converted by DocC with its catalog
# (Sources/MODULE/MODULE.docc), warnings treated as errors. Output: .build/docs/MODULE.
set -eu
cd "$(dirname "$0")/.."
# Every module with a catalog (each library product has one: scripts/check-imports.py checks it).
MODULES=$(for d in Sources/*/*.docc; do basename "$d" .docc; done | tr '\n' ' ')
swift package dump-symbol-graph --minimum-access-level public > .build/symbol-graph.log 2>&1 || { cat .build/symbol-graph.log; exit 1; }
graphs=$(dirname "$(find .build -path '*symbolgraph/RocketCore.symbols.json' | head -1)")
mkdir -p .build/docs
for m in $MODULES; do
  dir=.build/docs-graphs/$m
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$graphs/$m.symbols.json" "$dir/"
  for f in "$graphs/$m"@*.symbols.json; do [ -e "$f" ] && cp "$f" "$dir/"; done
  docc convert "Sources/$m/$m.docc" --fallback-display-name "$m" --fallback-bundle-identifier "org.rocketalert.$m" \
    --additional-symbol-graph-dir "$dir" --output-path ".build/docs/$m" --warnings-as-errors > ".build/docs-$m.log" 2>&1 \
    || { echo "docs: $m:"; grep -E "warning|error" ".build/docs-$m.log" | head -40; exit 1; }
done
echo "docs: ok: .build/docs/{$(echo $MODULES | tr ' ' ',')}"
