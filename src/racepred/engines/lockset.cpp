// PLACEHOLDER owned by the report work; replaced before the session ends.
#include "racepred/engines/engine.hpp"

namespace racepred {

void register_lockset_engines(std::vector<EngineInfo>& /*out*/) {}

}  // namespace racepred
