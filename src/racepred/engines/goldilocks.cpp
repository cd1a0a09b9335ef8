// PLACEHOLDER owned by the goldilocks work; replaced before the session ends.
#include "racepred/engines/engine.hpp"

namespace racepred {

void register_goldilocks_engines(std::vector<EngineInfo>& /*out*/) {}

}  // namespace racepred
