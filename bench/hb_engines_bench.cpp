// Analysis speed of the HB race-location engines (djit, hb-epochs, hb-adaptive, fasttrack) over
// a 5M-event, 8-thread trace already in memory (reading and validation excluded).
//
//   build/bench/hb_engines_bench [--benchmark_filter=fasttrack] [--benchmark_repetitions=5]
//
// Traces from trace/generator.hpp:
//   generated  the trace of `racepred generate --threads 8 --events 5000000 --seed 1`
//              (generator defaults: 1000 variables, 16 locks, 60% of accesses in critical
//              sections, 80% of the others thread-local)
//   racy       the same with --cs-share 0.2 --local-share 0.2 --variables 10000: most accesses
//              unsynchronised, many races, a larger working set
#include <benchmark/benchmark.h>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
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
  static const Trace racy = [] {
    GeneratorOptions o;
    o.threads = 8;
    o.events = 5'000'000;
    o.seed = 1;
    o.cs_share = 0.2;
    o.local_share = 0.2;
    o.variables = 10'000;
    return generate_trace(o);
  }();
  return which == 0 ? generated : racy;
}

void BM_Engine(benchmark::State& state, const char* engine, int which) {
  const Trace& t = trace(which);
  const EngineInfo* info = find_engine(engine);
  uint64_t races = 0, racy = 0;
  for (auto _ : state) {
    const RaceSink sink = run_engine(*info, t, 1000);  // one batch, 1000 races kept
    races = sink.race_count();
    racy = sink.racy_events().size();
    benchmark::DoNotOptimize(races);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.size()));
  state.counters["races"] = static_cast<double>(races);
  state.counters["racy_events"] = static_cast<double>(racy);
}

BENCHMARK_CAPTURE(BM_Engine, fasttrack_generated, "fasttrack", 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, fasttrack_racy, "fasttrack", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, djit_generated, "djit", 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, djit_racy, "djit", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, hb_adaptive_generated, "hb-adaptive", 0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, hb_adaptive_racy, "hb-adaptive", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, hb_epochs_generated, "hb-epochs", 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, hb_epochs_racy, "hb-epochs", 1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
