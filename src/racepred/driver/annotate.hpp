// Running an engine with annotation on (`racepred annotate`, tests of the papers' tables).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {

struct AnnotationRun {
  std::vector<Annotation> rows;  // rows[i]: the cells annotate() appended for trace.events[i]
  RaceSink sink;                 // finalized
};

// The engine is built with EngineContext::annotate set. For every event of `trace`:
// before_event(), the event, annotate(); then finish() and annotate_at_end(). An offline
// engine: run() on the trace's index, finish(), annotate_at_end().
// `options` are the engine settings (engines/options.def) the engine is built with.
// Throws UsageError when the engine does not support annotation, naming the engines that do.
AnnotationRun annotate_trace(const EngineInfo& info, const Trace& trace, size_t max_kept = 1000,
                             const EngineOptions& options = {});
AnnotationRun annotate_trace(std::string_view engine, const Trace& trace, size_t max_kept = 1000,
                             const EngineOptions& options = {});
// An engine that the table does not list (variants, test references); `name` for messages.
AnnotationRun annotate_trace(const AnyEngineFactory& make, std::string_view name,
                             const Trace& trace, size_t max_kept = 1000,
                             const EngineOptions& options = {});

// Names of the registered engines that support annotation, in registry order.
std::vector<std::string> annotating_engines();

}  // namespace racepred
