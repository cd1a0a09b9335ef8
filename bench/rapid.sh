#!/usr/bin/env bash
# RAPID's engines on the traces of bench/scale.sh, for comparison (builds nothing, commits
# nothing): bench/rapid.sh RAPID_DIR [DATA_DIR] [TRACE…]
# RAPID_DIR is a checkout of github.com/umangm/rapid compiled into RAPID_DIR/bin, e.g.
#   javac -cp "$(ls lib/*.jar lib/jgrapht/*.jar | tr '\n' :)" -d bin $(find src -name '*.java')
# (its build.xml needs ant; plain javac works with the jars it ships). One Markdown row per
# (trace, RAPID engine): wall time and max RSS of the whole JVM. Limits: LIMIT seconds (default
# 600) and a Java heap of HEAP (default 8g).
set -euo pipefail

RAPID=${1:?usage: bench/rapid.sh RAPID_DIR [DATA_DIR] [TRACE...]}
DATA=${2:-/tmp/racepred-scale}
shift $(($# >= 2 ? 2 : 1))
TRACES=("$@")
[ ${#TRACES[@]} -gt 0 ] || TRACES=(baseline tradebeans xalan cassandra goroutines threads20k)
LIMIT=${LIMIT:-600}
HEAP=${HEAP:-8g}
CP="$RAPID/bin:$(ls "$RAPID"/lib/*.jar "$RAPID"/lib/jgrapht/*.jar | tr '\n' ':')"

echo "| trace | RAPID engine | time (s) | max RSS (MB) |"
echo "|---|---|---:|---:|"
for p in "${TRACES[@]}"; do
  f="$DATA/$p.std"
  [ -s "$f" ] || { echo "| $p | (no $f: run bench/scale.sh first) | — | — |"; continue; }
  for c in HBEpoch HB LockSet Goldilocks; do
    status=0
    /usr/bin/time -o "$DATA/rapid-time.txt" -f "%e %M" timeout "$LIMIT" \
      java -Xmx"$HEAP" -cp "$CP" "$c" -f std -p "$f" >"$DATA/rapid-out.txt" 2>&1 || status=$?
    read -r t m < <(tail -1 "$DATA/rapid-time.txt")
    if [ "$status" -eq 124 ]; then
      echo "| $p | $c | > $LIMIT | — |"
    elif [ "$status" -ne 0 ] || grep -q "OutOfMemoryError" "$DATA/rapid-out.txt"; then
      echo "| $p | $c | failed ($(grep -o 'OutOfMemoryError[^ ]*' "$DATA/rapid-out.txt" | head -1 || echo "exit $status")) | — |"
    else
      awk -v p="$p" -v c="$c" -v t="$t" -v m="$m" 'BEGIN { printf "| %s | %s | %.2f | %.0f |\n", p, c, t, m / 1024 }'
    fi
  done
done
