#!/usr/bin/env bash
# The controlled scheduler's cost per visible operation, and explore's memory over a long run,
# on programs built into a temporary directory (never into the repository):
#   bench/explore_overhead.sh BUILD_DIR [EXECUTIONS]
# 1. Two threads that take and release one mutex N times each (4N visible operations per
#    execution), explored with the random strategy (seed 1, 20 executions) for N = 100 and
#    N = 4000: the difference of CPU (user + system of racepred, its fork server and every
#    execution) per execution, divided by the difference of visible operations and of choice
#    points, is the cost of one scheduled operation: the hook, the round trip to racepred when
#    two threads can run, recording its events and analysing them.
# 2. racepred's own resident memory (ps) every 2 s while it runs EXECUTIONS (default 6000)
#    random executions of tests/explore/lost_update_wrong_lock.c: it must stay flat.
set -euo pipefail
BUILD=${1:?usage: bench/explore_overhead.sh BUILD_DIR [EXECUTIONS]}
BUILD=$(cd "$BUILD" && pwd)
LONG=${2:-6000}
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/racepred-explore-overhead-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cat >"$WORK/ops.c" <<'C'
#include <pthread.h>
#include <stdlib.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
long counter;
static int n;
static void* worker(void* arg) {
  for (int i = 0; i < n; ++i) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
  }
  return arg;
}
int main(int argc, char** argv) {
  n = argc > 1 ? atoi(argv[1]) : 1000;
  pthread_t a, b;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
C
"$BUILD/bin/racepred-cc" -O1 -g -o "$WORK/ops" "$WORK/ops.c" -lpthread
for n in 100 4000; do
  /usr/bin/time -o "$WORK/time.$n" -f "%U %S" "$BUILD/racepred" explore --format json \
    --strategy random --seed 1 --executions 20 --replay-dir "$WORK/replays" -- "$WORK/ops" "$n" \
    >"$WORK/report.$n.json" || true
done
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
rows = {}
for n in (100, 4000):
    j = json.load(open(f"{work}/report.{n}.json"))
    user, system = (float(x) for x in open(f"{work}/time.{n}").read().split()[-2:])
    rows[n] = (4 * n, j["choice_points"] / j["executions"], 1000 * (user + system) / j["executions"])
    print(f"N = {n}: {4 * n} visible operations, {rows[n][1]:.0f} choice points, "
          f"{rows[n][2]:.1f} ms CPU per execution")
(o1, c1, t1), (o2, c2, t2) = rows[100], rows[4000]
print(f"per visible operation: {1e6 * (t2 - t1) / (o2 - o1):.0f} ns CPU; "
      f"per choice point: {1e6 * (t2 - t1) / (c2 - c1):.0f} ns CPU")
PY
"$BUILD/bin/racepred-cc" -O1 -g -o "$WORK/lu" "$SRC/tests/explore/lost_update_wrong_lock.c" -lpthread
"$BUILD/racepred" explore --strategy random --seed 1 --executions "$LONG" -q \
  --replay-dir "$WORK/replays" -- "$WORK/lu" >/dev/null 2>&1 &
pid=$!
samples=()
while kill -0 "$pid" 2>/dev/null; do
  rss=$(ps -o rss= -p "$pid" 2>/dev/null || true)
  [ -n "$rss" ] && samples+=("$rss")
  sleep 2
done
wait "$pid" || true
echo "racepred's resident memory every 2 s over $LONG executions (KB): ${samples[*]}"
