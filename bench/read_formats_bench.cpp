// Reading speed of every trace format and of compressed input: one random trace (1M events,
// 8 threads, `racepred generate` defaults otherwise) written in each format, then read back
// (read + intern, the reader alone), in events/s and input bytes/s.
//
//   read_formats_bench [--events=N] [benchmark flags]
//
// The files go to $TMPDIR (default /tmp) and are removed at the end.
#include <benchmark/benchmark.h>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "racepred/io/formats.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/generator.hpp"

namespace {

class Sink : public racepred::EventConsumer {
 public:
  void on_event(racepred::EventId id, const racepred::Event& e, uint32_t) override {
    sum_ += id ^ e.target;
  }
  uint64_t sum() const { return sum_; }

 private:
  uint64_t sum_ = 0;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string gzip(const std::string& in) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, in.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}
std::string zstd(const std::string& in) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3));
  return out;
}
std::string xz(const std::string& in) {
  std::string out(lzma_stream_buffer_bound(in.size()), '\0');
  size_t pos = 0;
  lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(in.data()),
                          in.size(), reinterpret_cast<uint8_t*>(out.data()), &pos, out.size());
  out.resize(pos);
  return out;
}

struct Input {
  std::string label;
  std::string path;
  size_t bytes;
};
std::vector<Input> g_inputs;

void BM_Read(benchmark::State& state, const Input* input) {
  uint64_t events = 0;
  for (auto _ : state) {
    racepred::Symbols symbols;
    Sink sink;
    events = racepred::read_events(input->path, {}, symbols, sink).delivered;
    benchmark::DoNotOptimize(sink.sum());
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events) * iterations, benchmark::Counter::kIsRate);
  state.counters["file_MB"] = static_cast<double>(input->bytes) / 1e6;
  state.SetBytesProcessed(static_cast<int64_t>(input->bytes * state.iterations()));
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t events = 1000000;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--events=", 9) == 0)
      events = std::strtoull(argv[i] + 9, nullptr, 10);
    else
      args.push_back(argv[i]);
  }
  int n = static_cast<int>(args.size());
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir =
      std::string(tmp ? tmp : "/tmp") + "/racepred_read_formats_" + std::to_string(getpid());
  mkdir(dir.c_str(), 0700);

  racepred::GeneratorOptions g;
  g.events = events;
  g.threads = 8;
  const racepred::Trace trace = racepred::generate_trace(g);
  // CSV has no locations and RoadRunner none on synchronisation: let them lose those.
  const racepred::WriteOptions lossy{true};
  for (const racepred::TraceFormat& f : racepred::trace_formats()) {
    const std::string path = dir + "/trace." + std::string(f.name);
    racepred::write_trace(trace, f.id, path, lossy);
    g_inputs.push_back({std::string(f.name), path, slurp(path).size()});
  }
  const std::string plain = slurp(dir + "/trace.std");
  for (const auto& [label, bytes] : {std::pair<std::string, std::string>{"std.gz", gzip(plain)},
                                     {"std.zst", zstd(plain)},
                                     {"std.xz", xz(plain)}}) {
    const std::string path = dir + "/trace." + label;
    std::ofstream(path, std::ios::binary) << bytes;
    g_inputs.push_back({label, path, bytes.size()});
  }
  for (const Input& input : g_inputs)
    benchmark::RegisterBenchmark(("BM_Read/" + input.label).c_str(), BM_Read, &input)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();

  benchmark::Initialize(&n, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const Input& input : g_inputs) std::remove(input.path.c_str());
  rmdir(dir.c_str());
  return 0;
}
