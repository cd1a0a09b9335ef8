// The lockset engine over in-memory traces (no reading): nanoseconds per event, races counted.
// docs/PERFORMANCE.md, "Lock sets".
//   build/release/bench/lockset_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <random>
#include <string>
#include <vector>

#include "racepred/driver/run.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace {

// threads T, variables V (a fraction `hot` of the accesses go to 50 hot variables), locks L;
// critical sections nest at most `depth` deep; `own_lock`: threads mostly use their own locks.
Trace make_trace(size_t events, uint32_t threads, uint32_t variables, uint32_t locks, size_t depth,
                 double hot, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Trace trace;
  for (uint32_t t = 0; t < threads; ++t) trace.symbols.threads.intern(fmt::format("T{}", t));
  for (uint32_t x = 0; x < variables; ++x) trace.symbols.variables.intern(fmt::format("V{}", x));
  for (uint32_t l = 0; l < locks; ++l) trace.symbols.locks.intern(fmt::format("L{}", l));
  trace.symbols.locations.intern("0");
  std::vector<std::vector<uint32_t>> held(threads);
  std::vector<int> owner(locks, -1);
  for (size_t i = 0; i < events; ++i) {
    const uint32_t t = static_cast<uint32_t>(rng() % threads);
    const double k = u(rng);
    Event e{Op::Read, t, 0, 0};
    if (k < 0.08 && held[t].size() < depth) {
      const uint32_t l = static_cast<uint32_t>(rng() % locks);
      if (owner[l] != -1) continue;
      owner[l] = static_cast<int>(t);
      held[t].push_back(l);
      e = Event{Op::Acquire, t, l, 0};
    } else if (k < 0.16 && !held[t].empty()) {
      const uint32_t l = held[t].back();
      held[t].pop_back();
      owner[l] = -1;
      e = Event{Op::Release, t, l, 0};
    } else {
      const uint32_t x = static_cast<uint32_t>(u(rng) < hot ? rng() % 50 : rng() % variables);
      e = Event{u(rng) < 0.3 ? Op::Write : Op::Read, t, x, 0};
    }
    trace.events.push_back(e);
    trace.ids.push_back(trace.events.size());
    trace.lines.push_back(0);
  }
  return trace;
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
