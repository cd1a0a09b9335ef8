#include "racepred/driver/run.hpp"

#include <memory>
#include <string>

#include "racepred/driver/registry.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred {

RaceSink run_engine(const AnyEngineFactory& make, const Trace& trace, size_t max_kept,
                    const EngineOptions& options) {
  RaceSink sink(max_kept);
  EngineContext context{trace.symbols, sink, options};
  std::unique_ptr<Engine> engine = make(context);
  if (OfflineEngine* offline = engine->offline()) {
    offline->run(TraceIndex(trace));
  } else {
    engine->feed(trace.ids, trace.events);
  }
  engine->finish();
  sink.finalize();
  return sink;
}

RaceSink run_engine(const EngineInfo& info, const Trace& trace, size_t max_kept) {
  return run_engine(info.make, trace, max_kept);
}

RaceSink run_engine(std::string_view name, const Trace& trace, size_t max_kept) {
  return run_engine(name, trace, EngineOptions{}, max_kept);
}

RaceSink run_engine(std::string_view name, const Trace& trace, const EngineOptions& options,
                    size_t max_kept) {
  const EngineInfo* info = find_engine(name);
  if (!info) throw UsageError("unknown engine '" + std::string(name) + "'");
  return run_engine(info->make, trace, max_kept, options);
}

}  // namespace racepred
