// The binary trace format against STD: size per event, and reading speed (read + intern,
// events delivered to a consumer that only sums them).
//
//   binary_format_bench [--trace=FILE.std] [benchmark flags]
//
// FILE defaults to bench/data/t8_5m.std (bench/run.sh generates it with `racepred generate
// --threads 8 --events 5000000 --seed 1`). The binary copies (the default LZ4 level 4, zstd
// level 3 and uncompressed) are written next to it before timing; their sizes are printed.
// CPU time counts the helper thread that decompresses ahead of the decoder.
#include <benchmark/benchmark.h>
#include <sys/stat.h>

#include <cstring>
#include <iostream>
#include <string>

#include "racepred/io/binary_writer.hpp"
#include "racepred/io/reader.hpp"

namespace {

std::string g_trace = std::string(RACEPRED_SOURCE_DIR) + "/bench/data/t8_5m.std";
std::string g_lz4, g_zstd, g_raw;

class Sink : public racepred::EventConsumer {
 public:
  void on_event(racepred::EventId id, const racepred::Event& e, uint32_t) override {
    sum_ += id ^ e.target;
  }
  void on_events(std::span<const racepred::EventId> ids,
                 std::span<const racepred::Event> events) override {
    for (size_t i = 0; i < events.size(); ++i) sum_ += ids[i] ^ events[i].target;
  }
  uint64_t sum() const { return sum_; }

 private:
  uint64_t sum_ = 0;
};

size_t file_size(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
}

void read_file(benchmark::State& state, const std::string& path) {
  uint64_t events = 0;
  for (auto _ : state) {
    racepred::Symbols symbols;
    Sink sink;
    events = racepred::read_events(path, {}, symbols, sink).delivered;
    benchmark::DoNotOptimize(sink.sum());
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["bytes/event"] =
      static_cast<double>(file_size(path)) / static_cast<double>(events ? events : 1);
}

void BM_ReadStd(benchmark::State& state) {
  read_file(state, g_trace);
}
void BM_ReadBinaryLz4(benchmark::State& state) {
  read_file(state, g_lz4);
}
void BM_ReadBinaryZstd(benchmark::State& state) {
  read_file(state, g_zstd);
}
void BM_ReadBinaryUncompressed(benchmark::State& state) {
  read_file(state, g_raw);
}
BENCHMARK(BM_ReadStd)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_ReadBinaryLz4)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_ReadBinaryZstd)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_ReadBinaryUncompressed)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

void convert(const std::string& to, racepred::format::Codec codec, int level) {
  racepred::Symbols symbols;
  racepred::BinaryWriteOptions options;
  options.codec = codec;
  options.level = level;
  racepred::BinaryWriter writer(symbols, to, options);
  const auto summary = racepred::read_events(g_trace, {}, symbols, writer);
  writer.on_end();
  writer.close();
  std::cout << to << ": " << file_size(to) << " bytes, "
            << static_cast<double>(file_size(to)) / static_cast<double>(summary.delivered)
            << " bytes/event (STD: "
            << static_cast<double>(file_size(g_trace)) / static_cast<double>(summary.delivered)
            << ")\n";
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--trace=", 8) == 0) g_trace = argv[i] + 8;
  if (file_size(g_trace) == 0) {
    std::cerr << g_trace << ": missing (bench/run.sh generates it)\n";
    return 1;
  }
  g_lz4 = g_trace + ".lz4.rpt";
  g_zstd = g_trace + ".zstd.rpt";
  g_raw = g_trace + ".raw.rpt";
  convert(g_lz4, racepred::format::kCodecLz4, 4);
  convert(g_zstd, racepred::format::kCodecZstd, 3);
  convert(g_raw, racepred::format::kCodecNone, 0);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  std::remove(g_lz4.c_str());
  std::remove(g_zstd.c_str());
  std::remove(g_raw.c_str());
  return 0;
}
