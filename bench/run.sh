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

echo "== binary format: size and reading speed against STD (docs/PERFORMANCE.md)"
if [ -x "$BUILD/bench/binary_format_bench" ]; then
  "$BUILD/bench/binary_format_bench" --trace="$DATA" --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true
fi
echo "(recording overhead: bench/recorder/overhead.sh $BUILD; not run here, it takes minutes)"

echo "== racepred stats (end to end, best of 5)"
best=0
for _ in 1 2 3 4 5; do
  start=$(date +%s%N)
  "$RACEPRED" stats "$DATA" >/dev/null
  t=$(($(date +%s%N) - start))
  if [ "$best" -eq 0 ] || [ "$t" -lt "$best" ]; then best=$t; fi
done
printf 'racepred stats %s: %d.%03d s\n' "$DATA" $((best / 1000000000)) $((best / 1000000 % 1000))

echo "== racepred analyze (end to end: read + validate + engine; best of 5 wall times)"
for engine in fasttrack djit hb-epochs hb-adaptive hb-pairs hb tsan1 lockset goldilocks goldilocks-rw; do
  best=0
  for _ in 1 2 3 4 5; do
    start=$(date +%s%N)
    "$RACEPRED" analyze -e "$engine" "$DATA" >/dev/null 2>&1 || [ $? -eq 1 ]
    t=$(($(date +%s%N) - start))
    if [ "$best" -eq 0 ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  printf '%-14s %d.%03d s\n' "$engine" $((best / 1000000000)) $((best / 1000000 % 1000))
done

echo "== engine time alone, all online HB/Goldilocks engines in one run (JSON \"seconds\", 3 runs)"
for _ in 1 2 3; do
  "$RACEPRED" analyze -e fasttrack,djit,goldilocks,goldilocks-rw --format json "$DATA" \
    >bench/data/analyze.json 2>/dev/null || [ $? -eq 1 ]
  python3 -c 'import json,sys
d = json.load(sys.stdin)
s = {r["engine"]: r["seconds"] for r in d["results"]}
ratio = s["goldilocks-rw"] / s["fasttrack"]
print("  ".join(f"{k} {v:.3f} s" for k, v in s.items()), f"| goldilocks-rw/fasttrack {ratio:.2f}x")' \
    <bench/data/analyze.json
done

echo "== engine benchmarks (events already in memory)"
for b in hb_engines_bench hb_pairs_bench goldilocks_bench lockset_bench tree_clock_bench; do
  if [ -x "$BUILD/bench/$b" ]; then
    "$BUILD/bench/$b" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
      --benchmark_counters_tabular=true 2>/dev/null | grep -E 'median|Benchmark' || true
  fi
done
