// Many threads on one variable (a goroutine flood): N threads, no forks, each writes x once at a
// location of its own, so every pair of writes races (N(N-1)/2 races, as many location pairs).
// Each online engine alone over the trace in memory, 1000 races kept (the default), the rest
// counted.
//
//   build/bench/flood_bench [--benchmark_filter=shb] [--benchmark_min_time=0.1s]
#include <benchmark/benchmark.h>

#include <string>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace {

const Trace& flood(uint32_t n) {
  static Trace t;
  static uint32_t made = 0;
  if (made != n) {
    std::string text;
    for (uint32_t i = 0; i < n; ++i) {
      const std::string k = std::to_string(i);
      text.append("T").append(k).append("|w(x)|").append(k).append("\n");
    }
    t = parse_checked_trace(text);
    made = n;
  }
  return t;
}

void BM_Flood(benchmark::State& state, const char* engine) {
  const Trace& t = flood(static_cast<uint32_t>(state.range(0)));
  const EngineInfo* info = find_engine(engine);
  uint64_t races = 0, pairs = 0;
  for (auto _ : state) {
    const RaceSink sink = run_engine(*info, t, 1000);
    races = sink.race_count();
    pairs = sink.location_pair_count();
    benchmark::DoNotOptimize(races);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.size()));
  state.counters["races"] = static_cast<double>(races);
  state.counters["location_pairs"] = static_cast<double>(pairs);
}

#define FLOOD(id, name) \
  BENCHMARK_CAPTURE(BM_Flood, id, name)->Arg(3000)->Arg(20000)->Unit(benchmark::kMillisecond)
FLOOD(fasttrack, "fasttrack");
FLOOD(lockset, "lockset");
FLOOD(goldilocks, "goldilocks");
FLOOD(hb_pairs, "hb-pairs");
FLOOD(tsan1, "tsan1");
FLOOD(djit, "djit");
FLOOD(hb_epochs, "hb-epochs");
FLOOD(hb_adaptive, "hb-adaptive");
FLOOD(shb, "shb");
FLOOD(wcp, "wcp");
FLOOD(wdc, "wdc");
FLOOD(dc_tp, "dc-tp");
FLOOD(wdp, "wdp");
FLOOD(pwr, "pwr");
FLOOD(pwr_edges, "pwr-edges");
FLOOD(pwr_cs, "pwr-cs");
FLOOD(pwr_e, "pwr-e");

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
