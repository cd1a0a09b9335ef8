// The options several subcommands share, declared once (same names, help texts and choices
// everywhere): input format, report format, output file, quiet, lenient, max races, and the
// engines' settings of engines/options.def.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "racepred/engines/engine.hpp"
#include "racepred/io/reader.hpp"

namespace racepred::cli {

// What every report-writing command knows about its output (filled by add_report_options).
struct ReportOptions {
  std::string command;                     // "analyze", "check", …: the JSON "command" field
  std::string format = "text";             // text | json (| sarif | html)
  std::string output;                      // -o FILE; empty: standard output
  bool quiet = false;                      // -q: no notes, warnings or progress on stderr
  std::vector<const std::string*> inputs;  // the input paths: -o must not name one of them
  std::string color = "auto";              // --color: never | always | auto
  bool json() const { return format == "json"; }
  bool sarif() const { return format == "sarif"; }
  bool html() const { return format == "html"; }
};

// --format text|json (text|json|sarif|html with `with_ci`), -o/--output FILE, -q/--quiet.
void add_report_options(CLI::App* sub, ReportOptions& options, bool with_ci = false);
// --color=never|always|auto for a text report.
void add_color_option(CLI::App* sub, ReportOptions& options);
// Whether the text report is coloured: always; never; auto: when it goes to standard output,
// that is a terminal, NO_COLOR is unset or empty and TERM is not "dumb".
bool color_wanted(const ReportOptions& options);
bool color_wanted(const std::string& mode, bool to_terminal, const char* no_color,
                  const char* term);
// The text report with ANSI colours: WARNING and ERROR lines red, SUMMARY lines bold,
// fingerprints dim.
std::string colorize(const std::string& text);
// --input-format with the reader's format names (io's input_format_names()).
void add_input_format_option(CLI::App* sub, std::string& format);
// --lenient; `what` says what it skips for this command.
void add_lenient_option(CLI::App* sub, bool& lenient, const std::string& what);
// --max-races N (0 lists none; the counts stay exact).
void add_max_races_option(CLI::App* sub, size_t& max_races);
// The options of engines/options.def in `group` (Budget: --max-states, --max-memory; Bounds:
// --pwr-history, --pwr-edges), with the table's help, defaults and ranges; they set `options`.
void add_engine_options(CLI::App* sub, EngineOptions& options, EngineOptionGroup group);
// The TRACE argument ('-' reads standard input).
void add_trace_argument(CLI::App* sub, std::string& trace);
// The same, and `trace` is an input that the report's -o must not overwrite.
void add_trace_argument(CLI::App* sub, std::string& trace, ReportOptions& report);

// ReadOptions from the shared option values (format already checked by CLI11).
ReadOptions read_options(const std::string& input_format, bool lenient);

// Where progress lines go: stderr, only when it is a terminal, not with -q and not in CI
// (environment variable CI set).
bool progress_wanted(const ReportOptions& options);
// The decision itself: -q, whether stderr is a terminal, the value of CI (nullptr: unset).
bool progress_wanted(bool quiet, bool stderr_is_terminal, const char* ci);

}  // namespace racepred::cli

namespace racepred::cli {

// A whole number from `min` to `max`, checked on the text (so that 99999999999999999999 is an
// error instead of being clamped): "--events: 99999999999999999999 is not a whole number from 1
// to 18446744073709551615".
CLI::Validator whole_number(uint64_t min, uint64_t max = UINT64_MAX);

}  // namespace racepred::cli

namespace racepred::explore {
struct ProgramSpec;
}

namespace racepred::cli {

// --max-steps and --timeout of the commands that run a program under the controlled scheduler
// (explore, confirm).
void add_execution_options(CLI::App* sub, explore::ProgramSpec& program);

}  // namespace racepred::cli
