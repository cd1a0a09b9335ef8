// PLACEHOLDER owned by the hb-pairs work; replaced before the session ends.
#include "racepred/engines/engine.hpp"

namespace racepred {

void register_hb_pair_engines(std::vector<EngineInfo>& /*out*/) {}

}  // namespace racepred
