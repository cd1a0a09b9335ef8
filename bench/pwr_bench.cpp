// Analysis speed of the PWR engines (pwr, pwr-cs, pwr-e, pwr-edges) beside fasttrack over 5M-event
// traces already in memory (reading and validation excluded), so the pwr-cs / pwr ratio is the
// engines' own.
//
//   build/bench/pwr_bench [--benchmark_filter=pwr] [--benchmark_repetitions=5]
//
// Traces from trace/generator.hpp:
//   generated  `racepred generate --threads 8 --events 5000000 --seed 1` (1000 variables,
//              16 locks)
//   manylocks  many locks and variables like xalan in Sulzmann and Thiemann's Fig. 11 (2.5K
//   locks, 4.4M
//              locations there): --locks 2500 --variables 1000000 --nesting 3 --cs-share 0.8
#include <benchmark/benchmark.h>

#include "racepred/driver/registry.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace {

const Trace& trace(int which) {
  static const Trace generated = [] {
    GeneratorOptions o;
    o.threads = 8;
    o.events = 5'000'000;
    o.seed = 1;
    return generate_trace(o);
  }();
  static const Trace manylocks = [] {
    GeneratorOptions o;
    o.threads = 8;
    o.events = 5'000'000;
    o.seed = 1;
    o.locks = 2500;
    o.variables = 1'000'000;
    o.nesting = 3;
    o.cs_share = 0.8;
    return generate_trace(o);
  }();
  return which == 0 ? generated : manylocks;
}

void BM_Engine(benchmark::State& state, const char* engine, int which) {
  const Trace& t = trace(which);
  const EngineInfo* info = find_engine(engine);
  uint64_t races = 0;
  for (auto _ : state) {
    RaceSink sink(0);
    EngineContext context{t.symbols, sink};
    std::unique_ptr<Engine> e = info->make(context);
    constexpr size_t kBatch = 1 << 16;
    for (size_t i = 0, n = t.size(); i < n; i += kBatch) {
      const size_t m = std::min(kBatch, n - i);
      e->on_events({t.ids.data() + i, m}, {t.events.data() + i, m});
    }
    e->finish();
    races = sink.race_count();
    benchmark::DoNotOptimize(races);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.size()));
  state.counters["races"] = static_cast<double>(races);
}

#define PWR_BENCH(name, engine)                                                             \
  BENCHMARK_CAPTURE(BM_Engine, name##_generated, engine, 0)->Unit(benchmark::kMillisecond); \
  BENCHMARK_CAPTURE(BM_Engine, name##_manylocks, engine, 1)->Unit(benchmark::kMillisecond)
PWR_BENCH(fasttrack, "fasttrack");
PWR_BENCH(pwr, "pwr");
PWR_BENCH(pwr_cs, "pwr-cs");
PWR_BENCH(pwr_e, "pwr-e");
PWR_BENCH(pwr_edges, "pwr-edges");

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
