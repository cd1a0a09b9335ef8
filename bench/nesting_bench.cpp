// Every online engine on deeply nested critical sections: thread T0 acquires N locks, writes N
// variables inside all of them, releases them innermost first; T1 then writes the same variables
// without a lock (4N events, in memory: reading and validation excluded). Engines whose cost
// per event does not depend on the nesting depth take about the same ns/event at every N; the
// rule-(a) engines (wcp, dc-tp, wdc, wdp) keep a slot per (lock, variable) pair, N^2 here.
//
//   build/bench/nesting_bench [--benchmark_filter=wcp] [--benchmark_min_time=0.1s]
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "engine_loop.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace {

const Trace& nested(int64_t n) {
  static std::map<int64_t, Trace> cache;
  auto it = cache.find(n);
  if (it == cache.end()) {
    std::string text;
    for (int64_t i = 0; i < n; ++i) text += "T0|acq(l" + std::to_string(i) + ")|1\n";
    for (int64_t i = 0; i < n; ++i) text += "T0|w(x" + std::to_string(i) + ")|2\n";
    for (int64_t i = n; i-- > 0;) text += "T0|rel(l" + std::to_string(i) + ")|3\n";
    for (int64_t i = 0; i < n; ++i) text += "T1|w(x" + std::to_string(i) + ")|4\n";
    it = cache.emplace(n, parse_trace(text)).first;
  }
  return it->second;
}

void BM_Nested(benchmark::State& state, const std::string& engine) {
  const Trace& t = nested(state.range(0));
  run_engine_loop(state, t, engine);
}

// The rule-(a) engines hold N^2 slots: 10,000 would need gigabytes, so they run to 2,000.
bool quadratic(const std::string& engine) {
  return engine == "wcp" || engine == "dc-tp" || engine == "wdc" || engine == "wdp";
}

[[maybe_unused]] const bool registered = [] {
  for (const EngineInfo& info : engine_registry()) {
    if (info.mode != EngineMode::Online) continue;
    auto* b =
        benchmark::RegisterBenchmark(("BM_Nested/" + info.name).c_str(), BM_Nested, info.name);
    if (quadratic(info.name))
      b->Arg(500)->Arg(1000)->Arg(2000);
    else
      b->Arg(2000)->Arg(10000);
    b->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  return true;
}();

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
