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
// "fuzz.std: error: byte OFFSET: …", or for errors about the whole input "fuzz.std: error: …".
inline void check_input_error(const InputError& e) {
  static const std::regex where(R"(^fuzz\.std(:[0-9]+:[0-9]+)?: error: .+)");
  if (!std::regex_search(e.what(), where)) {
    std::fprintf(stderr, "input error without FILE:LINE:COL: %s\n", e.what());
    std::abort();
  }
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
      if (line_based && summary.delivered > summary.event_lines) std::abort();
    } catch (const InputError& e) {
      if (line_based && options.lenient && options.format == format) std::abort();
      check_input_error(e);
    }
  }
}

}  // namespace racepred::fuzz
