// What the engines of the exact family share: the exact module's search on the run's index, its
// state and memory budget from the engine options (engines/options.def), and its budget error as
// the engines' one.
#pragma once

#include "racepred/engines/engine.hpp"
#include "racepred/engines/index_race.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred::exact {

inline SearchOptions budget_of(const EngineContext& context) {
  SearchOptions options;
  options.max_states = context.options.max_states;
  options.max_memory = context.options.max_memory_mib << 20;
  return options;
}

// search(), with an exhausted budget reported as the engines' BudgetError.
inline SearchResult search_within_budget(const TraceIndex& index, const SearchOptions& options) {
  try {
    return search(index, options);
  } catch (const SearchLimitError& e) {
    throw BudgetError(e.what());
  }
}

inline void report_pair(RaceSink& sink, const TraceIndex& index, uint32_t first, uint32_t second) {
  sink.report(race_at(index, first, second));
}

}  // namespace racepred::exact
