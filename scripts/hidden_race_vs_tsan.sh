#!/usr/bin/env bash
# The race that the observed schedule hides (tests/recorder/hidden_race.c), checked by real
# ThreadSanitizer in N runs and predicted by racepred from one recorded run.
#   scripts/hidden_race_vs_tsan.sh [BUILD_DIR] [RUNS]     (defaults: build/release, 20)
set -euo pipefail
BUILD=${1:-build/release}
RUNS=${2:-20}
SRC=tests/recorder/hidden_race.c
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hidden_race.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CC=${CC:-gcc}

"$CC" -fsanitize=thread -g -O1 -o "$WORK/tsan" "$SRC" -lpthread
reported=0
for ((i = 1; i <= RUNS; i++)); do
  if ! "$WORK/tsan" >"$WORK/out" 2>&1 || grep -q "WARNING: ThreadSanitizer: data race" "$WORK/out"; then
    reported=$((reported + 1))
  fi
done
echo "ThreadSanitizer ($CC -fsanitize=thread): race reported in $reported of $RUNS runs"

RACEPRED_CC=$CC "$BUILD/bin/racepred-cc" -g -O1 -o "$WORK/rec" "$SRC" -lpthread
"$BUILD/racepred" record -q -o "$WORK/trace.rpt" -- "$WORK/rec"
echo "racepred, one recorded run:"
"$BUILD/racepred" analyze -e fasttrack,lockset "$WORK/trace.rpt" || true
