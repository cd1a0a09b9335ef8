// Factories of the PWR engines with explicit bounds (tests, benchmarks); the registered engines
// use the defaults (pwr, pwr-edges, pwr-cs, pwr-e) or no bounds (the *-unbounded names).
#pragma once

#include <memory>

#include "racepred/engines/engine.hpp"
#include "racepred/engines/pwr/pwr_core.hpp"

namespace racepred::pwr {

std::unique_ptr<Engine> make_pwr(EngineContext& context, const PwrOptions& options);
std::unique_ptr<Engine> make_pwr_edges(EngineContext& context, const PwrOptions& options);
std::unique_ptr<Engine> make_pwr_cs(EngineContext& context, const PwrOptions& options);
std::unique_ptr<Engine> make_pwr_e(EngineContext& context, const PwrOptions& options);

inline constexpr PwrOptions kUnboundedOptions{kUnbounded, kUnbounded};

}  // namespace racepred::pwr
