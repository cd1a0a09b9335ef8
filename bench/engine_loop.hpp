// The timed loop shared by the engine benchmarks: the engine built, fed the whole trace in one
// batch and finished per iteration; events per second and the race count as counters.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "racepred/driver/registry.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {

inline void run_engine_loop(benchmark::State& state, const Trace& t, std::string_view engine) {
  const EngineInfo* info = find_engine(engine);
  uint64_t races = 0;
  for (auto _ : state) {
    RaceSink sink;
    EngineContext context{t.symbols, sink};
    std::unique_ptr<Engine> e = info->make(context);
    e->on_events(t.ids, t.events);
    e->finish();
    races = sink.race_count();
    benchmark::DoNotOptimize(races);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.size()));
  state.counters["races"] = static_cast<double>(races);
}

}  // namespace racepred
