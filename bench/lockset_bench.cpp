// The lockset engine over in-memory traces (no reading): nanoseconds per event, races counted.
// docs/PERFORMANCE.md, "End to end on the 5M baseline".
//   build/release/bench/lockset_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "racepred/driver/run.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace {

// The shared generator (trace/generator.hpp): threads T all running from the start, any of
// them next; variables V (a fraction `hot` of the accesses go to 50 hot variables); locks L;
// critical sections nest at most `depth` deep and last about 12 steps of their thread.
Trace make_trace(uint64_t events, uint32_t threads, uint32_t variables, uint32_t locks,
                 uint32_t depth, double hot, uint64_t seed) {
  GeneratorOptions o;
  o.seed = seed;
  o.events = events;
  o.threads = threads;
  o.variables = variables;
  o.locks = locks;
  o.nesting = depth;
  o.shape = ForkShape::None;
  o.switch_share = 1;
  o.local_share = 0;
  o.guarded_share = 0;
  o.write_share = 0.3;
  o.cs_share = 0.5;
  o.release_chance = 0.08;
  o.nest_chance = 0.08;
  o.release_at_end = false;
  o.hot_variables = 50;
  o.hot_share = hot;
  return generate_trace(o);
}

void run(benchmark::State& state, const Trace& trace) {
  uint64_t races = 0;
  for (auto _ : state) {
    const RaceSink sink = run_engine("lockset", trace, 1000);
    races = sink.race_count();
    benchmark::DoNotOptimize(races);
  }
  state.counters["ns/event"] = benchmark::Counter(
      static_cast<double>(trace.size()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["races"] = static_cast<double>(races);
}

// The trace of the other engines' benchmarks (docs/PERFORMANCE.md):
// `racepred generate --threads 8 --events 5000000 --seed 1` (1000 variables, 16 locks).
void BM_LocksetGenerated(benchmark::State& state) {
  static const Trace trace = [] {
    GeneratorOptions o;
    o.seed = 1;
    o.threads = 8;
    o.events = 5'000'000;
    return generate_trace(o);
  }();
  run(state, trace);
}
BENCHMARK(BM_LocksetGenerated)->Unit(benchmark::kMillisecond);

// The same generator with 10,000 variables and 64 locks (nested up to 2 deep): many more
// distinct lock sets per shared variable, and per-variable state beyond the caches.
void BM_LocksetGeneratedManyLocks(benchmark::State& state) {
  static const Trace trace = [] {
    GeneratorOptions o;
    o.seed = 42;
    o.threads = 8;
    o.events = 5'000'000;
    o.variables = 10'000;
    o.locks = 64;
    o.shape = ForkShape::ForkJoin;
    return generate_trace(o);
  }();
  run(state, trace);
}
BENCHMARK(BM_LocksetGeneratedManyLocks)->Unit(benchmark::kMillisecond);

// Few lock sets (4 locks, one held at a time): the scan path.
void BM_LocksetFewLocks(benchmark::State& state) {
  static const Trace trace = make_trace(2'000'000, 8, 20000, 4, 1, 0.3, 1);
  run(state, trace);
}
BENCHMARK(BM_LocksetFewLocks)->Unit(benchmark::kMillisecond);

// Many lock sets (64 locks, nested two deep): hot variables switch to counting mode.
void BM_LocksetManyLockSets(benchmark::State& state) {
  static const Trace trace = make_trace(2'000'000, 8, 20000, 64, 2, 0.3, 2);
  run(state, trace);
}
BENCHMARK(BM_LocksetManyLockSets)->Unit(benchmark::kMillisecond);

// No locks at all: every pair of conflicting accesses races.
void BM_LocksetNoLocks(benchmark::State& state) {
  static const Trace trace = make_trace(2'000'000, 8, 20000, 1, 0, 0.3, 3);
  run(state, trace);
}
BENCHMARK(BM_LocksetNoLocks)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace racepred

namespace racepred {
namespace {
// Lower bound for comparison: one counter per variable and one per thread, no analysis.
void BM_TouchPerVariableState(benchmark::State& state) {
  static const Trace trace = make_trace(2'000'000, 8, 20000, 4, 1, 0.3, 1);
  for (auto _ : state) {
    std::vector<uint64_t> per_variable(20000), per_thread(8);
    for (const Event& e : trace.events) {
      if (e.is_access()) per_variable[e.target] += per_thread[e.thread]++;
    }
    benchmark::DoNotOptimize(per_variable.data());
  }
  state.counters["ns/event"] = benchmark::Counter(
      static_cast<double>(trace.size()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TouchPerVariableState)->Unit(benchmark::kMillisecond);
}  // namespace
}  // namespace racepred
BENCHMARK_MAIN();
