#!/usr/bin/env bash
# osr beside fasttrack and syncp on cuts of the shape presets (builds nothing):
#   bench/osr_presets.sh BUILD_DIR [DATA_DIR] [PRESET…]
# Generates `racepred generate --preset P --events 300000 --seed 1` (baseline: --threads 8) into
# DATA_DIR (default /tmp/racepred-osr; a few MB each, never commit them), runs fasttrack, syncp
# and osr on each with /usr/bin/time and prints one Markdown row per (trace, engine): wall and CPU
# (user + system) seconds, max RSS, and CPU and RSS relative to fasttrack. On a shared machine
# compare CPU. Per-engine limit: LIMIT seconds (default 600) and MEM_MB of virtual memory (default
# 8192). EVENTS overrides the cut. docs/PERFORMANCE.md ("osr") has the results.
set -euo pipefail

BUILD=${1:?usage: bench/osr_presets.sh BUILD_DIR [DATA_DIR] [PRESET...]}
BUILD=$(cd "$BUILD" && pwd)
DATA=${2:-/tmp/racepred-osr}
shift $(($# >= 2 ? 2 : 1))
PRESETS=("$@")
[ ${#PRESETS[@]} -gt 0 ] || PRESETS=(baseline xalan tradebeans cassandra)
RACEPRED="$BUILD/racepred"
EVENTS=${EVENTS:-300000}
LIMIT=${LIMIT:-600}
MEM_MB=${MEM_MB:-8192}
mkdir -p "$DATA"

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| trace | engine | wall (s) | CPU (s) | max RSS (MB) | CPU / fasttrack | RSS / fasttrack |"
echo "|---|---|---:|---:|---:|---:|---:|"
for p in "${PRESETS[@]}"; do
  f="$DATA/$p-$EVENTS.std"
  if [ ! -s "$f" ]; then
    if [ "$p" = baseline ]; then
      "$RACEPRED" generate --threads 8 --events "$EVENTS" --seed 1 -o "$f.tmp"
    else
      "$RACEPRED" generate --preset "$p" --events "$EVENTS" --seed 1 -o "$f.tmp"
    fi
    mv "$f.tmp" "$f"
  fi
  declare -A C=() M=() T=()
  for e in fasttrack syncp osr; do
    status=0
    (ulimit -v $((MEM_MB * 1024)) && /usr/bin/time -o "$DATA/time.txt" -f "%e %U %S %M" \
      timeout "$LIMIT" "$RACEPRED" analyze -e "$e" --max-races 10 "$f" >/dev/null 2>&1) || status=$?
    read -r t u sy m < <(tail -1 "$DATA/time.txt")
    if grep -q "status 124" "$DATA/time.txt"; then
      echo "| $p | $e | > $LIMIT | — | — | — | — |"
      continue
    fi
    if [ "$status" -eq 2 ] || [ -z "${m:-}" ] || ! [[ "$m" =~ ^[0-9]+$ ]]; then
      echo "| $p | $e | failed (exit $status, > ${MEM_MB} MB?) | — | — | — | — |"
      continue
    fi
    T[$e]=$t
    C[$e]=$(awk -v u="$u" -v s="$sy" 'BEGIN { print u + s }')
    M[$e]=$m
    awk -v p="$p" -v e="$e" -v t="$t" -v c="${C[$e]}" -v m="$m" -v wc="${C[fasttrack]:-0}" \
      -v wm="${M[fasttrack]:-0}" 'BEGIN { printf "| %s | %s | %.2f | %.2f | %.0f | %.1f× | %.1f× |\n",
        p, e, t, c, m / 1024, (wc > 0 ? c / wc : 0), (wm > 0 ? m / wm : 0) }'
  done
  unset C M T
done
