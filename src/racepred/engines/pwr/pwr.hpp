// Factories of the PWR engines with explicit bounds (tests, benchmarks); the registered engines
// use the context's bounds (pwr, pwr-edges, pwr-cs, pwr-e) or no bounds (the *-unbounded names).
#pragma once

#include <memory>

#include "racepred/engines/engine.hpp"
#include "racepred/engines/pwr/pwr_core.hpp"

namespace racepred::pwr {

std::unique_ptr<Engine> make_pwr(EngineContext& context, const PwrOptions& options);
std::unique_ptr<Engine> make_pwr_edges(EngineContext& context, const PwrOptions& options);
std::unique_ptr<Engine> make_pwr_cs(EngineContext& context, const PwrOptions& options);
std::unique_ptr<Engine> make_pwr_e(EngineContext& context, const PwrOptions& options);

// The bounds of the registered engines from the context's options (--pwr-history and
// --pwr-edges, engines/options.def); the *-unbounded engines keep everything.
inline PwrOptions bounded_options(const EngineContext& context) {
  const EngineOptions& o = context.options;
  return PwrOptions{o.pwr_history,       o.pwr_edges,          o.pwr_edge_id_limit,
                    o.clock_slot_budget, o.clock_sparse_slots, o.bulk_count_from};
}
inline PwrOptions unbounded_options(const EngineContext& context) {
  const EngineOptions& o = context.options;
  return PwrOptions{kUnbounded,          kUnbounded,           o.pwr_edge_id_limit,
                    o.clock_slot_budget, o.clock_sparse_slots, o.bulk_count_from};
}

}  // namespace racepred::pwr
