#!/usr/bin/env bash
# Whether two racepred binaries report the same osr races, and their CPU time, on each trace:
#   bench/osr_same.sh OLD_RACEPRED NEW_RACEPRED TRACE...
# Runs `analyze -q --format json -e osr --max-races MAX` (default 1000; the counts are exact
# either way) with each binary, old and new alternating, and compares the reports without their
# timings and paths. Prints one Markdown row per trace: CPU (user + system) and max RSS of
# both, and "same" or "DIFFERENT" (then exit 1). ENGINE=m2 (or any engine) compares another.
set -euo pipefail
OLD=${1:?usage: bench/osr_same.sh OLD_RACEPRED NEW_RACEPRED TRACE...}
NEW=${2:?usage: bench/osr_same.sh OLD_RACEPRED NEW_RACEPRED TRACE...}
shift 2
ENGINE=${ENGINE:-osr}
MAX=${MAX:-1000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
strip() {
  /usr/bin/python3 -c '
import json, sys
def s(o):
    if isinstance(o, dict):
        return {k: s(v) for k, v in o.items() if k not in ("seconds", "path")}
    if isinstance(o, list):
        return [s(v) for v in o]
    return o
print(json.dumps(s(json.load(open(sys.argv[1]))), sort_keys=True))' "$1"
}
run() {  # binary, trace, tag -> "cpu rss"
  /usr/bin/time -o "$TMP/$3.time" -f "%U %S %M" "$1" analyze -q --format json -e "$ENGINE" \
    --max-races "$MAX" "$2" >"$TMP/$3.json" || [ $? -eq 1 ]
  tail -1 "$TMP/$3.time" | awk '{ printf "%.2f %.0f\n", $1 + $2, $3 / 1024 }'
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| trace | old CPU (s) | old RSS (MB) | new CPU (s) | new RSS (MB) | races |"
echo "|---|---:|---:|---:|---:|---|"
status=0
for f in "$@"; do
  read -r oc om < <(run "$OLD" "$f" old)
  read -r nc nm < <(run "$NEW" "$f" new)
  if [ "$(strip "$TMP/old.json")" = "$(strip "$TMP/new.json")" ]; then
    same=same
  else
    same=DIFFERENT
    status=1
  fi
  echo "| $(basename "$f") | $oc | $om | $nc | $nm | $same |"
done
exit $status
