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
#include "racepred/trace/generator.hpp"
#include "support/tree_clock.hpp"

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

// The clock work of fasttrack over the trace: before each access the epoch test of the
// variable's last writer against Th(i) (a write then becomes the last writer), after each event
// its synchronisation and tick. Returns the number of failed tests.
struct Flat {
  ThreadClocks clocks;
  Clock get(ThreadId i, ThreadId j) {
    clocks.add_thread(i);
    return clocks.th(i)[j];
  }
  void apply(const Event& e) { clocks.apply(e); }
};
struct Tree {
  TreeHbClocks clocks;
  Clock get(ThreadId i, ThreadId j) const { return clocks.get(i, j); }
  void apply(const Event& e) { clocks.apply(e); }
};

template <class Clocks>
void BM_Clocks(benchmark::State& state) {
  const Trace& t =
      trace(static_cast<uint32_t>(state.range(0)), static_cast<uint32_t>(state.range(1)));
  uint64_t unordered = 0;
  for (auto _ : state) {
    Clocks clocks;
    std::vector<std::pair<ThreadId, Clock>> last;  // per variable: the last write's epoch
    for (const Event& e : t.events) {
      if (e.op == Op::Read || e.op == Op::Write) {
        if (e.target >= last.size()) last.resize(size_t{e.target} + 1, {0, 0});
        auto& [writer, k] = last[e.target];
        unordered += k > clocks.get(e.thread, writer) ? 1 : 0;
        if (e.op == Op::Write) last[e.target] = {e.thread, clocks.get(e.thread, e.thread)};
      }
      clocks.apply(e);
    }
    benchmark::DoNotOptimize(unordered);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.size()));
  state.counters["unordered"] = static_cast<double>(unordered / state.iterations());
}
void BM_Flat(benchmark::State& state) {
  BM_Clocks<Flat>(state);
}
void BM_Tree(benchmark::State& state) {
  BM_Clocks<Tree>(state);
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
