// Analysis speed of the predictive partial-order engines (engines/po) beside fasttrack, over the
// generated 5M-event benchmark trace (8 threads, 1000 variables, 50 locks), in memory (reading
// and validation excluded), and per-event time as the thread count grows (T = 8, 64, 256 at
// 1M events) and as the trace grows (1M vs 5M events: linear time means equal ns/event).
//
//   build/bench/po_engines_bench [--benchmark_filter=wcp] [--benchmark_repetitions=3]
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <utility>

#include "engine_loop.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace {

const Trace& trace(uint32_t threads, uint64_t events) {
  static std::map<std::pair<uint32_t, uint64_t>, Trace> cache;
  auto it = cache.find({threads, events});
  if (it == cache.end()) {
    GeneratorOptions o;
    o.threads = threads;
    o.events = events;
    o.variables = 1000;
    o.locks = 50;
    o.seed = 1;
    it = cache.emplace(std::make_pair(threads, events), generate_trace(o)).first;
  }
  return it->second;
}

void BM_Engine(benchmark::State& state, const char* engine) {
  const Trace& t =
      trace(static_cast<uint32_t>(state.range(0)), static_cast<uint64_t>(state.range(1)));
  run_engine_loop(state, t, engine);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Args({8, 5'000'000})->Args({8, 1'000'000})->Args({64, 1'000'000})->Args({256, 1'000'000});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK_CAPTURE(BM_Engine, fasttrack, "fasttrack")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Engine, shb, "shb")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Engine, wcp, "wcp")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Engine, dc, "dc")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Engine, wdc, "wdc")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Engine, dc_tp, "dc-tp")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Engine, wdp, "wdp")->Apply(sizes);

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
