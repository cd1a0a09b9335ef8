#!/usr/bin/env bash
# Engines beside a reference engine on cuts of the shape presets (builds nothing):
#   ENGINES="wcp fasttrack sdp" REF=wcp bench/engine_presets.sh BUILD_DIR [DATA_DIR] [PRESET…]
# Generates `racepred generate --preset P --events EVENTS --seed 1` (baseline: --threads 8) into
# DATA_DIR (default /tmp/racepred-presets; never commit them), runs each of ENGINES (the reference
# REF first) on each with /usr/bin/time and prints one Markdown row per (trace, engine): wall and
# CPU (user + system) seconds, max RSS, and CPU and RSS relative to REF. On a shared machine
# compare CPU. Per-engine limit: LIMIT seconds (default 600) and MEM_MB of virtual memory
# (default 8192). EVENTS (default 1000000) sets the cut, DEFAULT_PRESETS the presets when none is
# named. bench/sdp_presets.sh and bench/osr_presets.sh call it with their engines.
: "${ENGINES:?ENGINES: the engines to run, the reference first}" "${REF:?REF: the reference engine}"
DEFAULT_PRESETS=${DEFAULT_PRESETS:-baseline xalan tradebeans cassandra sor threads20k goroutines}
set -euo pipefail

BUILD=${1:?usage: bench/engine_presets.sh BUILD_DIR [DATA_DIR] [PRESET...]}
BUILD=$(cd "$BUILD" && pwd)
DATA=${2:-/tmp/racepred-presets}
shift $(($# >= 2 ? 2 : 1))
PRESETS=("$@")
[ ${#PRESETS[@]} -gt 0 ] || read -r -a PRESETS <<<"$DEFAULT_PRESETS"
RACEPRED="$BUILD/racepred"
EVENTS=${EVENTS:-1000000}
read -r -a ENGINE_LIST <<<"$ENGINES"
LIMIT=${LIMIT:-600}
MEM_MB=${MEM_MB:-8192}
mkdir -p "$DATA"

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| trace | engine | wall (s) | CPU (s) | max RSS (MB) | CPU / $REF | RSS / $REF |"
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
  for e in "${ENGINE_LIST[@]}"; do
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
    awk -v p="$p" -v e="$e" -v t="$t" -v c="${C[$e]}" -v m="$m" -v wc="${C[$REF]:-0}" \
      -v wm="${M[$REF]:-0}" 'BEGIN { printf "| %s | %s | %.2f | %.2f | %.0f | %.1f× | %.1f× |\n",
        p, e, t, c, m / 1024, (wc > 0 ? c / wc : 0), (wm > 0 ? m / wm : 0) }'
  done
  unset C M T
done
