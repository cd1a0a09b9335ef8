// Tree clocks against the flat clocks of ThreadClocks (docs/PERFORMANCE.md, "Tree clocks"):
// the happens-before clock work of an HB engine over a trace in memory — every event's
// synchronisation and tick, and at every access the epoch test of the variable's last writer
// (one entry of Th(i) read, as fasttrack does). Reading, validation and race reporting are
// left out, so the numbers are the clocks' own cost.
//
//   build/bench/tree_clock_bench [--benchmark_filter=T256]
//
// Traces (trace/generator.hpp, ForkShape::None: every thread runs from the start, so all
// synchronisation goes through locks): 2M events, T threads, 1000 variables, L locks, the
// generator's defaults otherwise (60% of accesses in critical sections, nesting 2). The
// counter `unordered` (epoch tests that failed) must be equal in both columns. L:0 stands for
// the tradebeans preset of `racepred generate` (236 threads forked and joined by T0, 6,100
// locks, 700K skewed variables), its first 2M events.
#include <benchmark/benchmark.h>

#include <map>
#include <utility>
#include <vector>

#include "racepred/clock/thread_clocks.hpp"
#include "racepred/clock/tree_clock.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace {

const Trace& trace(uint32_t threads, uint32_t locks) {
  static std::map<std::pair<uint32_t, uint32_t>, Trace> traces;
  auto it = traces.find({threads, locks});
  if (it == traces.end()) {
    GeneratorOptions o;
    if (locks == 0) {  // the tradebeans preset (fork-join, skewed variables), cut to 2M events
      apply_generator_preset("tradebeans", o);
    } else {
      o.threads = threads;
      o.locks = locks;
      o.shape = ForkShape::None;
    }
    o.events = 2'000'000;
    o.seed = 1;
    it = traces.emplace(std::make_pair(threads, locks), generate_trace(o)).first;
  }
  return it->second;
}

// The epoch test of fasttrack's accesses: the last writer's epoch against Th(i).
template <class Get>
uint64_t access(std::vector<std::pair<ThreadId, Clock>>& last, const Event& e, Get get) {
  if (e.target >= last.size()) last.resize(size_t{e.target} + 1, {0, 0});
  auto& [t, k] = last[e.target];
  const uint64_t unordered = k > get(e.thread, t) ? 1 : 0;
  if (e.op == Op::Write) last[e.target] = {e.thread, get(e.thread, e.thread)};
  return unordered;
}

void BM_Flat(benchmark::State& state) {
  const Trace& t =
      trace(static_cast<uint32_t>(state.range(0)), static_cast<uint32_t>(state.range(1)));
  uint64_t unordered = 0;
  for (auto _ : state) {
    ThreadClocks clocks;
    std::vector<std::pair<ThreadId, Clock>> last;
    for (const Event& e : t.events) {
      clocks.add_thread(e.thread);
      if (e.op == Op::Read || e.op == Op::Write)
        unordered += access(last, e, [&](ThreadId i, ThreadId j) { return clocks.th(i)[j]; });
      clocks.apply(e);
    }
    benchmark::DoNotOptimize(unordered);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.size()));
  state.counters["unordered"] = static_cast<double>(unordered / state.iterations());
}

void BM_Tree(benchmark::State& state) {
  const Trace& t =
      trace(static_cast<uint32_t>(state.range(0)), static_cast<uint32_t>(state.range(1)));
  uint64_t unordered = 0;
  for (auto _ : state) {
    TreeHbClocks clocks;
    std::vector<std::pair<ThreadId, Clock>> last;
    for (const Event& e : t.events) {
      if (e.op == Op::Read || e.op == Op::Write)
        unordered += access(last, e, [&](ThreadId i, ThreadId j) { return clocks.get(i, j); });
      clocks.apply(e);
    }
    benchmark::DoNotOptimize(unordered);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.size()));
  state.counters["unordered"] = static_cast<double>(unordered / state.iterations());
}

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"T", "L"});
  for (const int threads : {8, 64, 256, 1024}) b->Args({threads, 16});
  b->Args({64, 1024});  // many locks: a lock's clock is stale when it is taken again
  b->Args({256, 1});    // one lock: every thread synchronises with every other
  b->Args({236, 0});    // L = 0: the tradebeans preset (236 threads, 6,100 locks, fork-join)
  b->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_Flat)->Apply(shapes);
BENCHMARK(BM_Tree)->Apply(shapes);

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
