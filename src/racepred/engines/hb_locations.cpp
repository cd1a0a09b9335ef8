// PLACEHOLDER owned by the hb-locations work; replaced before the session ends.
#include "racepred/engines/engine.hpp"

namespace racepred {

void register_hb_location_engines(std::vector<EngineInfo>& /*out*/) {}

}  // namespace racepred
