// Running an engine over a trace already in memory (tests, annotate, benchmarks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "racepred/engines/engine.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {

// Runs `info`'s engine over every event of `trace` (one batch; an offline engine over the
// trace's index, which checks well-formedness first and throws InputError), then finish();
// finalizes the sink, which is returned by value.
RaceSink run_engine(const EngineInfo& info, const Trace& trace, size_t max_kept = SIZE_MAX);
// By name; throws UsageError for an unknown engine.
RaceSink run_engine(std::string_view name, const Trace& trace, size_t max_kept = SIZE_MAX);
// With settings other than the defaults of engines/options.def.
RaceSink run_engine(std::string_view name, const Trace& trace, const EngineOptions& options,
                    size_t max_kept = SIZE_MAX);
// An engine made by `make` (e.g. a variant with options that the table does not list).
using AnyEngineFactory = std::function<std::unique_ptr<Engine>(EngineContext&)>;
RaceSink run_engine(const AnyEngineFactory& make, const Trace& trace, size_t max_kept = SIZE_MAX,
                    const EngineOptions& options = {});

}  // namespace racepred
