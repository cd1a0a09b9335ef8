// Trace readers: STD (DESIGN.md "Input: STD format") and SpeedyGo CSV.
#pragma once

#include <string>
#include <string_view>

#include "racepred/trace/error.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {

enum class InputFormat { Auto, Std, SpeedyGo };

struct ReadOptions {
  InputFormat format = InputFormat::Auto;
  // Skip malformed lines (counted in ReadSummary) instead of throwing InputError.
  bool lenient = false;
};

// Streams the events of `path` ("-" reads standard input) into `consumer` in file order,
// interning names into `symbols`. Throws InputError naming FILE:LINE:COL on a malformed line.
// Does not call consumer.on_end(); the caller decides when the stream ends.
ReadSummary read_events(const std::string& path, const ReadOptions& options, Symbols& symbols,
                        EventConsumer& consumer);

// The same over text in memory; `name` stands for the file name in messages.
ReadSummary read_events_from_string(std::string_view text, std::string_view name,
                                    const ReadOptions& options, Symbols& symbols,
                                    EventConsumer& consumer);

// Whole trace in memory, without validation.
Trace load_trace(const std::string& path, const ReadOptions& options = {});
Trace parse_trace(std::string_view text, const ReadOptions& options = {},
                  std::string_view name = "<string>");

}  // namespace racepred
