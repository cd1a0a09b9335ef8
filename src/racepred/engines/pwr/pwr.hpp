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
  return PwrOptions{context.options.pwr_history, context.options.pwr_edges,
                    context.options.pwr_edge_id_limit};
}
inline PwrOptions unbounded_options(const EngineContext& context) {
  return PwrOptions{kUnbounded, kUnbounded, context.options.pwr_edge_id_limit};
}

}  // namespace racepred::pwr
