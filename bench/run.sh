#!/usr/bin/env bash
# Benchmarks (builds nothing): bench/run.sh BUILD_DIR
# Generates bench/data/t8_5m.std (5M events, 8 threads, seed 1) on first use, then measures
# reading (read_bench) and `racepred stats` end to end. docs/PERFORMANCE.md has the results.
set -euo pipefail

BUILD=${1:?usage: bench/run.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
cd "$(dirname "$0")/.."
RACEPRED="$BUILD/racepred"
DATA=bench/data/t8_5m.std

mkdir -p bench/data
if [ ! -s "$DATA" ]; then
  echo "== generating $DATA"
  "$RACEPRED" generate --threads 8 --events 5000000 --seed 1 -o "$DATA.tmp"
  mv "$DATA.tmp" "$DATA"
fi

echo "== machine"
echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"
echo "$DATA: $(wc -c <"$DATA") bytes"

echo "== reading (read + intern + validate)"
if [ -x "$BUILD/bench/read_bench" ]; then
  "$BUILD/bench/read_bench" --trace="$DATA" --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true
else
  echo "(no $BUILD/bench/read_bench: configure with Google Benchmark installed)"
fi

echo "== racepred stats (end to end, best of 5)"
best=0
for _ in 1 2 3 4 5; do
  start=$(date +%s%N)
  "$RACEPRED" stats "$DATA" >/dev/null
  t=$(($(date +%s%N) - start))
  if [ "$best" -eq 0 ] || [ "$t" -lt "$best" ]; then best=$t; fi
done
printf 'racepred stats %s: %d.%03d s\n' "$DATA" $((best / 1000000000)) $((best / 1000000 % 1000))
