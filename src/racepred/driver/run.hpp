// Running an engine over a trace already in memory (tests, annotate, benchmarks).
#pragma once

#include <memory>
#include <string_view>

#include "racepred/engines/engine.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {

// Runs `info`'s engine over every event of `trace`, then finish(); finalizes the sink.
// The sink must outlive nothing beyond this call: it is returned by value.
RaceSink run_engine(const EngineInfo& info, const Trace& trace, size_t max_kept = SIZE_MAX);
// By name; throws UsageError for an unknown engine.
RaceSink run_engine(std::string_view name, const Trace& trace, size_t max_kept = SIZE_MAX);

}  // namespace racepred
