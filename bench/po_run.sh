#!/usr/bin/env bash
# End-to-end benchmarks of the predictive partial-order engines (docs/PERFORMANCE.md):
#   bench/po_run.sh BUILD_DIR [RAPID_DIR]
# Generates (once, under bench/data, not committed) the benchmark trace: 5M events, 8 threads, 1000
# variables, 50 locks, seed 1; a 50M-event one for the memory check; 64- and 256-thread variants
# (5M events). Reports wall time, CPU time and max RSS (/usr/bin/time) of `racepred analyze -e ENGINE`
# (best of 3) and, if RAPID_DIR holds a compiled RAPID (classes in bin/, jars in lib/), of RAPID's
# WCP on the same traces.
set -euo pipefail

BUILD=${1:?usage: bench/po_run.sh BUILD_DIR [RAPID_DIR]}
BUILD=$(cd "$BUILD" && pwd)
RAPID=${2:-}
cd "$(dirname "$0")/.."
RACEPRED="$BUILD/racepred"
mkdir -p bench/data

gen() {  # name threads events
  local f="bench/data/$1.std"
  if [ ! -s "$f" ]; then
    "$RACEPRED" generate --threads "$2" --events "$3" --variables 1000 --locks 50 --seed 1 \
      -o "$f.tmp"
    mv "$f.tmp" "$f"
  fi
  echo "$f"
}

run() {  # label command...: best wall time of 3, with the CPU time and max RSS of that run
  local label=$1 best="" cpu="" rss="" stats
  shift
  stats=$(mktemp)
  for _ in 1 2 3; do
    /usr/bin/time -o "$stats" -f '%e %U %S %M' "$@" >/dev/null 2>&1 || true
    local t u s m
    read -r t u s m < <(tail -1 "$stats")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then
      best=$t
      cpu=$(awk "BEGIN{print $u + $s}")
      rss=$m
    fi
  done
  rm -f "$stats"
  # Under load the wall time is inflated; the CPU time (user + sys) is the better comparison.
  printf '%-34s %8s s wall %8s s CPU %10s KB\n' "$label" "$best" "$cpu" "$rss"
}

echo "== machine"
echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"

T8=$(gen po_t8_5m 8 5000000)
echo "== racepred analyze, $T8 (wall, max RSS)"
for e in fasttrack shb wcp dc wdc dc-tp wdp; do
  run "$e" "$RACEPRED" analyze -e "$e" "$T8"
done
if [ -n "$RAPID" ]; then
  CP="$RAPID/bin:$(ls "$RAPID"/lib/*.jar "$RAPID"/lib/jgrapht/*.jar | tr '\n' ':')"
  run "RAPID WCP" java -cp "$CP" WCP -f std -p "$T8"
fi

echo "== threads (5M events): 64 and 256"
for n in 64 256; do
  f=$(gen "po_t${n}_5m" "$n" 5000000)
  for e in fasttrack shb wcp dc wdc; do run "$e T=$n" "$RACEPRED" analyze -e "$e" "$f"; done
  if [ -n "$RAPID" ] && [ "${RAPID_THREADS:-0}" = 1 ]; then
    run "RAPID WCP T=$n" java -cp "$CP" WCP -f std -p "$f"
  fi
done

echo "== memory against trace length (max RSS, 5M vs 50M events, 8 threads)"
T50=$(gen po_t8_50m 8 50000000)
for e in fasttrack shb wcp dc wdc dc-tp wdp; do
  run "$e 50M" "$RACEPRED" analyze -e "$e" "$T50"
done
