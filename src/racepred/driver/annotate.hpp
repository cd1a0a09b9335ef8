// Running an engine with annotation on (`racepred annotate`, tests of the seeds' tables).
#pragma once

#include <string>
#include <vector>

#include "racepred/engines/engine.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {

struct AnnotationRun {
  std::vector<Annotation> rows;  // rows[i]: the cells annotate() appended for trace.events[i]
  RaceSink sink;                 // finalized
};

// For every event of `trace`: before_event(), on_event(), annotate(); then finish().
// Throws UsageError when the engine does not support annotation, naming the engines that do.
AnnotationRun annotate_trace(const EngineInfo& info, const Trace& trace, size_t max_kept = 1000);
AnnotationRun annotate_trace(std::string_view engine, const Trace& trace, size_t max_kept = 1000);

// Names of the registered engines that support annotation, in registry order.
std::vector<std::string> annotating_engines();

}  // namespace racepred
