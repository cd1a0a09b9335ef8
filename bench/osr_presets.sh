#!/usr/bin/env bash
# osr beside fasttrack and syncp on 300k-event cuts of the shape presets (builds nothing):
#   bench/osr_presets.sh BUILD_DIR [DATA_DIR] [PRESET…]
# CPU and RSS relative to fasttrack; EVENTS overrides the cut; bench/engine_presets.sh says the
# rest. docs/PERFORMANCE.md ("osr") has the results.
ENGINES="fasttrack syncp osr" REF=fasttrack EVENTS=${EVENTS:-300000} \
  DEFAULT_PRESETS="baseline xalan tradebeans cassandra" \
  exec "$(dirname "$0")/engine_presets.sh" "${1:?usage: bench/osr_presets.sh BUILD_DIR [DATA_DIR] [PRESET...]}" \
  "${2:-/tmp/racepred-osr}" "${@:3}"
