#!/usr/bin/env bash
# racepred's syncp, osr and m2 beside RAPID's SyncPreserving and focs-lab/rapid's OSR on the same
# traces (builds nothing, commits nothing):
#   bench/m2_rapid.sh BUILD_DIR RAPID_DIR OSR_RAPID_DIR [DATA_DIR] TRACE…
# RAPID_DIR is a checkout of github.com/umangm/rapid, OSR_RAPID_DIR one of github.com/focs-lab/rapid,
# each compiled into DIR/bin with javac against the jars it ships (its jgrapht jars are Git LFS
# files: Debian's libjgrapht-java, libfastutil-java and libjheaps-java stand in), e.g.
#   javac -nowarn -cp "$(ls lib/*.jar | tr '\n' :)/usr/share/java/jgrapht-core.jar:/usr/share/java/fastutil.jar:/usr/share/java/jheaps.jar" \
#     -d bin $(find src -name '*.java')
# Each TRACE (an STD file; `# expect` comments allowed) is first written without comments and
# blank lines and with every location renamed to a number (RAPID re-emits the previous event for
# a comment and aborts on a location that is not a Java int), so event ids agree. One Markdown
# row per (trace, tool): racy events (the later event of each race, as both tools count them),
# racy locations (of those events), CPU seconds (user + system; the JVM's whole process for
# RAPID) and max RSS. Limits: LIMIT seconds per run (default 600), Java heap HEAP (default 8g).
# DIFF=1 also lists the racy events one side names and the other does not (first 20).
set -euo pipefail

BUILD=${1:?usage: bench/m2_rapid.sh BUILD_DIR RAPID_DIR OSR_RAPID_DIR [DATA_DIR] TRACE...}
RAPID=${2:?RAPID_DIR}
OSRR=${3:?OSR_RAPID_DIR}
DATA=${4:-/tmp/racepred-m2-rapid}
shift 4 || shift $#
LIMIT=${LIMIT:-600}
HEAP=${HEAP:-8g}
RACEPRED="$(cd "$BUILD" && pwd)/racepred"
JARS=/usr/share/java/jgrapht-core.jar:/usr/share/java/fastutil.jar:/usr/share/java/jheaps.jar
cp_of() { echo "$1/bin:$(ls "$1"/lib/*.jar | tr '\n' ':')$JARS"; }
mkdir -p "$DATA"

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| trace | tool | racy events | racy locations | CPU (s) | max RSS (MB) |"
echo "|---|---|---:|---:|---:|---:|"

# time_row NAME TOOL EVENTS LOCATIONS: the row, CPU and RSS from $DATA/time.txt.
time_row() {
  read -r u s m < <(tail -1 "$DATA/time.txt")
  awk -v n="$1" -v t="$2" -v e="$3" -v l="$4" -v u="$u" -v s="$s" -v m="$m" \
    'BEGIN { printf "| %s | %s | %s | %s | %.2f | %.0f |\n", n, t, e, l, u + s, m / 1024 }'
}

for trace in "$@"; do
  name=$(basename "$trace" .std)
  f="$DATA/$name.rapid.std"
  awk -F'|' 'BEGIN { OFS = "|" } /^[[:space:]]*(#|$)/ { next }
    { if (!($3 in loc)) loc[$3] = ++n; $3 = loc[$3]; print }' "$trace" >"$f"
  # racepred: the JSON's racy events and locations.
  for e in syncp osr m2; do
    status=0
    /usr/bin/time -o "$DATA/time.txt" -f "%U %S %M" timeout "$LIMIT" \
      "$RACEPRED" analyze -q -e "$e" --format json --max-races 100000000 -o "$DATA/$name.$e.json" "$f" \
      >/dev/null 2>&1 || status=$?
    if [ "$status" -eq 124 ]; then
      echo "| $name | racepred $e | — | — | > $LIMIT | — |"
      continue
    fi
    python3 - "$DATA/$name.$e.json" "$DATA/$name.$e.events" <<'EOF' >"$DATA/counts.txt"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"][0] if "results" in d else d
events = r.get("racy_events", [])
open(sys.argv[2], "w").write("".join(f"{x}\n" for x in sorted(events)))
print(r["racy_event_count"], r["racy_location_count"])
EOF
    read -r ev lo <"$DATA/counts.txt"
    time_row "$name" "racepred $e" "$ev" "$lo"
  done
  # RAPID's SyncPreserving, focs-lab/rapid's OSR (its racy events are 0-based: +1).
  for tool in "$RAPID SyncPreserving" "$OSRR OSR"; do
    read -r dir cls <<<"$tool"
    status=0
    /usr/bin/time -o "$DATA/time.txt" -f "%U %S %M" timeout "$LIMIT" \
      java -Xmx"$HEAP" -cp "$(cp_of "$dir")" "$cls" -f std -p "$f" >"$DATA/$name.$cls.out" 2>&1 ||
      status=$?
    label="RAPID $cls"
    [ "$cls" = OSR ] && label="focs-lab/rapid OSR"
    if [ "$status" -eq 124 ]; then
      echo "| $name | $label | — | — | > $LIMIT (stopped) | — |"
      continue
    elif [ "$status" -ne 0 ]; then
      echo "| $name | $label | failed ($(grep -o '[A-Za-z.]*Error[^ ]*' "$DATA/$name.$cls.out" | head -1 || echo "exit $status")) | — | — | — |"
      continue
    fi
    if [ "$cls" = OSR ]; then
      ev=$(sed -n 's/^Number of racy events: //p' "$DATA/$name.$cls.out")
      lo=$(sed -n 's/^Number of racy locations: //p' "$DATA/$name.$cls.out")
      sed -n 's/^Racy events: \[\(.*\)\]/\1/p' "$DATA/$name.$cls.out" | tr ',' '\n' |
        awk 'NF { print $1 + 1 }' | sort -n >"$DATA/$name.$cls.events"
    else
      ev=$(sed -n "s/^Number of 'racy' events found = //p" "$DATA/$name.$cls.out")
      lo=$(sed -n "s/^Number of 'racy' lines found = //p" "$DATA/$name.$cls.out")
    fi
    time_row "$name" "$label" "$ev" "$lo"
  done
  if [ "${DIFF:-0}" = 1 ] && [ -e "$DATA/$name.OSR.events" ] && [ -e "$DATA/$name.osr.events" ]; then
    echo "  $name: only racepred osr: $(comm -23 <(sort "$DATA/$name.osr.events") <(sort "$DATA/$name.OSR.events") | sort -n | head -20 | tr '\n' ' ')"
    echo "  $name: only focs-lab OSR: $(comm -13 <(sort "$DATA/$name.osr.events") <(sort "$DATA/$name.OSR.events") | sort -n | head -20 | tr '\n' ' ')"
  fi
done
