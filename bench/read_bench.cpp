// Reading speed: read + intern (+ validate) a trace file, in events/s and bytes/s.
//
//   read_bench [--trace=FILE] [benchmark flags]
//
// FILE defaults to bench/data/t8_5m.std (bench/run.sh generates it with `racepred generate`).
#include <benchmark/benchmark.h>
#include <sys/stat.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "racepred/io/reader.hpp"
#include "racepred/trace/validator.hpp"

namespace {

std::string g_trace = std::string(RACEPRED_SOURCE_DIR) + "/bench/data/t8_5m.std";

// Sums what it receives so that nothing is optimised away.
class Sink : public racepred::EventConsumer {
 public:
  void on_event(racepred::EventId id, const racepred::Event& e, uint32_t) override {
    sum_ += id ^ e.target;
  }
  uint64_t sum() const { return sum_; }

 private:
  uint64_t sum_ = 0;
};

size_t file_size(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
}

void report(benchmark::State& state, uint64_t events) {
  const double iterations = static_cast<double>(state.iterations());
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events) * iterations, benchmark::Counter::kIsRate);
  state.counters["events"] = static_cast<double>(events);
  state.SetBytesProcessed(static_cast<int64_t>(file_size(g_trace) * state.iterations()));
}

// What every analysis pays before its engines: read, intern, validate (Strict).
void BM_ReadInternValidate(benchmark::State& state) {
  uint64_t events = 0;
  for (auto _ : state) {
    racepred::Symbols symbols;
    Sink sink;
    racepred::Validator validator(symbols, {racepred::ValidationMode::Strict, g_trace}, sink);
    const racepred::ReadSummary summary = racepred::read_events(g_trace, {}, symbols, validator);
    validator.on_end();
    events = summary.delivered;
    benchmark::DoNotOptimize(sink.sum());
  }
  report(state, events);
}
BENCHMARK(BM_ReadInternValidate)->Unit(benchmark::kMillisecond)->UseRealTime();

// The reader alone.
void BM_ReadIntern(benchmark::State& state) {
  uint64_t events = 0;
  for (auto _ : state) {
    racepred::Symbols symbols;
    Sink sink;
    events = racepred::read_events(g_trace, {}, symbols, sink).delivered;
    benchmark::DoNotOptimize(sink.sum());
  }
  report(state, events);
}
BENCHMARK(BM_ReadIntern)->Unit(benchmark::kMillisecond)->UseRealTime();

// The whole trace into memory (what offline tools do).
void BM_LoadCheckedTrace(benchmark::State& state) {
  uint64_t events = 0;
  for (auto _ : state) {
    const racepred::Trace trace = racepred::load_checked_trace(g_trace);
    events = trace.size();
    benchmark::DoNotOptimize(trace.events.data());
  }
  report(state, events);
}
BENCHMARK(BM_LoadCheckedTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--trace=", 8) == 0)
      g_trace = argv[i] + 8;
    else
      args.push_back(argv[i]);
  }
  if (file_size(g_trace) == 0) {
    std::cerr << "read_bench: no trace at " << g_trace
              << " (run bench/run.sh BUILD_DIR, or pass --trace=FILE)\n";
    return 2;
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
