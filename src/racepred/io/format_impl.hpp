// The readers and writers behind the format registry (io/formats.hpp), one pair per format
// (docs/FORMATS.md). Internal to io/; the line parsers are exposed for tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "racepred/io/input.hpp"
#include "racepred/io/line_reader.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/io/trace_writer.hpp"

namespace racepred::io {

// The input of a reader: the whole (decompressed) input in memory, or a stream of it.
struct Input {
  std::string_view text;               // the whole input, when `stream` is null
  const char* readable_end = nullptr;  // readable memory after `text` (>= text end)
  bool mapped = false;                 // `text` is a mapped file (STD parses it in windows)
  ChunkReader* stream = nullptr;       // otherwise: whole lines (text) or raw bytes (binary)
};

// Feeds a line parser from the input (the stream's blocks, or the whole text).
template <class Parser>
void read_lines(Parser& parser, Input& in, std::string_view name, const ReadOptions& options,
                Symbols& symbols, EventConsumer& consumer, ReadSummary& summary) {
  LineReader<Parser> reader(parser, name, options, symbols, consumer, summary);
  if (in.stream) {
    for (std::string_view block = in.stream->next(); !block.empty(); block = in.stream->next())
      reader.parse(block);
  } else {
    reader.parse(in.text);
  }
  parser.finish(reader);
  reader.finish();
}

// RAPID's CSV: one column per thread, one `op(arg)` cell per line (parse/csv of RAPID).
class RapidCsvLineParser {
 public:
  LineResult parse(std::string_view line, uint64_t line_number);
  template <class R>
  void finish(R&) {}

 private:
  size_t columns_ = 0;  // of the first event line; every event line has as many
  char thread_[24];
  char location_[24];
};

// RoadRunner's event log as printed by RAPID's PrintSubsetTool (`@  Rd(1,x)  SHADOW  LOC`).
class RoadRunnerLineParser {
 public:
  LineResult parse(std::string_view line, uint64_t line_number);
  // An input without a single '@' event line is not a RoadRunner log: an error, not an empty
  // trace.
  template <class R>
  void finish(R& reader) {
    if (reader.event_lines() == 0 && other_lines_ > 0)
      reader.fail_file("no RoadRunner event line ('@ Rd(...)', '@ Acquire(...)', ...) in " +
                       std::to_string(other_lines_) + " non-blank lines: not a RoadRunner log");
  }

 private:
  uint64_t other_lines_ = 0;
};

// LockFrame's native CSV: `TID,OP,ID` (a fourth field is racepred's location).
class LockFrameLineParser {
 public:
  LineResult parse(std::string_view line, uint64_t line_number);
  template <class R>
  void finish(R&) {}

 private:
  char thread_[24];
  char target_[24];
  char location_[24];
};

void read_std(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
              EventConsumer& consumer, ReadSummary& summary);
void read_speedygo(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                   EventConsumer& consumer, ReadSummary& summary);
void read_rapid_csv(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                    EventConsumer& consumer, ReadSummary& summary);
void read_roadrunner(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                     EventConsumer& consumer, ReadSummary& summary);
void read_lockframe(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                    EventConsumer& consumer, ReadSummary& summary);
void read_rapidbin(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                   EventConsumer& consumer, ReadSummary& summary);

void write_std(const Trace& trace, const WriteOptions& options, const std::string& path);
void write_speedygo(const Trace& trace, const WriteOptions& options, const std::string& path);
void write_rapid_csv(const Trace& trace, const WriteOptions& options, const std::string& path);
void write_roadrunner(const Trace& trace, const WriteOptions& options, const std::string& path);
void write_lockframe(const Trace& trace, const WriteOptions& options, const std::string& path);
void write_rapidbin(const Trace& trace, const WriteOptions& options, const std::string& path);

// racepred's binary format (io/binary_reader.*, io/binary_writer.*; docs/FORMATS.md "Binary").
void read_binary(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                 EventConsumer& consumer, ReadSummary& summary);
void write_binary(const Trace& trace, const WriteOptions& options, const std::string& path);

// RapidBin layout (docs/FORMATS.md): an 18-byte big-endian header, then one big-endian 64-bit
// word per event.
inline constexpr size_t kRapidBinHeader = 18;
inline constexpr unsigned kRapidBinThreadBits = 10, kRapidBinOpBits = 4, kRapidBinDecorBits = 34,
                          kRapidBinLocationBits = 15;

}  // namespace racepred::io
