// Goldilocks speed (docs/PERFORMANCE.md, "End to end on the 5M baseline"): the lazy engines on a
// generated 5M-event, 8-thread trace already in memory, against FastTrack on the same trace; the
// eager reference against the lazy form on a smaller trace.
//
//   build/release/bench/goldilocks_bench --benchmark_counters_tabular=true
//
// The trace (trace/generator): T0 forks T1..T7 and joins them at the end; every thread runs
// critical sections (nesting depth ≤ 2) on 64 locks, inside which it accesses the variables its
// held locks guard (half of them writes); outside, 60% of its accesses go to its own
// thread-local variables (half writes) and the rest to read-mostly shared variables (2% writes:
// the races). Read-shared variables are where goldilocks-rw differs from goldilocks.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/engines/goldilocks/goldilocks.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/trace.hpp"
#include "support/goldilocks_eager.hpp"

namespace racepred {
namespace {

Trace generate(uint64_t events, uint32_t locks, uint32_t guarded_per_lock,
               uint32_t local_per_thread, uint64_t seed) {
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 8;
  o.events = events;
  o.locks = locks;
  // Shared pool (guarded by lock v mod locks) and an equally large thread-local pool.
  o.variables = 2 * std::max(locks * guarded_per_lock, o.threads * local_per_thread);
  o.nesting = 2;
  o.shape = ForkShape::ForkJoin;
  o.cs_share = 0.5;
  o.write_share = 0.5;
  o.guarded_share = 1;
  o.local_share = 0.6;
  o.unguarded_write_share = 0.02;
  o.locations = 100;
  return generate_trace(o);
}

const Trace& big_trace() {
  static const Trace trace = generate(5'000'000, 64, 64, 512, 1);
  return trace;
}

const Trace& small_trace() {
  static const Trace trace = generate(200'000, 16, 16, 32, 2);
  return trace;
}

void run_engine_loop(benchmark::State& state, const Trace& trace,
                     const std::function<std::unique_ptr<Engine>(EngineContext&)>& make) {
  uint64_t races = 0;
  for (auto _ : state) {
    const RaceSink sink = run_engine(make, trace, 1000);  // one batch, 1000 races kept
    races = sink.race_count();
    benchmark::DoNotOptimize(races);
  }
  state.counters["events/s"] = benchmark::Counter(
      static_cast<double>(trace.size()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["races"] = static_cast<double>(races);
  state.counters["events"] = static_cast<double>(trace.size());
}

void BM_Registered(benchmark::State& state, const char* name) {
  const EngineInfo* info = find_engine(name);
  if (!info) {
    state.SkipWithError("engine not registered (yet)");
    for (auto _ : state) {
    }
    return;
  }
  run_engine_loop(state, big_trace(), info->make);
}

void BM_Small(benchmark::State& state, bool eager, bool rw) {
  const GoldilocksDiscipline d =
      rw ? GoldilocksDiscipline::ConcurrentReads : GoldilocksDiscipline::MutEx;
  run_engine_loop(state, small_trace(), [eager, d](EngineContext& c) {
    return eager ? make_goldilocks_eager(c, d) : make_goldilocks_lazy(c, d);
  });
}

BENCHMARK_CAPTURE(BM_Registered, goldilocks, "goldilocks")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_Registered, goldilocks_rw, "goldilocks-rw")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_Registered, fasttrack, "fasttrack")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_Small, lazy_goldilocks_rw_200k, false, true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Small, eager_goldilocks_rw_200k, true, true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
