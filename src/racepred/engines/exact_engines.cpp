// PLACEHOLDER owned by the exact work; replaced before the session ends.
#include "racepred/engines/engine.hpp"

namespace racepred {

void register_exact_engines(std::vector<EngineInfo>& /*out*/) {}

}  // namespace racepred
