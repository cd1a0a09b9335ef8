// The analyze pipeline on a trace file, with and without the reader thread.
//   RACEPRED_BENCH_TRACE=big.std build/release/bench/pipeline_bench
// Without RACEPRED_BENCH_TRACE it uses the largest public STD trace (tests/data/std, gzipped).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "racepred/driver/pipeline.hpp"

namespace racepred {
namespace {

std::string trace_path() {
  const char* env = std::getenv("RACEPRED_BENCH_TRACE");
  return env ? env : RACEPRED_SOURCE_DIR "/tests/data/std/bufwriter.std.gz";
}

void BM_Pipeline(benchmark::State& state) {
  PipelineOptions options;
  options.threaded = state.range(0) != 0;
  options.max_races = 1000;
  const auto engines = resolve_engines({"lockset"});
  uint64_t events = 0;
  double engine_seconds = 0;
  for (auto _ : state) {
    const PipelineResult result = run_pipeline(trace_path(), engines, options);
    events = result.events;
    engine_seconds += result.runs[0].seconds;
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["engine_s"] = engine_seconds / static_cast<double>(state.iterations());
  state.SetLabel(options.threaded ? "reader thread" : "one thread");
}
BENCHMARK(BM_Pipeline)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
