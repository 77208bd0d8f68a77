#!/bin/sh
# Coverage-guided fuzzing of the readers of others' bytes (Sources/RocketFuzz):
#
#   sh scripts/fuzz.sh TARGET [SECONDS] [libFuzzer options...]
#
# TARGET is one of json, flow, tests, snapshot, expression, template, text, keys, editor, image, server, answer, report, scenarios, answers (what each checks:
# docs/ARCHITECTURE.md, `RocketFuzz`). RocketFuzz is built with AddressSanitizer and libFuzzer's
# coverage in .build/fuzz; the corpus grows in .build/fuzz-corpus/TARGET, seeded from examples/.
# An input that crashes or breaks a property is written as .build/fuzz-corpus/TARGET-crash-*
# (exit 1); replay it in an ordinary build with
#
#   ROCKET_FUZZ_TARGET=TARGET swift run RocketFuzz FILE
#
# Not part of scripts/test.sh: a run finds what it finds in its time. What it found became tests.
set -eu
cd "$(dirname "$0")/.."
targets="json flow tests snapshot expression template text keys editor image server answer report scenarios answers"
target=${1:-}
case " $targets " in
*" $target "*) ;;
*)
  echo "fuzz: give a target: $targets" >&2
  exit 64
  ;;
esac
seconds=${2:-60}
case $seconds in '' | *[!0-9]*)
  echo "fuzz: SECONDS must be a whole number, not '$seconds'" >&2
  exit 64
  ;;
esac
shift
[ $# -gt 0 ] && shift

# The toolchain's lld links it: libFuzzer brings a main of its own beside the one SwiftPM names
# (RocketFuzz_main, which hands over to LLVMFuzzerRunDriver), and gold stops on the pair.
swift build -c release --scratch-path .build/fuzz --product RocketFuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DROCKET_FUZZ -Xcc -fsanitize=fuzzer-no-link,address \
  -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld

corpus=.build/fuzz-corpus/$target
mkdir -p "$corpus"
seed() { cp "$@" "$corpus"/ 2>/dev/null || true; }
case $target in
json) seed examples/*.json schema/*.json ;;
flow) for f in examples/*.json; do case $f in *.test.json) ;; *) seed "$f" ;; esac; done ;;
tests) seed examples/*.test.json ;;
snapshot)
  # Saved conversations of the snapshot fixtures' flow (version 1), and one of version 2.
  seed Tests/RocketCLITests/Fixtures/snapshot-v1/*.state.json
  cat >"$corpus/v2.state.json" <<'JSON'
{"format":"rocket-conversation","version":2,"flow":"e3c62a4f1b516419ef969f42e36c02241d6797c1a99e3cc14dc42e6437e9768a","status":"active","blocks":[{"id":"welcome","fired":true,"tapEnabled":true,"chosen":1},{"id":"name","fired":false,"tapEnabled":true}],"transcript":[{"block":0,"text":"Which plan?"},{"block":1,"text":"Great, Pro!"}],"answers":{"pick":{"value":"Pro"}},"timers":[{"remaining":2,"sequence":1,"action":{"autoAdvance":{"_0":0}}}],"sequence":2,"includesSecrets":false}
JSON
  ;;
image) seed examples/*.png Tests/Browser/flows/*.png ;;
server)
  # Requests apart by NUL bytes (Sources/RocketFuzz: ServerFuzz), over the example flows.
  v='Rocket-Visitor: fuzz'
  j='Content-Type: application/json'
  printf 'GET /v1/conversations/{id}\n%s\nRocket-Settled: 1/0\n\n\0POST /v1/conversations/{id}/intents\n%s\n%s\n\n{"intent": "tap", "step": 1, "index": 0}\0+\0POST /v1/conversations/{id}/intents\n%s\n%s\n\n{"intent": "submit", "text": "Ada", "step": 2}\0POST /v1/conversations/{id}/hold\n%s\n%s\n\n{"held": true}' \
    "$v" "$v" "$j" "$v" "$j" "$v" "$j" >"$corpus/conversation"
  printf 'POST /v1/alerts/{alert}/select\n%s\n%s\n\n{"index": 0}\0POST /v1/alerts/{alert}/mutations\n%s\n\n{"setActions": [{"title": "Edit"}]}\0GET /v1/alerts/{alert}\n%s\n\n' \
    "$v" "$j" "$j" "$v" >"$corpus/alert"
  printf 'POST /v1/conversations\n%s\n%s\n\n{"flow": "survey", "visitor": "fuzz", "lang": "fr", "dryRun": true}\0POST /v1/visitors\n\n\0GET /v1/visitors/fuzz\n\n\0DELETE /v1/visitors/fuzz\n\n\0GET /metrics\n\n\0OPTIONS /v1/conversations\nOrigin: http://x.test\n\n\0GET /play/welcome\n\n' \
    "$j" "$v" >"$corpus/routes"
  ;;
answer)
  # Answers to rocket's HTTP client: by a length, in chunks, to the end of the stream, interim first.
  printf 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nhello' >"$corpus/length"
  printf 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nT: 1\r\n\r\n' >"$corpus/chunks"
  printf 'HTTP/1.0 200 OK\r\n\r\nto the end' >"$corpus/end"
  printf 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n' >"$corpus/interim"
  ;;
report)
  # Records of an experiment's two variants and a holdout, answered and dropped, and an error.
  {
    printf '{"at":1700000000,"conversation":"c1","event":"exposure","flow":"f","experiment":"e","variant":"a","shown":true}\n'
    printf '{"at":1700000001,"conversation":"c1","event":"started","flow":"f","variant":"a","version":"v1"}\n'
    printf '{"at":1700000002,"conversation":"c1","event":"blockAdded","index":0,"id":"pick","type":"choice","variant":"a"}\n'
    printf '{"at":1700000003,"conversation":"c1","event":"buttonPressed","index":0,"id":"pick","title":"A, B","options":[0,1],"titles":["A","B"],"variant":"a"}\n'
    printf '{"at":1700000004,"conversation":"c1","event":"blockAdded","index":1,"id":"rate","type":"rating","scale":[0,10],"variant":"a"}\n'
    printf '{"at":1700000005,"conversation":"c1","event":"buttonPressed","index":1,"id":"rate","options":[9],"variant":"a"}\n'
    printf '{"at":1700000006,"conversation":"c1","event":"dismissed","reason":"completed","count":2,"ids":["pick","rate"],"variant":"a"}\n'
    printf '{"at":1700000007,"conversation":"c2","event":"exposure","flow":"f","experiment":"e","variant":"b","shown":true}\n'
    printf '{"at":1700000008,"conversation":"c2","event":"started","flow":"f","variant":"b","version":"v2"}\n'
    printf '{"at":1700000009,"conversation":"c2","event":"expressionError","id":"pick","path":"set.x","code":"division-by-zero","message":"m","variant":"b"}\n'
    printf '{"at":1700000010,"conversation":"c2","event":"dismissed","reason":"closed","count":0,"ids":[],"variant":"b"}\n'
    printf '{"at":1700000011,"conversation":"c3","event":"exposure","flow":"f","experiment":"e","variant":"holdout","shown":false}\n'
  } >"$corpus/records"
  ;;
scenarios)
  printf '{"scenarios": {"app-launch": {"eventsCount": 2, "executionsCount": 1, "firstEventDate": 1796695159.5675929, "lastEventDate": 1796695159.5828195, "lastExecutionDate": 1796695159.5928752, "recentEvents": [1796695159.5675929, 1796695159.5828195]}}, "executions": [{"scenario": "app-launch", "at": 1796695159.5928752}], "version": 1}' >"$corpus/export"
  ;;
answers)
  printf '{"age": 3, "email": "ada@example.org", "since": "2024-05-01", "score": 9, "liked": ["Support", "Speed"]}' >"$corpus/survey"
  printf '{"name": "Ada", "pin": "1234", "plan": 1, "promoter": true}' >"$corpus/mixed"
  ;;
expression) printf 'n > 2 and s matches "^a.*"' >"$corpus/seed" ;;
template) printf 'Hi {{name}}, {{ code }}{{' >"$corpus/seed" ;;
text) printf '(wide \347\225\214\347\225\214 and e\314\201 a\tb\nc \342\200\215 x' >"$corpus/seed" ;;
keys) printf '\033[A\033[1;5Cab\033[200~hi\033[201~\033OP\033' >"$corpus/seed" ;;
editor) printf 'P\003hello \347\225\214\347\225\214\033[D\033[D\177x\033[H\001\005' >"$corpus/seed" ;;
esac

# Leaks are not looked for: the statics made once per process (the server target's service) would
# be reported at exit.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} ROCKET_FUZZ_TARGET=$target exec .build/fuzz/release/RocketFuzz -max_total_time="$seconds" -timeout=5 -rss_limit_mb=3000 \
  -detect_leaks=0 -artifact_prefix=".build/fuzz-corpus/$target-" "$@" "$corpus"
