#!/usr/bin/env bash
# Executions per second of `racepred explore`, on its fork server and with a fresh exec per
# execution (--no-fork-server), on tests/explore programs (builds them into a temporary
# directory; never into the repository):
#   bench/explore_speed.sh BUILD_DIR [EXECUTIONS]
# One Markdown row per (program, mode, choices, jobs): executions, choice points per execution,
# and per execution the time running it (`run_seconds`), the whole wall time, and the CPU time
# (user + system of racepred and the program's processes), and executions per second (wall).
# choices: "plan" (the runtime makes the strategy's choices in-process, the default) or
# "round trip" (--round-trip: racepred is asked at every choice point). The random strategy
# with seed 1: every mode, choices and --jobs run the same executions. three_threads
# (bench/explore_three_threads.c) is the shape of the speed target: three threads, about fifty
# visible operations; it runs with --jobs 1 and 2 and both ways of choosing (and --jobs 4 on
# the fork server with the plan). On a shared machine compare CPU.
set -euo pipefail
BUILD=${1:?usage: bench/explore_speed.sh BUILD_DIR [EXECUTIONS]}
BUILD=$(cd "$BUILD" && pwd)
N=${2:-200}
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/racepred-explore-speed-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
printf 'int main(void) { return 0; }\n' >"$WORK/empty.c"
"$BUILD/bin/racepred-cc" -O1 -g -o "$WORK/empty" "$WORK/empty.c" -lpthread
for p in condvar_loop_fixed lost_update_wrong_lock; do
  "$BUILD/bin/racepred-cc" -O1 -g -o "$WORK/$p" "$SRC/tests/explore/$p.c" -lpthread
done
"$BUILD/bin/racepred-cc" -O1 -g -o "$WORK/three_threads" "$SRC/bench/explore_three_threads.c" \
  -lpthread
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| program | mode | choices | jobs | executions | choice points / execution | run ms | wall ms | CPU ms | executions/s |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
for p in empty condvar_loop_fixed lost_update_wrong_lock three_threads; do
  for mode in fork exec; do
    for choices in plan round-trip; do
      for jobs in 1 2 4; do
        [ "$p" != three_threads ] && { [ "$jobs" != 1 ] || [ "$choices" = round-trip ]; } && continue
        [ "$jobs" = 4 ] && { [ "$mode" = exec ] || [ "$choices" = round-trip ]; } && continue
        flag=()
        [ "$mode" = exec ] && flag+=(--no-fork-server)
        [ "$choices" = round-trip ] && flag+=(--round-trip)
        /usr/bin/time -o "$WORK/time" -f "%U %S %e" "$BUILD/racepred" explore --format json \
          --strategy random --seed 1 --executions "$N" --jobs "$jobs" \
          --replay-dir "$WORK/replays" "${flag[@]}" -- "$WORK/$p" >"$WORK/report.json" || true
        /usr/bin/python3 - "$p" "$mode" "$choices" "$jobs" "$WORK/report.json" "$WORK/time" <<'PY'
import json, sys
name, mode, choices, jobs, report, times = sys.argv[1:]
j = json.load(open(report))
user, system, wall = (float(x) for x in open(times).read().split()[-3:])
n = j["executions"]
assert j["fork_server"] == (mode == "fork"), j["notes"]
print(f"| {name} | {mode} | {choices.replace('-', ' ')} | {jobs} | {n} "
      f"| {j['choice_points'] / n:.1f} | {1000 * j['run_seconds'] / n:.1f} "
      f"| {1000 * wall / n:.2f} | {1000 * (user + system) / n:.2f} | {n / wall:.0f} |")
PY
      done
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
