// Throughput of hb, hb-sets, hb-pairs and tsan1 on synthetic traces shaped like real programs:
// threads forked at the start and joined at the end, most shared accesses protected by a lock
// (acq, access, rel), some thread-local accesses and a few unprotected (racy) ones.
// Run: build/bench/hb_pairs_bench  (events/s in the "items_per_second" column)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {
namespace {

Trace synthetic_trace(size_t events, uint32_t threads, uint32_t variables, uint32_t locks,
                      uint32_t racy_permille) {
  Trace t;
  auto name = [](char prefix, uint32_t i) {
    std::string s = std::to_string(i);
    s.insert(s.begin(), prefix);
    return s;
  };
  for (uint32_t i = 0; i < threads; ++i) t.symbols.threads.intern(name('T', i));
  for (uint32_t i = 0; i < variables; ++i) t.symbols.variables.intern(name('x', i));
  for (uint32_t i = 0; i < locks; ++i) t.symbols.locks.intern(name('l', i));
  t.symbols.locations.intern("L0");
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % n;
  };
  auto push = [&](Op op, ThreadId th, uint32_t target) {
    t.events.push_back(Event{op, th, target, 0});
    t.ids.push_back(t.events.size());
    t.lines.push_back(0);
  };
  for (uint32_t i = 1; i < threads; ++i) push(Op::Fork, 0, i);
  while (t.events.size() + threads < events) {
    const auto th = static_cast<ThreadId>(next(threads));
    const uint64_t kind = next(1000);
    const Op op = next(4) == 0 ? Op::Write : Op::Read;
    if (kind < racy_permille) {  // unprotected shared access
      push(op, th, static_cast<uint32_t>(next(variables / 10 + 1)));
    } else if (kind < 300) {  // thread-local variable
      push(op, th, static_cast<uint32_t>((th * 7919u + next(16)) % variables));
    } else {  // protected by the variable's lock
      const auto x = static_cast<uint32_t>(next(variables));
      push(Op::Acquire, th, x % locks);
      push(op, th, x);
      push(Op::Release, th, x % locks);
    }
  }
  for (uint32_t i = 1; i < threads; ++i) push(Op::Join, 0, i);
  return t;
}

void run(benchmark::State& state, const char* engine, size_t events) {
  const Trace trace = synthetic_trace(events, static_cast<uint32_t>(state.range(0)), 1000, 16, 5);
  const EngineInfo* info = find_engine(engine);
  uint64_t races = 0;
  for (auto _ : state) {
    const RaceSink sink = run_engine(*info, trace);
    races = sink.race_count();
    benchmark::DoNotOptimize(races);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * trace.size()));
  state.counters["races"] = static_cast<double>(races);
}

void BM_hb(benchmark::State& s) {
  run(s, "hb", 1'000'000);
}
void BM_hb_pairs(benchmark::State& s) {
  run(s, "hb-pairs", 1'000'000);
}
void BM_tsan1(benchmark::State& s) {
  run(s, "tsan1", 1'000'000);
}
void BM_hb_sets(benchmark::State& s) {
  run(s, "hb-sets", 20'000);
}

BENCHMARK(BM_hb)->Arg(4)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_hb_pairs)->Arg(4)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_tsan1)->Arg(4)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_hb_sets)->Arg(4)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
