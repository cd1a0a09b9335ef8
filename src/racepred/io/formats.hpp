// The trace format registry: one table with every format racepred reads or writes (its name,
// how it is recognised, its reader and its writer). docs/FORMATS.md describes each format.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/io/reader.hpp"
#include "racepred/io/trace_writer.hpp"

namespace racepred {

namespace io {
struct Input;
}  // namespace io

struct TraceFormat {
  InputFormat id;
  std::string_view name;         // the value of --input-format and convert --to
  std::string_view description;  // one line, for --help and docs
  bool binary;                   // judged by its first bytes, not by its first event line
  // Recognises the format: text formats see the first event line (not blank, not a '#'
  // comment, without '\r'), binary formats the first bytes of the input.
  bool (*detect)(std::string_view);
  void (*read)(io::Input& input, std::string_view name, const ReadOptions& options,
               Symbols& symbols, EventConsumer& consumer, ReadSummary& summary);
  // nullptr when racepred cannot write the format.
  void (*write)(const Trace& trace, const WriteOptions& options, const std::string& path);
};

// Every format, in the order auto-detection tries them (STD, the fallback, first in the table
// but tried last).
std::span<const TraceFormat> trace_formats();
const TraceFormat& format_of(InputFormat id);
// nullptr for an unknown name.
const TraceFormat* find_format(std::string_view name);
// "auto" and every format name: the choices of --input-format.
std::vector<std::string> input_format_names();
// The names of the formats racepred writes: the choices of convert --to.
std::vector<std::string> output_format_names();

// Recognises the format of the (decompressed) start of an input. nullopt when `head` ends
// before the decision can be made and `complete` is false.
// `guessed` (optional) is set to whether the choice was a guess, i.e. anything but STD taken
// from a line with '|': errors of a guessed format name it and how to choose another.
std::optional<InputFormat> detect_format(std::string_view head, bool complete = true,
                                         bool* guessed = nullptr);

// Writes `trace` in `format` to `path` ("-" is standard output). Throws UsageError when the
// format cannot hold the trace without loss (see WriteOptions), InputError on write errors.
void write_trace(const Trace& trace, InputFormat format, const std::string& path,
                 const WriteOptions& options = {});

}  // namespace racepred
