#include "racepred/engines/run.hpp"

#include <string>

#include "racepred/trace/error.hpp"

namespace racepred {

RaceSink run_engine(const EngineInfo& info, const Trace& trace, size_t max_kept) {
  RaceSink sink(max_kept);
  EngineContext context{trace.symbols, sink};
  std::unique_ptr<Engine> engine = info.make(context);
  for (size_t i = 0; i < trace.size(); ++i) engine->on_event(trace.ids[i], trace.events[i]);
  engine->finish();
  sink.finalize();
  return sink;
}

RaceSink run_engine(std::string_view name, const Trace& trace, size_t max_kept) {
  const EngineInfo* info = find_engine(name);
  if (!info) throw UsageError("unknown engine '" + std::string(name) + "'");
  return run_engine(*info, trace, max_kept);
}

}  // namespace racepred
