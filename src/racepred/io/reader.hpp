// Trace readers: STD (DESIGN.md "Input: STD format") and SpeedyGo CSV (docs/FORMATS.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/trace/error.hpp"
#include "racepred/trace/trace.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred {

enum class InputFormat { Auto, Std, SpeedyGo };

// "auto", "std", "speedygo".
std::string_view input_format_name(InputFormat format);
// Every name parse_input_format accepts, "auto" first: the choices of --input-format.
std::vector<std::string> input_format_names();

// Limits on hostile input (docs/FORMATS.md "Limits"): a longer line is an error naming it, so
// that a file without newlines (/dev/zero) cannot exhaust memory.
inline constexpr size_t kMaxLineBytes = size_t{1} << 20;
// Parses a name as above; nullopt for anything else.
std::optional<InputFormat> parse_input_format(std::string_view name);
// The format of a text judged by its first event line (not blank, not a '#' comment): a line with
// '|' is STD, a line starting with a digit and holding a ',' is SpeedyGo, anything else STD (so
// that its error names the STD grammar). nullopt when `text` ends before the first event line
// ends and `complete` is false.
std::optional<InputFormat> detect_input_format(std::string_view text, bool complete = true);

struct ReadOptions {
  InputFormat format = InputFormat::Auto;
  // Skip malformed lines (counted in ReadSummary) instead of throwing InputError.
  bool lenient = false;
};

// How many malformed-line messages a lenient read keeps (ReadSummary::malformed_examples).
inline constexpr size_t kMalformedExamples = 5;

// Streams the events of `path` ("-" reads standard input) into `consumer` in file order,
// interning names into `symbols`. Throws InputError naming FILE:LINE:COL on a malformed line.
// Does not call consumer.on_end(); the caller decides when the stream ends.
// Regular files are memory-mapped; standard input and pipes are read in large chunks (STD is
// streamed; SpeedyGo needs the whole text for its signal/wait pairing).
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

// Whole trace in memory after the validator (Def. 3.2 with the policy of DESIGN.md): re-entrant
// lock pairs are dropped; under Strict an ill-formed trace throws InputError, under Lenient and
// Collect the offending events are dropped. The validator's report goes to `report` if given.
Trace load_checked_trace(const std::string& path, const ReadOptions& options = {},
                         ValidationMode mode = ValidationMode::Strict,
                         ValidationReport* report = nullptr);
Trace parse_checked_trace(std::string_view text, const ReadOptions& options = {},
                          ValidationMode mode = ValidationMode::Strict,
                          ValidationReport* report = nullptr, std::string_view name = "<string>");

}  // namespace racepred
