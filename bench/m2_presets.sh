#!/usr/bin/env bash
# m2 beside fasttrack, syncp and osr on 300k-event cuts of the shape presets (builds nothing):
#   bench/m2_presets.sh BUILD_DIR [DATA_DIR] [PRESET…]
# CPU and RSS relative to fasttrack; EVENTS overrides the cut; bench/engine_presets.sh says the
# rest. docs/PERFORMANCE.md ("m2") has the results.
ENGINES="fasttrack syncp osr m2" REF=fasttrack EVENTS=${EVENTS:-300000} \
  DEFAULT_PRESETS="baseline xalan tradebeans cassandra" \
  exec "$(dirname "$0")/engine_presets.sh" "${1:?usage: bench/m2_presets.sh BUILD_DIR [DATA_DIR] [PRESET...]}" \
  "${2:-/tmp/racepred-m2}" "${@:3}"
