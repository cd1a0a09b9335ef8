#include "racepred/driver/annotate.hpp"

#include "racepred/driver/registry.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred {

std::vector<std::string> annotating_engines() {
  std::vector<std::string> names;
  for (const EngineInfo& info : engine_registry())
    if (info.view == EngineView::Annotated) names.push_back(info.name);
  return names;
}

namespace {
std::string engine_list(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}
UsageError no_view(std::string_view name) {
  return UsageError("engine '" + std::string(name) + "' has no annotated view; engines with one: " +
                    engine_list(annotating_engines()));
}
}  // namespace

AnnotationRun annotate_trace(const EngineInfo& info, const Trace& trace, size_t max_kept,
                             const EngineOptions& options) {
  if (info.view != EngineView::Annotated) throw no_view(info.name);
  return annotate_trace(info.make, info.name, trace, max_kept, options);
}

AnnotationRun annotate_trace(const AnyEngineFactory& make, std::string_view name,
                             const Trace& trace, size_t max_kept, const EngineOptions& options) {
  AnnotationRun run{{}, RaceSink(max_kept)};
  EngineContext context{trace.symbols, run.sink, options};
  context.annotate = true;
  std::unique_ptr<Engine> engine = make(context);
  Annotator* annotator = engine->annotator();
  if (!annotator) throw no_view(name);
  run.rows.resize(trace.size());
  if (OfflineEngine* offline = engine->offline()) {
    offline->run(TraceIndex(trace));
  } else {
    for (size_t i = 0; i < trace.size(); ++i) {
      annotator->before_event(trace.ids[i], trace.events[i]);
      engine->on_event(trace.ids[i], trace.events[i]);
      annotator->annotate(trace.ids[i], trace.events[i], run.rows[i]);
    }
  }
  engine->finish();
  annotator->annotate_at_end(run.rows);
  run.sink.finalize();
  return run;
}

AnnotationRun annotate_trace(std::string_view engine, const Trace& trace, size_t max_kept,
                             const EngineOptions& options) {
  const EngineInfo* info = find_engine(engine);
  if (!info)
    throw UsageError("unknown engine '" + std::string(engine) +
                     "'; engines with an annotated view: " + engine_list(annotating_engines()));
  return annotate_trace(*info, trace, max_kept, options);
}

}  // namespace racepred
