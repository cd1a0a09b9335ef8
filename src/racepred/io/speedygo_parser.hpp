// SpeedyGo CSV traces (`TID,OP,ID,SRCREF,N`, tests/data/speedygo) and their translation into
// racepred events (docs/FORMATS.md, "SpeedyGo CSV"). Internal to io/; exposed for tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "racepred/io/reader.hpp"

namespace racepred::io {

struct SpeedyGoLine {
  enum class Kind { Event, Signal, Wait, Skipped, Blank, Error };
  Kind kind = Kind::Error;
  Op op = Op::Read;  // Event: Read, Write, Acquire, Release
  uint64_t thread = 0;
  uint64_t id = 0;            // field 3: variable or lock
  uint64_t channel = 0;       // field 5: the channel of SIG/WT and their *JOIN variants
  bool join_family = false;   // SIGNALJOIN/WAITJOIN (paired among themselves), not SIG/WT
  std::string_view op_name;   // the op (a static string)
  std::string_view location;  // SRCREF
  size_t column = 0;          // 1-based, when kind == Error
  std::string message;
};

// `line` is one line without its '\n'; a trailing '\r' is ignored.
SpeedyGoLine parse_speedygo_line(std::string_view line);

// Reads a whole SpeedyGo text (two passes: the first pairs signals with waits).
void parse_speedygo(std::string_view text, std::string_view file_name, const ReadOptions& options,
                    Symbols& symbols, EventConsumer& consumer, ReadSummary& summary);

}  // namespace racepred::io
