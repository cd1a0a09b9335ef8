#!/usr/bin/env bash
# Time of `racepred confirm` on its test programs (tests/confirm/*.c and
# tests/recorder/hidden_race.c), each with the arguments of its `// confirm:` lines (builds them
# into a temporary directory; never into the repository):
#   bench/confirm_time.sh BUILD_DIR
# One Markdown row per (program, arguments): races, executions in all (the recorded run, the
# witness's and holding executions, the replays), how each race ended (method and execution, or
# its status), the wall time and the CPU time (user + system of racepred and the program's
# processes). On a shared machine compare CPU.
set -euo pipefail
BUILD=${1:?usage: bench/confirm_time.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/racepred-confirm-time-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
echo "| program | arguments | races | executions | result | wall s | CPU s |"
echo "|---|---|---:|---:|---|---:|---:|"
for src in "$SRC"/tests/confirm/*.c "$SRC/tests/recorder/hidden_race.c"; do
  p=$(basename "$src" .c)
  "$BUILD/bin/racepred-cc" -O1 -g -o "$WORK/$p" "$src" -lpthread
  grep '^// confirm: ' "$src" | sed 's|^// confirm: \(.*\) =>.*|\1|' | while read -r line; do
    rm -f "$WORK/$p.ran"  # the input of witness_diverges.c
    # shellcheck disable=SC2086  # the arguments are words
    (cd "$WORK" && /usr/bin/time -o "$WORK/time" -f "%U %S %e" "$BUILD/racepred" confirm \
      --format json --replay-dir "$WORK/replays" $line -- "./$p" >"$WORK/report.json") || true
    python3 - "$p" "$line" "$WORK/report.json" "$WORK/time" <<'PY'
import json, sys
name, args, report, times = sys.argv[1:]
j = json.load(open(report))
user, system, wall = (float(x) for x in open(times).read().split()[-3:])
result = "; ".join(
    f"{r['variable']}: {r['method']} in execution {r['reproduced_in']}" if r["reproduced_in"]
    else f"{r['variable']}: {r['status']} after {r['executions']}" for r in j["races"])
print(f"| {name} | `{args}` | {len(j['races'])} | {j['executions']} | {result} | {wall:.2f} "
      f"| {user + system:.2f} |")
PY
  done
done
