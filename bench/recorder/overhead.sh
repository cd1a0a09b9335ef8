#!/usr/bin/env bash
# Recording overhead (docs/PERFORMANCE.md "Recorder"): 4 threads x 10^6 iterations of a mutex-protected
# and a racy increment (increments_bench.c), and of each alone (mutex_bench.c, racy_bench.c), and
# of three atomics with relaxed, release and acquire orders (atomics_bench.c), and the first with
# every access two calls deep (calls_bench.c, for call stacks):
# uninstrumented vs real ThreadSanitizer vs racepred recording into memory only (without and
# with 16-frame call stacks: the recorder's own cost) vs writing the raw recording vs the whole
# `racepred record` (the run writing its raw recording, then the conversion into a trace;
# without and with `--stack-depth 16`). Median wall time of RUNS runs, and each time as a
# multiple of the uninstrumented run's.
#   bench/recorder/overhead.sh [BUILD_DIR] [RUNS]     (defaults: build/release, 5)
set -euo pipefail
BUILD=${1:-build/release}
RUNS=${2:-5}
CC=${CC:-gcc}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rp_overhead.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Wall seconds of one run of "$@" (environment prefixes allowed through env).
wall() {
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  e=$(date +%s.%N)
  awk -v a="$e" -v b="$s" 'BEGIN {print a - b}'
}
measure() {
  for ((i = 0; i < RUNS; i++)); do wall "$@"; done | median
}

printf "%-10s %-40s %10s %8s\n" bench configuration seconds ratio
for b in increments mutex racy atomics calls; do
  src="$HERE/${b}_bench.c"
  "$CC" -O2 -o "$WORK/$b.plain" "$src" -lpthread
  "$CC" -O2 -g -fsanitize=thread -o "$WORK/$b.tsan" "$src" -lpthread
  RACEPRED_CC=$CC "$BUILD/bin/racepred-cc" -O2 -o "$WORK/$b.rec" "$src" -lpthread
  base=$(measure "$WORK/$b.plain")
  mem=$(measure env RACEPRED_RECORD="$WORK/$b.mem" RACEPRED_NOWRITE=1 "$WORK/$b.rec")
  stacks=$(measure env RACEPRED_RECORD="$WORK/$b.mem" RACEPRED_NOWRITE=1 RACEPRED_STACK_DEPTH=16 \
    "$WORK/$b.rec")
  file=$(measure env RACEPRED_RECORD="$WORK/$b.raw" "$WORK/$b.rec")
  tsan=$(measure env TSAN_OPTIONS=report_bugs=0 "$WORK/$b.tsan")
  tsan_reports=$(measure "$WORK/$b.tsan")
  record=$(measure "$BUILD/racepred" record -q -o "$WORK/$b.rec.rpt" -- "$WORK/$b.rec")
  record_stacks=$(measure "$BUILD/racepred" record -q --stack-depth 16 -o "$WORK/$b.rec.rpt" -- \
    "$WORK/$b.rec")
  s=$(date +%s.%N)
  "$BUILD/racepred" record -q --finish "$WORK/$b.raw" -o "$WORK/$b.rpt"
  fin=$(awk -v a="$(date +%s.%N)" -v b="$s" 'BEGIN {print a - b}')
  events=$("$BUILD/racepred" stats "$WORK/$b.rpt" | awk '$1 == "events" {print $2; exit}')
  for row in "uninstrumented:$base" "ThreadSanitizer (report_bugs=0):$tsan" \
             "ThreadSanitizer (reporting):$tsan_reports" \
             "racepred, record into memory:$mem" \
             "racepred, into memory, 16-frame stacks:$stacks" \
             "racepred, write raw recording:$file" \
             "racepred record (run + conversion):$record" \
             "racepred record --stack-depth 16:$record_stacks"; do
    name=${row%%:*} t=${row##*:}
    printf "%-10s %-40s %10.3f %7.1fx\n" "$b" "$name" "$t" "$(awk -v a="$t" -v b="$base" 'BEGIN {print a / b}')"
  done
  printf "%-10s %-40s %10.3f   (%s events, raw %s bytes, trace %s bytes)\n" "$b" \
    "racepred record --finish (offline)" "$fin" "$events" "$(stat -c %s "$WORK/$b.raw")" \
    "$(stat -c %s "$WORK/$b.rpt")"
done
