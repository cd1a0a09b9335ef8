// Every online engine on deeply nested critical sections: thread T0 acquires N locks, writes N
// variables inside all of them and releases them; T1 then writes the same variables (4N events,
// in memory: reading and validation excluded). Three variants: T0 releases innermost first
// (BM_Nested), outermost first (BM_NestedOuter), or T1 takes the same N locks around its
// writes (BM_NestedShared, 6N events). Every engine's cost per event is about the same at every
// N (docs/PERFORMANCE.md "Deep nesting").
//
//   build/bench/nesting_bench [--benchmark_filter=wcp] [--benchmark_min_time=0.1s]
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "engine_loop.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace {

enum Variant { kInner, kOuter, kShared };

const Trace& nested(int64_t n, Variant v) {
  static std::map<std::pair<int64_t, int>, Trace> cache;
  auto it = cache.find({n, v});
  if (it == cache.end()) {
    std::string text;
    for (int64_t i = 0; i < n; ++i) text += "T0|acq(l" + std::to_string(i) + ")|1\n";
    for (int64_t i = 0; i < n; ++i) text += "T0|w(x" + std::to_string(i) + ")|2\n";
    if (v == kOuter)
      for (int64_t i = 0; i < n; ++i) text += "T0|rel(l" + std::to_string(i) + ")|3\n";
    else
      for (int64_t i = n; i-- > 0;) text += "T0|rel(l" + std::to_string(i) + ")|3\n";
    if (v == kShared)
      for (int64_t i = 0; i < n; ++i) text += "T1|acq(l" + std::to_string(i) + ")|5\n";
    for (int64_t i = 0; i < n; ++i) text += "T1|w(x" + std::to_string(i) + ")|4\n";
    if (v == kShared)
      for (int64_t i = n; i-- > 0;) text += "T1|rel(l" + std::to_string(i) + ")|6\n";
    it = cache.emplace(std::make_pair(n, int{v}), parse_trace(text)).first;
  }
  return it->second;
}

void BM_Nested(benchmark::State& state, const std::string& engine, Variant v) {
  const Trace& t = nested(state.range(0), v);
  run_engine_loop(state, t, engine);
}

[[maybe_unused]] const bool registered = [] {
  const std::pair<const char*, Variant> variants[] = {
      {"BM_Nested/", kInner}, {"BM_NestedOuter/", kOuter}, {"BM_NestedShared/", kShared}};
  for (const EngineInfo& info : engine_registry()) {
    if (info.mode != EngineMode::Online) continue;
    for (const auto& [prefix, v] : variants)
      benchmark::RegisterBenchmark((prefix + info.name).c_str(), BM_Nested, info.name, v)
          ->Arg(2000)
          ->Arg(10000)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  }
  return true;
}();

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
