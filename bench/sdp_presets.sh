#!/usr/bin/env bash
# sdp beside wcp and fasttrack on 1M-event cuts of the shape presets (builds nothing):
#   bench/sdp_presets.sh BUILD_DIR [DATA_DIR] [PRESET…]
# CPU and RSS relative to wcp; EVENTS overrides the cut; bench/engine_presets.sh says the rest.
# docs/PERFORMANCE.md ("sdp") has the results.
ENGINES="wcp fasttrack sdp" REF=wcp EVENTS=${EVENTS:-1000000} \
  exec "$(dirname "$0")/engine_presets.sh" "${1:?usage: bench/sdp_presets.sh BUILD_DIR [DATA_DIR] [PRESET...]}" \
  "${2:-/tmp/racepred-sdp}" "${@:3}"
