// Factories of the PWR engines with explicit bounds (tests, benchmarks); the registered engines
// use the context's bounds (pwr, pwr-edges, pwr-cs, pwr-e; defaults 5 and 25) or no bounds (the
// *-unbounded names).
#pragma once

#include <memory>

#include "racepred/engines/engine.hpp"
#include "racepred/engines/pwr/pwr_core.hpp"

namespace racepred::pwr {

std::unique_ptr<Engine> make_pwr(EngineContext& context, const PwrOptions& options);
std::unique_ptr<Engine> make_pwr_edges(EngineContext& context, const PwrOptions& options);
std::unique_ptr<Engine> make_pwr_cs(EngineContext& context, const PwrOptions& options);
std::unique_ptr<Engine> make_pwr_e(EngineContext& context, const PwrOptions& options);

// pwr-edges keeps an edge's ids in 32 bits below this limit (2^32 - 1) and in a side table
// ("far" edges) from it on; tests lower it to exercise the far edges on small traces.
void set_edge_id_limit_for_tests(uint64_t limit);

inline constexpr PwrOptions kUnboundedOptions{kUnbounded, kUnbounded};

// The bounds of the registered bounded engines: the paper's defaults unless the user set them
// (EngineContext::bounds, from --pwr-history and --pwr-edges).
inline PwrOptions bounded_options(const EngineContext& context) {
  PwrOptions options;
  if (context.bounds.pwr_history) options.history = context.bounds.pwr_history;
  if (context.bounds.pwr_edges) options.edges = context.bounds.pwr_edges;
  return options;
}

}  // namespace racepred::pwr
