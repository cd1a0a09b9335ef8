// The engine registry: every engine of engines/engines.def with its factory.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "racepred/engines/engine.hpp"

namespace racepred {

// All engines, in the order of engines/engines.def (the order `racepred engines` lists them).
const std::vector<EngineInfo>& engine_registry();
// nullptr for an unknown name.
const EngineInfo* find_engine(std::string_view name);

}  // namespace racepred
