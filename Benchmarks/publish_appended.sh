#!/usr/bin/env bash
# Instructions of a Claude publish with nothing new, and of one after a response was appended to the newest
# log (the ledger included), counted by callgrind on a stripped copy of the binary.
#
#   Benchmarks/publish_appended.sh AGGCTL [ASSISTANT_LINES (default 20000)] [WORK (default /tmp/aggctl-appended)]
#
# The corpus comes from Generators/make_claude_logs.py (kept in WORK), its files aged an hour so that the
# collector's memo applies, as it does between two scheduled runs. The runs: a cold publish, two with
# nothing new, the one measured, a response appended to the newest log, the one measured.
set -euo pipefail
binary=$1 lines=${2:-20000} work=${3:-/tmp/aggctl-appended}
here=$(cd "$(dirname "$0")" && pwd)
corpus="$work/claude-$lines"
if [ ! -f "$corpus/manifest.json" ]; then
  rm -rf "$corpus"
  python3 "$here/Generators/make_claude_logs.py" --out "$corpus" --assistant-lines "$lines" >/dev/null
fi
run="$work/run"
rm -rf "$run"
mkdir -p "$run"
cp -r "$corpus" "$run/claude"
find "$run/claude" -name '*.jsonl' -exec touch -d '1 hour ago' {} +
strip --strip-debug -o "$run/aggctl" "$binary"
export XDG_STATE_HOME="$run/state" HOME="$run/home" PATH=/usr/bin:/bin
publish=("$run/aggctl" publish --store "$run/store" --device-id bench --source "claude:$run/claude"
  --now 2026-12-07T12:00:00Z)
count() {
  valgrind --tool=callgrind --callgrind-out-file="$run/callgrind.$1" "${publish[@]}" 2>&1 >/dev/null |
    awk '/refs:/ {print $NF}'
}
"${publish[@]}" 2>/dev/null
"${publish[@]}" 2>/dev/null
"${publish[@]}" 2>/dev/null
echo "nothing new:  $(count nothing) instructions"
newest=$(find "$run/claude" -name '*.jsonl' | sort | tail -1)
tail -1 "$newest" | sed 's/"id":"/"id":"x/; s/"requestId":"/"requestId":"x/' >>"$newest"
echo "one log grew: $(count grew) instructions"
