#!/usr/bin/env bash
# Recording overhead (docs/RECORDER.md "Overhead", docs/PERFORMANCE.md "Recorder"): 4 threads x
# 10^6 iterations of a mutex-protected and a racy increment (increments_bench.c), and of each
# alone (mutex_bench.c, racy_bench.c), racy_bench.c's loop on arrays of each thread's own
# (private_bench.c: what a recorded access costs when no cache line is shared), and of three
# atomics with relaxed, release and acquire orders (atomics_bench.c), and the first with every
# access two calls deep (calls_bench.c, for call stacks):
# uninstrumented vs real ThreadSanitizer vs racepred recording into memory only (without and
# with 16-frame call stacks: the recorder's own cost) vs writing the raw recording vs the whole
# `racepred record` (the run writing its raw recording, then the conversion into a trace;
# without and with `--stack-depth 16`). For the atomics and increments programs also the runtime
# with the older atomics model (every atomic a lock section, whatever its memory order; built
# on demand as the target racepred_rt_lock_atomics), recording into memory: what the memory
# orders cost.
# Each configuration runs RUNS times; the table gives the smallest wall time and the smallest
# CPU time (user + system, all threads) of the runs, each also as a multiple of the
# uninstrumented program's (the minimum is the run least disturbed by other work on the
# machine; the load average is printed before and after).
#   bench/recorder/overhead.sh [BUILD_DIR] [RUNS]     (defaults: build/release, 5)
# BENCHES="atomics racy" runs only those programs.
set -euo pipefail
BUILD=${1:-build/release}
RUNS=${2:-5}
CC=${CC:-gcc}
BENCHES=${BENCHES:-increments mutex racy private atomics calls}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rp_overhead.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

LOCK_RT="$BUILD/lib/lock_atomics/libracepred_rt.a"
if [ ! -f "$LOCK_RT" ] || [ "$BUILD/lib/libracepred_rt.a" -nt "$LOCK_RT" ]; then
  if ! cmake --build "$BUILD" --target racepred_rt_lock_atomics >/dev/null; then
    echo "note: no runtime with the older atomics model (cmake --build $BUILD --target" \
      "racepred_rt_lock_atomics failed); its rows are left out" >&2
    LOCK_RT=
  fi
fi

# "min_wall min_cpu" of RUNS runs of "$@" (wall and CPU in microseconds from wait4).
measure() {
  "$PY" - "$RUNS" "$@" <<'EOF'
import os, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
walls, cpus = [], []
for _ in range(runs):
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    walls.append(time.monotonic() - start)
    cpus.append(ru.ru_utime + ru.ru_stime)
print(f"{min(walls):.4f} {min(cpus):.4f}")
EOF
}

echo "load before: $(uptime)"
printf "%-10s %-44s %9s %7s %9s %7s\n" bench configuration wall ratio cpu ratio
for b in $BENCHES; do
  src="$HERE/${b}_bench.c"
  "$CC" -O2 -o "$WORK/$b.plain" "$src" -lpthread
  "$CC" -O2 -g -fsanitize=thread -o "$WORK/$b.tsan" "$src" -lpthread
  RACEPRED_CC=$CC "$BUILD/bin/racepred-cc" -O2 -o "$WORK/$b.rec" "$src" -lpthread
  if [ -n "$LOCK_RT" ]; then
    RACEPRED_CC=$CC "$BUILD/bin/racepred-cc" -O2 -c -o "$WORK/$b.o" "$src"
    "$CC" -o "$WORK/$b.lock" "$WORK/$b.o" "$LOCK_RT" -latomic -lpthread \
      -Wl,--dynamic-list="$BUILD/lib/racepred_rt.dynlist"
  fi
  mem="env RACEPRED_RECORD=$WORK/$b.mem RACEPRED_NOWRITE=1"
  rows=("uninstrumented|$WORK/$b.plain"
    "ThreadSanitizer (report_bugs=0)|env TSAN_OPTIONS=report_bugs=0 $WORK/$b.tsan"
    "ThreadSanitizer (reporting)|$WORK/$b.tsan"
    "racepred, record into memory|$mem $WORK/$b.rec"
    "racepred, into memory, 16-frame stacks|$mem RACEPRED_STACK_DEPTH=16 $WORK/$b.rec")
  case $b in
    atomics | increments)
      [ -z "$LOCK_RT" ] || rows+=("racepred, into memory, older atomics model|$mem $WORK/$b.lock") ;;
  esac
  rows+=("racepred, write raw recording|env RACEPRED_RECORD=$WORK/$b.raw $WORK/$b.rec"
    "racepred record (run + conversion)|$BUILD/racepred record -q -o $WORK/$b.rec.rpt -- $WORK/$b.rec"
    "racepred record --stack-depth 16|$BUILD/racepred record -q --stack-depth 16 -o $WORK/$b.rec.rpt -- $WORK/$b.rec")
  base_wall='' base_cpu=''
  for row in "${rows[@]}"; do
    name=${row%%|*}
    # shellcheck disable=SC2086  # the command is a list of words without spaces in them
    read -r wall cpu < <(measure ${row#*|})
    if [ -z "$base_wall" ]; then base_wall=$wall base_cpu=$cpu; fi
    printf "%-10s %-44s %9.3f %6.1fx %9.3f %6.1fx\n" "$b" "$name" "$wall" \
      "$(awk -v a="$wall" -v b="$base_wall" 'BEGIN {print a / b}')" "$cpu" \
      "$(awk -v a="$cpu" -v b="$base_cpu" 'BEGIN {print (b > 0 ? a / b : 0)}')"
  done
  s=$(date +%s.%N)
  "$BUILD/racepred" record -q --finish "$WORK/$b.raw" -o "$WORK/$b.rpt"
  fin=$(awk -v a="$(date +%s.%N)" -v b="$s" 'BEGIN {print a - b}')
  events=$("$BUILD/racepred" stats "$WORK/$b.rpt" | awk '$1 == "events" {print $2; exit}')
  printf "%-10s %-44s %9.3f   (%s events, raw %s bytes, trace %s bytes)\n" "$b" \
    "racepred record --finish (offline)" "$fin" "$events" "$(stat -c %s "$WORK/$b.raw")" \
    "$(stat -c %s "$WORK/$b.rpt")"
  rm -f "$WORK/$b".*raw* "$WORK/$b".*rpt "$WORK/$b.mem"*
done
echo "load after: $(uptime)"
