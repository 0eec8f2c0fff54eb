#!/usr/bin/env bash
# Instructions (callgrind) of one `status --json` over a store where one record changed since the last run:
# three runs over the store as it is (they leave the parse cache, the merge memo and the kept document),
# one record replaced as a publish replaces it (a new file renamed over it, dated a minute back so that the
# run caches it), then the run that is counted. Counts every thread's instructions, so it is CPU work, not
# wall time. Changes the record's trailing white space only; the merge is the same.
#
#   Benchmarks/instructions_changed.sh BINARY STORE [RECORD_NAME]
set -euo pipefail
binary=$1
store=$2
record=$store/${3:-$(ls "$store" | grep '\.json$' | sed -n 8p)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Symbols kept, debug information not: callgrind names the functions, and loads quickly.
strip --strip-debug -o "$work/aggctl" "$binary"
replace() {
  python3 - "$record" "$1" <<'PY'
import os, sys, time
path, spaces = sys.argv[1], int(sys.argv[2])
data = open(path, "rb").read().rstrip() + b" " * spaces + b"\n"
with open(path + ".replacing", "wb") as out:
    out.write(data)
os.rename(path + ".replacing", path)
published = time.time() - 60
os.utime(path, (published, published))
PY
}
status=(status --json --store "$store" --now 2026-11-30T12:00:00Z)
replace 0
for _ in 1 2 3; do XDG_STATE_HOME=$work/state "$binary" "${status[@]}" >/dev/null; done
replace 1
XDG_STATE_HOME=$work/state valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
  "$work/aggctl" "${status[@]}" >/dev/null 2>"$work/valgrind.log"
replace 0
grep -o 'refs: *[0-9,]*' "$work/valgrind.log"
