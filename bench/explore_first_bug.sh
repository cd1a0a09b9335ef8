#!/usr/bin/env bash
# Executions to the first bug of every buggy tests/explore program: the default portfolio
# against plain random scheduling, over several seeds (medians), built into a temporary
# directory (never into the repository):
#   bench/explore_first_bug.sh BUILD_DIR [SEEDS] [RANDOM_BUDGET]
# The bug is what the program's portfolio test line (`// explore: --executions N => ...`)
# expects (an assertion, a deadlock, a hang or a race on a named variable); the portfolio runs
# with that line's budget and `--seed S`, random with `--strategy random --seed S --executions
# RANDOM_BUDGET` (default 300). One Markdown row per program: the median and the range of the
# first execution that hit the bug ("-": not within the budget; a median over seeds where some
# missed counts them as above the budget: "> N").
set -euo pipefail
BUILD=${1:?usage: bench/explore_first_bug.sh BUILD_DIR [SEEDS] [RANDOM_BUDGET]}
BUILD=$(cd "$BUILD" && pwd)
SEEDS=${2:-5}
RANDOM_BUDGET=${3:-300}
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/racepred-explore-first-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
echo "| program | bug | portfolio median (range) | random median (range) |"
echo "|---|---|---:|---:|"
for src in "$SRC"/tests/explore/*.c; do
  line=$(grep -h '^// explore: --executions' "$src" | grep -v -- '--strategy' | head -1 || true)
  [ -n "$line" ] || continue
  name=$(basename "$src" .c)
  "$BUILD/bin/racepred-cc" -O1 -g -o "$WORK/$name" "$src" -lpthread
  cli=${line#// explore: }
  args=${cli%%=>*}
  want=${cli#*=> }
  for s in $(seq 1 "$SEEDS"); do
    # shellcheck disable=SC2086
    "$BUILD/racepred" explore --format json --seed "$s" --replay-dir "$WORK/r" $args \
      -- "$WORK/$name" >"$WORK/$name.portfolio.$s.json" || true
    # shellcheck disable=SC2086
    "$BUILD/racepred" explore --format json --strategy random --seed "$s" \
      --executions "$RANDOM_BUDGET" --replay-dir "$WORK/r" $(echo "$args" | sed 's/--executions [0-9]*//') \
      -- "$WORK/$name" >"$WORK/$name.random.$s.json" || true
  done
  python3 - "$name" "$want" "$SEEDS" "$WORK" "$RANDOM_BUDGET" <<'PY'
import json, statistics, sys
name, want, seeds, work, random_budget = sys.argv[1:]
wants = [w.strip() for w in want.split(",")]
def first(report):
    hits = []
    for f in report["findings"]:
        for w in wants:
            if w.startswith("race:") and f["kind"] == "data-race" and f.get("variable") == w[5:]:
                hits.append(f["first_execution"])
            elif f["kind"] == "failure" and f.get("failure") == w:
                hits.append(f["first_execution"])
    return min(hits) if hits else None
def column(kind, budget):
    got = []
    for s in range(1, int(seeds) + 1):
        r = json.load(open(f"{work}/{name}.{kind}.{s}.json"))
        got.append(first(r))
        budget = budget or r["executions"]
    found = sorted(x for x in got if x is not None)
    if not found:
        return f"- (none in {budget})"
    missed = len(got) - len(found)
    keyed = sorted(x if x is not None else float("inf") for x in got)
    med = statistics.median_low(keyed)
    text = f"> {budget}" if med == float("inf") else str(med)
    rng = f"{found[0]}–{found[-1]}" + (f", {missed} of {len(got)} missed" if missed else "")
    return f"{text} ({rng})"
print(f"| `{name}.c` | {', '.join(wants)} | {column('portfolio', 0)} | "
      f"{column('random', int(random_budget))} |")
PY
done
