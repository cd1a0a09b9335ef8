// Reading racepred's binary trace format (docs/FORMATS.md "Binary", format/).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "racepred/io/reader.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {

// True when `head` (the first bytes of an input) starts with the binary trace magic.
bool is_binary_trace(std::string_view head);

// Streams the events of a binary trace held in memory into `consumer`, interning its names
// into `symbols` (which must not already hold names of another trace). `name` stands for the
// file in messages. Throws InputError naming the byte offset of a malformed block or event. A
// file cut short (no trailer, or a partial last block: what a crash leaves) is an error, unless
// options.lenient: then the complete blocks before the cut are read and the cut is counted as
// one malformed record in `summary`.
void read_binary_events(std::string_view data, std::string_view name, const ReadOptions& options,
                        Symbols& symbols, EventConsumer& consumer, ReadSummary& summary);

// What the index of a binary trace says, without decoding events.
struct BinaryTraceInfo {
  bool complete = false;      // header, blocks, index and trailer are all present
  uint64_t events = 0;        // events in the complete blocks
  uint64_t event_blocks = 0;  // events blocks
  uint64_t valid_bytes = 0;   // length of the prefix made of whole, checksummed blocks
  uint64_t file_bytes = 0;
};
// Throws InputError when `path` is not a binary trace.
BinaryTraceInfo binary_trace_info(const std::string& path);

// Makes a cut-short binary trace whole: truncates it after its last complete block and appends
// the index and trailer. Returns the info of the repaired file; a complete file is left alone.
// Throws InputError when `path` is not a binary trace or cannot be written.
BinaryTraceInfo repair_binary_trace(const std::string& path);

}  // namespace racepred
