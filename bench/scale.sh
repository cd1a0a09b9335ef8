#!/usr/bin/env bash
# Scale benchmark (builds nothing): bench/scale.sh BUILD_DIR [DATA_DIR] [PRESET…]
# Generates the shape presets of `racepred generate --preset` and the 5M baseline (8 threads,
# seed 1) into DATA_DIR (default /tmp/racepred-scale; traces of hundreds of MB, never commit
# them), then runs every online engine on each with /usr/bin/time and prints one Markdown row
# per (trace, engine): wall time, max RSS, and both relative to fasttrack on the same trace.
# The sor preset (600M events, about 9 GB) runs only when named. Per-engine limit: LIMIT
# seconds (default 600) and MEM_MB of virtual memory (default 8192: the machine is shared; an
# engine past it fails and is listed as such). ONLY="e1 e2 …" restricts the engines (fasttrack
# always runs, for the ratios). Time is wall and CPU (user + system) seconds: on a shared machine
# compare CPU. docs/PERFORMANCE.md has the results.
set -euo pipefail

BUILD=${1:?usage: bench/scale.sh BUILD_DIR [DATA_DIR] [PRESET...]}
BUILD=$(cd "$BUILD" && pwd)
DATA=${2:-/tmp/racepred-scale}
shift $(($# >= 2 ? 2 : 1))
PRESETS=("$@")
[ ${#PRESETS[@]} -gt 0 ] || PRESETS=(baseline tradebeans xalan cassandra goroutines threads20k)
RACEPRED="$BUILD/racepred"
LIMIT=${LIMIT:-600}
MEM_MB=${MEM_MB:-8192}
mkdir -p "$DATA"

ENGINES=$("$RACEPRED" engines | awk '$2 == "online" { print $1 }')
if [ -n "${ONLY:-}" ]; then ENGINES=$ONLY; fi

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| trace | engine | wall (s) | CPU (s) | max RSS (MB) | CPU / fasttrack | RSS / fasttrack |"
echo "|---|---|---:|---:|---:|---:|---:|"
for p in "${PRESETS[@]}"; do
  f="$DATA/$p.std"
  if [ ! -s "$f" ]; then
    if [ "$p" = baseline ]; then
      "$RACEPRED" generate --threads 8 --events 5000000 --seed 1 -o "$f.tmp"
    else
      "$RACEPRED" generate --preset "$p" --seed 1 -o "$f.tmp"
    fi
    mv "$f.tmp" "$f"
  fi
  declare -A T=() C=() M=()
  for e in fasttrack $ENGINES; do
    [ -n "${T[$e]:-}" ] && continue
    status=0
    (ulimit -v $((MEM_MB * 1024)) && /usr/bin/time -o "$DATA/time.txt" -f "%e %U %S %M" \
      timeout "$LIMIT" "$RACEPRED" analyze -e "$e" --max-races 10 "$f" >/dev/null 2>&1) || status=$?
    if [ "$status" -eq 2 ]; then  # bad_alloc past MEM_MB (or another error)
      T[$e]="failed (exit 2, > ${MEM_MB} MB?)"
      M[$e]=0
      continue
    fi
    read -r t u sy m < <(tail -1 "$DATA/time.txt")
    # timeout kills with status 124: /usr/bin/time then writes "Command exited…" first.
    if [ -z "${m:-}" ] || ! [[ "$m" =~ ^[0-9]+$ ]] || grep -q "status 124" "$DATA/time.txt"; then
      t="timeout ${LIMIT}s"
      m=0
    fi
    T[$e]=$t
    C[$e]=$(awk -v u="${u:-0}" -v s="${sy:-0}" 'BEGIN { print u + s }')
    M[$e]=$m
  done
  for e in $ENGINES; do
    if [[ "${T[$e]}" == timeout* ]]; then
      echo "| $p | $e | > $LIMIT | — | — | — | — |"
      continue
    fi
    if [[ "${T[$e]}" == failed* ]]; then
      echo "| $p | $e | ${T[$e]} | — | — | — | — |"
      continue
    fi
    awk -v p="$p" -v e="$e" -v t="${T[$e]}" -v c="${C[$e]}" -v m="${M[$e]}" -v fc="${C[fasttrack]}" \
      -v fm="${M[fasttrack]}" 'BEGIN { printf "| %s | %s | %.2f | %.2f | %.0f | %.1f× | %.1f× |\n", p, e, t, c,
        m / 1024, (fc > 0 ? c / fc : 0), (fm > 0 ? m / fm : 0) }'
  done
  unset T C M
done
