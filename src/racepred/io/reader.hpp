// Trace readers: STD (docs/FORMATS.md), SpeedyGo CSV, RAPID CSV, RoadRunner,
// LockFrame and RapidBin, plain or compressed (gzip, zstd, xz); docs/FORMATS.md. The formats
// themselves are listed in one table, io/formats.hpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/trace/error.hpp"
#include "racepred/trace/trace.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred {

// Every format of the registry (io/formats.hpp), plus Auto (recognise it). racepred's own binary
// format adds its value here and its row to the table in io/formats.cpp.
enum class InputFormat { Auto, Std, SpeedyGo, RapidCsv, RoadRunner, LockFrame, RapidBin, Binary };

// "auto", or the format's registry name ("std", "speedygo", "csv", "rr", "lockframe",
// "rapidbin", "binary").
std::string_view input_format_name(InputFormat format);

// Limits on hostile input (docs/FORMATS.md "Limits"): a longer line is an error naming it, so
// that a file without newlines (/dev/zero) cannot exhaust memory.
inline constexpr size_t kMaxLineBytes = size_t{1} << 20;
// Parses a name as above; nullopt for anything else.
std::optional<InputFormat> parse_input_format(std::string_view name);
// The format of the (decompressed) start of an input: detect_format of io/formats.hpp
// (docs/FORMATS.md, "Choosing the format"). nullopt when `text` ends before the decision can be
// made and `complete` is false.
std::optional<InputFormat> detect_input_format(std::string_view text, bool complete = true);

struct ReadOptions {
  InputFormat format = InputFormat::Auto;
  // Skip malformed lines (counted in ReadSummary) instead of throwing InputError.
  bool lenient = false;
};

// How many malformed-line messages a lenient read keeps (ReadSummary::malformed_examples).
inline constexpr size_t kMalformedExamples = 5;

// Streams the events of `path` ("-" reads standard input) into `consumer` in file order,
// interning names into `symbols`. Throws InputError naming FILE:LINE:COL (byte offset for
// binary formats) on malformed input. Does not call consumer.on_end(); the caller decides when
// the stream ends. Regular files are memory-mapped; standard input, pipes and compressed input
// (recognised by its magic bytes) are streamed in large chunks with bounded memory (SpeedyGo
// alone needs its whole text for its signal/wait pairing).
ReadSummary read_events(const std::string& path, const ReadOptions& options, Symbols& symbols,
                        EventConsumer& consumer);

// The same over bytes in memory (plain or compressed); `name` stands for the file name in
// messages.
ReadSummary read_events_from_string(std::string_view text, std::string_view name,
                                    const ReadOptions& options, Symbols& symbols,
                                    EventConsumer& consumer);

// Whole trace in memory, without validation.
Trace load_trace(const std::string& path, const ReadOptions& options = {});
Trace parse_trace(std::string_view text, const ReadOptions& options = {},
                  std::string_view name = "<string>");

// Whole trace in memory after the validator (Def. 3.2 with the policy of docs/WELLFORMEDNESS.md):
// re-entrant lock pairs are dropped; under Strict an ill-formed trace throws InputError, under
// Lenient and Collect the offending events are dropped. The validator's report goes to `report` if
// given.
Trace load_checked_trace(const std::string& path, const ReadOptions& options = {},
                         ValidationMode mode = ValidationMode::Strict,
                         ValidationReport* report = nullptr);
Trace parse_checked_trace(std::string_view text, const ReadOptions& options = {},
                          ValidationMode mode = ValidationMode::Strict,
                          ValidationReport* report = nullptr, std::string_view name = "<string>");

}  // namespace racepred
