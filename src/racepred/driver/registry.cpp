#include "racepred/driver/registry.hpp"

#include <algorithm>
#include <memory>

namespace racepred {

// Every factory of the table: make_<id>, defined in the engine's file.
#define ENGINE(id, ...) std::unique_ptr<Engine> make_##id(EngineContext&);
#include "racepred/engines/engines.def"

namespace {
// The table's id with '_' written as '-': the engine's name.
std::string name_of(std::string id) {
  std::replace(id.begin(), id.end(), '_', '-');
  return id;
}
}  // namespace

// The table's guarantees name only the fields that differ from Guarantee's defaults; GCC 12
// warns about the others even though they have default member initialisers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const std::vector<EngineInfo>& engine_registry() {
  static const std::vector<EngineInfo> registry = {
#define ENGINE(id, family, mode, view, description, seed, ...)              \
  EngineInfo{name_of(#id), family, EngineMode::mode,      EngineView::view, \
             description,  seed,   Guarantee __VA_ARGS__, make_##id},
#include "racepred/engines/engines.def"
  };
  return registry;
}
#pragma GCC diagnostic pop

const EngineInfo* find_engine(std::string_view name) {
  for (const EngineInfo& info : engine_registry())
    if (info.name == name) return &info;
  return nullptr;
}

}  // namespace racepred
