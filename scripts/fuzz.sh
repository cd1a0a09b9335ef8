#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/*_fuzz.cpp) with clang, ASan and UBSan, and runs each
# for a share of a total time budget, starting from a seed corpus made of examples/.
#
#   scripts/fuzz.sh                 # CI: 180 s in total, shared by all targets
#   scripts/fuzz.sh --budget 3600   # a longer run (an hour in total)
#   scripts/fuzz.sh --target std_reader_fuzz --budget 600 -- -jobs=2 -workers=2
#
# A finding leaves a crash-* / timeout-* / leak-* file in build/fuzz/findings/ and makes the
# script fail; rerun one input with build/fuzz/<target> FILE. docs/FUZZING.md has the details.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${FUZZ_BUILD:-build/fuzz}
BUDGET=180
ONLY=""
EXTRA=()
while (($#)); do
  case "$1" in
    --budget) BUDGET="$2"; shift 2 ;;
    --target) ONLY="$2"; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DRACEPRED_FUZZ=ON -DRACEPRED_TESTS=OFF -DRACEPRED_BENCH=OFF \
  -DRACEPRED_WERROR=OFF >/dev/null  # clang warns about more than gcc; -Werror is gcc's job

targets=()
for source in tests/fuzz/*_fuzz.cpp; do
  name=$(basename "$source" .cpp)
  if [[ -z "$ONLY" || "$ONLY" == "$name" ]]; then targets+=("$name"); fi
done
((${#targets[@]})) || { echo "fuzz.sh: no target ${ONLY}" >&2; exit 2; }
cmake --build "$BUILD" -j"$(nproc)" --target "${targets[@]}"

# Seed corpus: every example trace, each also converted to every other format (with the
# Release binary of `make test` when it is there, else one built here) and compressed, plus a
# SpeedyGo CSV seed with signal/wait.
racepred=${RACEPRED:-build/release/racepred}
if [[ ! -x "$racepred" ]]; then
  cmake --build "$BUILD" -j"$(nproc)" --target racepred
  racepred="$BUILD/racepred"
fi
seeds="$BUILD/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"
find examples -type f -name '*.std' -size -64k -print0 | while IFS= read -r -d '' f; do
  base="$seeds/$(echo "${f#examples/}" | tr / _)"
  cp "$f" "$base"
  for to in binary rapidbin rr speedygo lockframe csv; do
    "$racepred" convert --allow-loss --to "$to" -o "$base.$to" "$f" >/dev/null 2>&1 || rm -f "$base.$to"
  done
done
for f in "$seeds"/lockset_*.std; do gzip -c "$f" >"$f.gz"; done
if command -v zstd >/dev/null; then for f in "$seeds"/lockset_*.std; do zstd -q -c "$f" >"$f.zst"; done; fi
if command -v xz >/dev/null; then for f in "$seeds"/lockset_*.std; do xz -c "$f" >"$f.xz"; done; fi
# Hostile inputs that once were handled badly (tests/fuzz/seeds/README.md says what each is).
find tests/fuzz/seeds -type f ! -name README.md -exec cp {} "$seeds/" \;
printf '1,RD,1,main.go:3,0\n2,WR,1,main.go:4,0\n1,SIG,7,main.go:5,0\n2,WT,7,main.go:6,0\n' \
  >"$seeds/speedygo_seed.csv"
echo "fuzz.sh: $(find "$seeds" -type f | wc -l) seeds in $seeds"

per_target=$((BUDGET / ${#targets[@]}))
((per_target >= 5)) || per_target=5
mkdir -p "$BUILD/findings"
status=0
for t in "${targets[@]}"; do
  corpus="$BUILD/corpus/$t"
  mkdir -p "$corpus"
  echo "fuzz.sh: $t for ${per_target} s"
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
      "$BUILD/$t" "$corpus" "$seeds" -max_total_time="$per_target" -max_len=4096 -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$BUILD/findings/$t-" \
      "${EXTRA[@]}" >"$BUILD/$t.log" 2>&1; then
    echo "fuzz.sh: $t FOUND A PROBLEM (log: $BUILD/$t.log):" >&2
    tail -40 "$BUILD/$t.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$BUILD/$t.log" | sed "s/^/  /"
  fi
done
exit $status
