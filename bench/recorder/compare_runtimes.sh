#!/usr/bin/env bash
# Two builds of racepred's recording runtime side by side (docs/RECORDER.md "Overhead"): each
# program of bench/recorder is built plain and with each build's racepred-cc, and the three are
# run alternately RUNS times, recording into memory only (RACEPRED_NOWRITE=1); the table gives
# the smallest CPU time (user + system, all threads) of each, also as a multiple of the
# uninstrumented run's, and the load average. Alternating on the same binaries is what makes
# two runtimes comparable on a machine that other work shares.
#   bench/recorder/compare_runtimes.sh OLD_BUILD NEW_BUILD [RUNS]     (RUNS default 7)
# BENCHES="racy private" runs only those programs; ARGS="4 10000000" passes arguments to each.
set -euo pipefail
OLD=${1:?usage: compare_runtimes.sh OLD_BUILD NEW_BUILD [RUNS]}
NEW=${2:?usage: compare_runtimes.sh OLD_BUILD NEW_BUILD [RUNS]}
RUNS=${3:-7}
CC=${CC:-gcc}
BENCHES=${BENCHES:-increments mutex racy private atomics calls}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rp_compare.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

echo "load before: $(uptime)"
printf "%-10s %-14s %10s %17s %17s\n" bench args uninstrumented old new
for b in $BENCHES; do
  src="$HERE/${b}_bench.c"
  "$CC" -O2 -o "$WORK/$b.plain" "$src" -lpthread
  RACEPRED_CC=$CC "$OLD/bin/racepred-cc" -O2 -o "$WORK/$b.old" "$src" -lpthread
  RACEPRED_CC=$CC "$NEW/bin/racepred-cc" -O2 -o "$WORK/$b.new" "$src" -lpthread
  "$PY" - "$RUNS" "$WORK/$b" "${ARGS:-}" <<'EOF_PY'
import os, subprocess, sys
runs, base, args = int(sys.argv[1]), sys.argv[2], sys.argv[3].split()
env = dict(os.environ, RACEPRED_RECORD=base + ".mem", RACEPRED_NOWRITE="1")
cpu = {k: [] for k in ("plain", "old", "new")}
for _ in range(runs):
    for k in cpu:
        p = subprocess.Popen([f"{base}.{k}"] + args, stdout=subprocess.DEVNULL, env=env)
        _, _, ru = os.wait4(p.pid, 0)
        cpu[k].append(ru.ru_utime + ru.ru_stime)
plain = min(cpu["plain"])
cells = [f"{plain:.4f} s"] + [f"{min(cpu[k]):.3f} s {min(cpu[k]) / plain:4.1f}x" for k in ("old", "new")]
print(f"{os.path.basename(base):<10} {' '.join(args) or '-':<14} " + " ".join(f"{c:>17}" if i else f"{c:>10}" for i, c in enumerate(cells)))
EOF_PY
done
echo "load after: $(uptime)"
