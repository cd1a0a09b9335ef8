#!/usr/bin/env bash
# racepred's osr beside focs-lab/rapid's OSR, event by event (builds nothing in the repository,
# commits nothing):
#   bench/osr_focs.sh BUILD_DIR FOCS_DIR [DATA_DIR] TRACE…
# BUILD_DIR holds racepred and bench/osr_explain (`cmake --build BUILD --target racepred
# osr_explain`). FOCS_DIR is a checkout of github.com/focs-lab/rapid compiled into FOCS_DIR/bin
# (bench/m2_rapid.sh has the javac line). Each TRACE (STD) is first written without comments and
# with numbered locations (as bench/m2_rapid.sh does), so event ids agree (focs-lab's are 0-based:
# +1). Per trace, one Markdown row per tool: racy events (the later access of each race, as
# focs-lab counts), racy locations (of those events, as focs-lab counts), CPU seconds (user +
# system; the JVM's whole process), the wall seconds of the tool's own analysis (racepred's JSON
# `seconds`; focs-lab's "Time for analysis", from building its partial order to the end: both
# without the process's start-up) and max RSS. LIMIT seconds per run (default 300), Java heap
# HEAP (default 8g).
#
# With DIFF=1 (the default) and when focs-lab finished, copies of three of focs-lab's files are
# patched and compiled into DATA_DIR (nothing of them is kept elsewhere), each a small change:
#   pairs    OSREvent prints each race's pair (focs-lab prints only the later event);
#   threads  + POBuildReverse numbers threads as the STD parser does (an event's thread first,
#            then a fork's or join's target). Unchanged, it numbers threads by their first own
#            event while the OSR engine's parser numbers a thread when it is first named, so when
#            threads first run in another order than they were forked, the partial order of the
#            abstract graph is queried for the wrong pair of threads (missed cycles: pairs
#            reported that are not OSR races; spurious ones: OSR races missed);
#   reach    + PartialOrder.queryForEvent treats "not reached" (-1) as unreached: unchanged, a
#            thread reached only through a third thread is never recorded (`curVal < -1` is
#            false), so cycles through it are missed, and an unreached thread is expanded from
#            its first event.
# Then each event one tool names and the other does not is explained:
#   only focs-lab   focs-lab's pair, racepred's verdict on it (bench/osr_explain: ordered,
#                   two-open, cycle) and the first fix after which focs-lab no longer names it;
#   only racepred   the first fix after which focs-lab names it, or, when none does, whether
#                   racepred's closure holds a release later in the trace than the second access
#                   (focs-lab's one pass over the trace treats a section whose release it has not
#                   read yet as open: OSREvent.calcOSR, `curRelEvent == null`).
# Every osr race's witness is checked by `racepred check-witness`.
set -euo pipefail

BUILD=${1:?usage: bench/osr_focs.sh BUILD_DIR FOCS_DIR [DATA_DIR] TRACE...}
FOCS=${2:?FOCS_DIR}
DATA=${3:-/tmp/racepred-osr-focs}
shift 3 || shift $#
LIMIT=${LIMIT:-300}
HEAP=${HEAP:-8g}
DIFF=${DIFF:-1}
BUILD=$(cd "$BUILD" && pwd)
FOCS=$(cd "$FOCS" && pwd)
RACEPRED="$BUILD/racepred"
EXPLAIN="$BUILD/bench/osr_explain"
HERE=$(cd "$(dirname "$0")" && pwd)
JARS=/usr/share/java/jgrapht-core.jar:/usr/share/java/fastutil.jar:/usr/share/java/jheaps.jar
CP="$FOCS/bin:$(ls "$FOCS"/lib/*.jar | tr '\n' ':')$JARS"
mkdir -p "$DATA"

# The patched copies (pairs, threads, reach), compiled once.
if [ "$DIFF" = 1 ] && [ ! -e "$DATA/focs-reach/.done" ]; then
  src="$FOCS/src/engine/racedetectionengine/OSR"
  rm -rf "$DATA/focs-src" "$DATA/focs-pairs" "$DATA/focs-threads" "$DATA/focs-reach"
  mkdir -p "$DATA/focs-src/threads" "$DATA/focs-src/reach"
  cp "$src/OSREvent.java" "$src/POBuild/POBuildReverse.java" "$src/POBuild/PartialOrder.java" \
    "$DATA/focs-src/"
  /usr/bin/python3 "$HERE/osr_focs_patch.py" "$DATA/focs-src"
  javac -nowarn -cp "$CP" -d "$DATA/focs-pairs" "$DATA/focs-src/OSREvent.java" 2>/dev/null
  javac -nowarn -cp "$CP" -d "$DATA/focs-threads" "$DATA/focs-src/OSREvent.java" \
    "$DATA/focs-src/threads/POBuildReverse.java" 2>/dev/null
  javac -nowarn -cp "$CP" -d "$DATA/focs-reach" "$DATA/focs-src/OSREvent.java" \
    "$DATA/focs-src/threads/POBuildReverse.java" "$DATA/focs-src/reach/PartialOrder.java" \
    2>/dev/null
  touch "$DATA/focs-reach/.done"
fi

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| trace | events | tool | racy events | racy locations | CPU (s) | own analysis, wall (s) | max RSS (MB) |"
echo "|---|---:|---|---:|---:|---:|---:|---:|"

# row NAME N TOOL EVENTS LOCATIONS ANALYSIS: one row, CPU and RSS from $DATA/time.txt.
row() {
  read -r u s m < <(tail -1 "$DATA/time.txt")
  awk -v n="$1" -v k="$2" -v t="$3" -v e="$4" -v l="$5" -v a="$6" -v u="$u" -v s="$s" -v m="$m" \
    'BEGIN { printf "| %s | %s | %s | %s | %s | %.2f | %.3f | %.0f |\n", n, k, t, e, l, u + s, a, m / 1024 }'
}
# focs_run CLASSPATH OUT: focs-lab's OSR on $f; its exit status (124: stopped at LIMIT).
focs_run() {
  local status=0
  /usr/bin/time -o "$DATA/time.txt" -f "%U %S %M" timeout "$LIMIT" \
    java -Xmx"$HEAP" -cp "$1" OSR -f std -p "$f" >"$2" 2>&1 || status=$?
  return $status
}
# focs_row OUT LABEL STATUS: the row of a focs-lab run.
focs_row() {
  if [ "$3" -eq 124 ]; then
    # Stopped at LIMIT seconds of wall time: the CPU it had used by then.
    read -r u s m < <(tail -1 "$DATA/time.txt")
    awk -v n="$name" -v k="$n" -v t="$2" -v l="$LIMIT" -v u="$u" -v s="$s" -v m="$m" \
      'BEGIN { printf "| %s | %s | %s | — | — | > %.2f (stopped at %s s wall) | — | > %.0f |\n", n, k, t, u + s, l, m / 1024 }'
  elif [ "$3" -ne 0 ]; then
    why=$(grep -o '[A-Za-z.]*\(Exception\|Error\)' "$1" | head -1 || true)
    echo "| $name | $n | $2 | fails (${why:-exit $3}) | — | — | — | — |"
  else
    row "$name" "$n" "$2" "$(sed -n 's/^Number of racy events: //p' "$1")" \
      "$(sed -n 's/^Number of racy locations: //p' "$1")" \
      "$(sed -n 's/^Time for analysis in seconds = //p' "$1")"
  fi
}
# events_of OUT: focs-lab's racy events, 1-based, one per line, sorted as text (for comm).
events_of() {
  sed -n 's/^Racy events: \[\(.*\)\]/\1/p' "$1" | tr ',' '\n' | awk 'NF { print $1 + 1 }' | sort
}

NOTES=()
for trace in "$@"; do
  name=$(basename "$trace" .std)
  f="$DATA/$name.focs.std"
  awk -F'|' 'BEGIN { OFS = "|" } /^[[:space:]]*(#|$)/ { next }
    { if (!($3 in loc)) loc[$3] = ++n; $3 = loc[$3]; print }' "$trace" >"$f"
  n=$(wc -l <"$f")
  status=0
  /usr/bin/time -o "$DATA/time.txt" -f "%U %S %M" timeout "$LIMIT" \
    "$RACEPRED" analyze -q -e osr --format json --max-races 100000000 -o "$DATA/$name.osr.json" "$f" \
    >/dev/null 2>&1 || status=$?
  if [ "$status" -eq 124 ]; then
    echo "| $name | $n | racepred osr | — | — | > $LIMIT (stopped) | — | — |"
    continue
  elif [ "$status" -eq 2 ]; then
    echo "| $name | $n | racepred osr | not well-formed: refused (exit 2) | — | — | — | — |"
    continue
  fi
  /usr/bin/python3 - "$DATA/$name.osr.json" "$DATA/$name.osr.lex" <<'EOF' >"$DATA/counts.txt"
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
open(sys.argv[2], "w").write("".join(f"{x}\n" for x in sorted(str(e) for e in r["racy_events"])))
print(r["racy_event_count"], r["racy_location_count"], r["seconds"])
EOF
  read -r ev lo secs <"$DATA/counts.txt"
  row "$name" "$n" "racepred osr" "$ev" "$lo" "$secs"
  status=0
  focs_run "$CP" "$DATA/$name.focs.out" || status=$?
  focs_row "$DATA/$name.focs.out" "focs-lab OSR" "$status"
  focs_status=$status
  [ "$DIFF" = 1 ] && [ "$focs_status" -ne 124 ] || continue

  # The patched copies: a row each (but pairs, which is focs-lab unchanged), their racy events.
  for v in pairs threads reach; do
    status=0
    focs_run "$DATA/focs-$v:$CP" "$DATA/$name.$v.out" || status=$?
    case $v in
      threads) focs_row "$DATA/$name.$v.out" "focs-lab OSR, threads fix" "$status" ;;
      reach) focs_row "$DATA/$name.$v.out" "focs-lab OSR, threads and reach fixes" "$status" ;;
    esac
    events_of "$DATA/$name.$v.out" >"$DATA/$name.$v.events"
  done
  if [ "$focs_status" -ne 0 ]; then
    # focs-lab unchanged failed: no events to compare with, only the fixed copies'.
    NOTES+=("$name: focs-lab failed; after both fixes $(comm -3 "$DATA/$name.osr.lex" "$DATA/$name.reach.events" | wc -l) racy events differ from osr's")
    continue
  fi
  comm -13 "$DATA/$name.osr.lex" "$DATA/$name.pairs.events" >"$DATA/$name.only-focs"
  comm -23 "$DATA/$name.osr.lex" "$DATA/$name.pairs.events" >"$DATA/$name.only-osr"
  # Only focs-lab's: its pair, racepred's verdict on it.
  awk 'NR == FNR { want[$1] = 1; next } $1 == "PAIR" && want[$3 + 1] { print $2 + 1, $3 + 1 }' \
    "$DATA/$name.only-focs" "$DATA/$name.pairs.out" | sort -k2,2n -u |
    "$EXPLAIN" "$f" >"$DATA/$name.only-focs.explained"
  # Only racepred's: its pairs (the earliest per second access), racepred's explanation.
  /usr/bin/python3 - "$DATA/$name.osr.json" "$DATA/$name.only-osr" <<'EOF' |
import json, sys
want = set(open(sys.argv[2]).read().split())
seen = set()
for x in json.load(open(sys.argv[1]))["results"][0]["findings"]:
    if x["kind"] == "data-race" and str(x["second"]) in want and x["second"] not in seen:
        seen.add(x["second"])
        print(x["first"], x["second"])
EOF
    "$EXPLAIN" "$f" >"$DATA/$name.only-osr.explained"
  explained=$(/usr/bin/python3 - "$DATA/$name" <<'EOF'
import sys
base = sys.argv[1]
ev = lambda v: set(open(f"{base}.{v}.events").read().split())
threads, reach = ev("threads"), ev("reach")
out = {}
def add(key, e):
    out.setdefault(key, []).append(e)
for line in open(f"{base}.only-focs.explained"):
    f = line.split()
    fix = "the threads fix" if f[1] not in threads else "the reach fix" if f[1] not in reach else "no fix"
    add(f"only focs-lab (racepred: {f[2]}), dropped after {fix}", f[1])
for line in open(f"{base}.only-osr.explained"):
    f = line.split()
    e = f[1]
    if e in threads:
        add("only racepred, named after the threads fix", e)
    elif e in reach:
        add("only racepred, named after the reach fix", e)
    else:
        late = [x for x in f if x.startswith("late=")][0] != "late=-"
        add("only racepred, named by no copy, a release in S after the second access" if late
            else "only racepred, named by no copy, UNEXPLAINED", e)
for k, v in out.items():
    print(f"{k}: {len(v)} ({' '.join(sorted(v, key=int)[:6])}{' …' if len(v) > 6 else ''})")
EOF
)
  note="$name: only focs-lab $(wc -l <"$DATA/$name.only-focs"), only racepred $(wc -l <"$DATA/$name.only-osr"); after both fixes $(comm -3 "$DATA/$name.osr.lex" "$DATA/$name.reach.events" | wc -l) differ"
  [ -z "$explained" ] || note="$note; $(echo "$explained" | paste -sd ';' | sed 's/;/; /g')"
  # Every osr race's witness, checked by the independent checker.
  status=0
  "$RACEPRED" analyze -q -e osr --witness "$DATA/$name.w.json" --max-races 100000000 "$f" \
    >/dev/null 2>&1 || status=$?
  if [ "$status" -le 1 ] && "$RACEPRED" check-witness "$f" "$DATA/$name.w.json" \
    >"$DATA/$name.check.txt" 2>&1; then
    note="$note; every osr witness valid"
  else
    note="$note; osr witnesses NOT all valid ($(tail -1 "$DATA/$name.check.txt" 2>/dev/null))"
  fi
  NOTES+=("$note")
done
echo
for line in "${NOTES[@]}"; do echo "- $line"; done
