#include "racepred/engines/engine.hpp"

namespace racepred {

// One registration function per engine family (engines/<family>.cpp).
void register_lockset_engines(std::vector<EngineInfo>& out);
void register_hb_pair_engines(std::vector<EngineInfo>& out);
void register_hb_location_engines(std::vector<EngineInfo>& out);
void register_exact_engines(std::vector<EngineInfo>& out);
void register_goldilocks_engines(std::vector<EngineInfo>& out);
void register_po_engines(std::vector<EngineInfo>& out);

const std::vector<EngineInfo>& engine_registry() {
  static const std::vector<EngineInfo> registry = [] {
    std::vector<EngineInfo> out;
    register_lockset_engines(out);
    register_hb_pair_engines(out);
    register_hb_location_engines(out);
    register_goldilocks_engines(out);
    register_po_engines(out);
    register_exact_engines(out);
    return out;
  }();
  return registry;
}

const EngineInfo* find_engine(std::string_view name) {
  for (const EngineInfo& info : engine_registry())
    if (info.name == name) return &info;
  return nullptr;
}

}  // namespace racepred
