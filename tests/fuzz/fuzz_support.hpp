// Shared driver of the libFuzzer targets: an input ends in a result or in an InputError whose
// message names where the problem is; anything else (another exception, a signal, a sanitizer
// report) is a finding.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <string_view>

#include "racepred/io/reader.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred::fuzz {

inline constexpr const char* kName = "fuzz.std";

// An input error names the input and where: "fuzz.std:LINE:COL: error: …", for binary formats
// "fuzz.std: byte OFFSET: error: …", for errors about the whole input "fuzz.std: error: …", and
// for an event an engine cannot analyse "error: event ID (OP): …".
inline void check_input_error(const InputError& e) {
  static const std::regex where(
      R"(^fuzz\.std(:[0-9]+:[0-9]+|: byte [0-9]+)?: error: .+|^error: event [0-9]+ .+)");
  if (!std::regex_search(e.what(), where)) {
    std::fprintf(stderr, "input error without FILE:LINE:COL: %s\n", e.what());
    std::abort();
  }
}

inline bool compressed(std::string_view b) {
  return b.starts_with("\x1f\x8b") || b.starts_with("\x28\xb5\x2f\xfd") ||
         b.starts_with(std::string_view("\xfd"
                                        "7zXZ\0",
                                        6));
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

class Discard : public EventConsumer {
 public:
  void on_event(EventId, const Event&, uint32_t) override {}
};

// Reads `bytes` as `format` (strict and --lenient) and with auto-detection (--lenient), through
// the validator as `check` runs it. `line_based`: a text format whose --lenient read skips every
// malformed line, so that it never fails, and delivers at most one event per event line.
inline void read_every_way(std::string_view bytes, InputFormat format, bool line_based) {
  for (const ReadOptions& options : {ReadOptions{format, false}, ReadOptions{format, true},
                                     ReadOptions{InputFormat::Auto, true}}) {
    Symbols symbols;
    Discard sink;
    Validator validator(symbols, ValidationOptions{ValidationMode::Collect, kName}, sink);
    try {
      const ReadSummary summary =
          read_events_from_string(bytes, kName, options, symbols, validator);
      validator.on_end();
      // (Auto-detection may take the bytes for a binary format: then lines say nothing.)
      if (line_based && options.format == format && summary.delivered > summary.event_lines)
        std::abort();
    } catch (const InputError& e) {
      // A lenient line-based read skips malformed lines and never fails, unless the bytes are a
      // corrupt compressed stream (gzip, zstd, xz), which no line can be read from.
      if (line_based && options.lenient && options.format == format && !compressed(bytes))
        std::abort();
      check_input_error(e);
    }
  }
}

}  // namespace racepred::fuzz
