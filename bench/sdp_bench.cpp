// sdp (engines/po/sdp.cpp) on 1M-event traces generated in memory: the generator's default shape
// with 8 threads, and lock-protected counters (every critical section of one lock writes one of
// four shared variables, 8 and 16 threads) — the shapes on which keeping every S4 pair was
// quadratic. Equal ns/event at 250K and 1M events means linear time. The presets modelled on the
// DaCapo programs (racepred generate --preset) are measured end to end, against wcp and
// fasttrack, by bench/sdp_presets.sh on 1M-event cuts (docs/PERFORMANCE.md).
//
//   build/bench/sdp_bench [--benchmark_min_time=0.1]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "engine_loop.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace {

Trace counter_trace(uint64_t events, uint32_t threads) {
  std::string s;
  uint64_t r = 12345;
  for (uint64_t k = 0; k < events / 4; ++k) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    const std::string t = std::to_string((r >> 33) % threads), c = std::to_string((r >> 40) % 4);
    for (const char* op : {"acq(L", "r(c", "w(c", "rel(L"}) {
      s += 'T';
      s += t;
      s += '|';
      s += op;
      if (op[1] == '(') s += c;  // r(cK), w(cK)
      s += ")|a\n";
    }
  }
  return parse_trace(s);
}

// shape 0: the generator (8 threads, its defaults); 1: counters with range(2) threads.
const Trace& trace(int shape, uint64_t events, uint32_t threads) {
  static std::map<std::tuple<int, uint64_t, uint32_t>, Trace> cache;
  const auto key = std::make_tuple(shape, events, threads);
  auto it = cache.find(key);
  if (it == cache.end()) {
    Trace t;
    if (shape == 0) {
      GeneratorOptions o;
      o.threads = threads;
      o.events = events;
      o.seed = 1;
      t = generate_trace(o);
    } else {
      t = counter_trace(events, threads);
    }
    it = cache.emplace(key, std::move(t)).first;
  }
  return it->second;
}

void BM_Sdp(benchmark::State& state) {
  const Trace& t = trace(static_cast<int>(state.range(0)), static_cast<uint64_t>(state.range(1)),
                         static_cast<uint32_t>(state.range(2)));
  run_engine_loop(state, t, "sdp");
}
BENCHMARK(BM_Sdp)
    ->ArgNames({"counters", "events", "threads"})
    ->Args({0, 250'000, 8})
    ->Args({0, 1'000'000, 8})
    ->Args({1, 250'000, 8})
    ->Args({1, 1'000'000, 8})
    ->Args({1, 1'000'000, 16})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
