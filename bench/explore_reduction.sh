#!/usr/bin/env bash
# Executions of the complete dfs with the Goldilocks reduction against the unreduced search
# (every memory access a branching point), on tests/explore programs, built into a temporary
# directory (never into the repository):
#   bench/explore_reduction.sh BUILD_DIR [K] [PROGRAM[:CFLAGS]...]
# K: the preemption bound (default 1); programs by name, each optionally with compiler flags
# (private_work:-DITEMS=16: more thread-local work); default: every program with three or more
# threads. One Markdown row per program: threads (main included), both searches' executions
# (each must complete), the classes of the unreduced search's executions up to the order of
# independent operations (their Mazurkiewicz traces: an optimal reduction runs one execution of
# each, so unreduced / classes is the most any sound reduction can save), the ratios, and
# whether both found the same findings (and the reduced search reached every class).
set -euo pipefail
BUILD=${1:?usage: bench/explore_reduction.sh BUILD_DIR [K] [PROGRAM...]}
BUILD=$(cd "$BUILD" && pwd)
K=${2:-1}
shift $(($# < 2 ? $# : 2))
SRC=$(cd "$(dirname "$0")/.." && pwd)
PROGRAMS=("$@")
if [ ${#PROGRAMS[@]} -eq 0 ]; then
  PROGRAMS=(dining_philosophers dining_philosophers_fixed four_threads four_threads_fixed
    bounded_buffer bounded_buffer_fixed condvar_no_loop condvar_loop_fixed private_work
    private_work_fixed)
fi
WORK=$(mktemp -d /tmp/racepred-explore-reduction-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# Threads of each program, main included (from its source).
declare -A THREADS=([dining_philosophers]=4 [dining_philosophers_fixed]=4 [four_threads]=5
  [four_threads_fixed]=5 [bounded_buffer]=3 [bounded_buffer_fixed]=3 [condvar_no_loop]=4
  [condvar_loop_fixed]=4 [private_work]=4 [private_work_fixed]=4)
echo "| program | threads | K | reduced | classes | unreduced | unreduced / reduced | unreduced / classes | same findings |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
for spec in "${PROGRAMS[@]}"; do
  p=${spec%%:*}
  flags=()
  [ "$spec" != "$p" ] && read -r -a flags <<<"${spec#*:}"
  "$BUILD/bin/racepred-cc" -O1 -g "${flags[@]}" -o "$WORK/$p" "$SRC/tests/explore/$p.c" -lpthread
  for mode in reduced unreduced; do
    flag=()
    [ "$mode" = unreduced ] && flag=(--unreduced)
    "$BUILD/racepred" explore --format json --strategy dfs --preemptions "$K" "${flag[@]}" \
      --replay-dir "$WORK/replays" -- "$WORK/$p" >"$WORK/$p.$mode.json" || true
  done
  /usr/bin/python3 - "$p" "$K" "$WORK/$p.reduced.json" "$WORK/$p.unreduced.json" "${flags[*]}" \
    "${THREADS[$p]:-?}" <<'PY'
import json, re, sys
name, k, a, b, flags, threads = sys.argv[1:]
r, u = json.load(open(a)), json.load(open(b))
def keys(j):
    return sorted((f["kind"], f.get("variable") or f.get("failure") or "") for f in j["findings"])
assert r["complete"] and u["complete"], (r["coverage"], u["coverage"])
ratio = u["executions"] / r["executions"]
m = re.search(r"classes up to the order of independent operations: (at least )?(\d+)", u["coverage"])
classes = int(m.group(2)) if m else 0
best = f"{u['executions'] / classes:.1f}×" if classes else "?"
mr = re.search(r"classes up to the order of independent operations: (at least )?(\d+)", r["coverage"])
reached = int(mr.group(2)) if mr else 0
same = 'yes' if keys(r) == keys(u) else 'NO: %s / %s' % (keys(r), keys(u))
same += ', every class' if reached == classes else f', {reached:,} of the classes'
print(f"| `{name}.c`{' ' + flags if flags else ''} | {threads} | {k} | {r['executions']:,} | "
      f"{(m.group(1) or '') if m else ''}{classes:,} | {u['executions']:,} | {ratio:.1f}× | {best} | "
      f"{same} |")
PY
done
