#include "racepred/cli/options.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <string_view>

#include "racepred/explore/execution.hpp"
#include "racepred/io/formats.hpp"

namespace racepred::cli {

void add_report_options(CLI::App* sub, ReportOptions& options, bool with_ci) {
  options.command = sub->get_name();
  if (with_ci) {
    sub->add_option("--format", options.format,
                    "Report format: text for people, json for programs (schema racepred/2), "
                    "sarif (SARIF 2.1.0, for code scanning), html (one self-contained page "
                    "with filters, stacks, source lines and thread lanes; docs/CLI.md)")
        ->check(CLI::IsMember({"text", "json", "sarif", "html"}))
        ->capture_default_str();
  } else {
    sub->add_option("--format", options.format,
                    "Report format: text for people, json for programs (schema racepred/2, "
                    "docs/CLI.md)")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
  }
  sub->add_option("-o,--output", options.output,
                  "Write the report to FILE instead of standard output (a regular file "
                  "atomically, keeping its mode: a run that fails leaves no partial report; a "
                  "device or FIFO directly; never one of the inputs)")
      ->type_name("FILE");
  sub->add_flag("-q,--quiet", options.quiet,
                "No notes, warnings or progress on stderr (errors are still printed)");
}

void add_input_format_option(CLI::App* sub, std::string& format) {
  std::string names;
  for (const std::string& n : input_format_names()) names += (names.empty() ? "" : ", ") + n;
  sub->add_option("--input-format", format,
                  "Trace format (" + names +
                      "); auto recognises it by its content (docs/FORMATS.md); compressed "
                      "input (.gz, .zst, .xz) is read directly")
      ->check(CLI::IsMember(input_format_names()))
      ->capture_default_str();
}

void add_lenient_option(CLI::App* sub, bool& lenient, const std::string& what) {
  sub->add_flag("--lenient", lenient, what);
}

void add_max_races_option(CLI::App* sub, size_t& max_races) {
  sub->add_option("--max-races", max_races,
                  "List at most N races, racy events and racy locations per engine (the first "
                  "detected: in trace order of the later event); the counts stay exact")
      ->type_name("N")
      ->check(whole_number(0))
      ->capture_default_str();
}

void add_engine_options(CLI::App* sub, EngineOptions& options, EngineOptionGroup group) {
  for (const EngineOptionInfo& row : kEngineOptions) {
    if (row.group != group) continue;
    const EngineOptionInfo* info = &row;
    // 0 keeps the default for the Budget rows that accept it; a Bounds row takes 0 as given (no
    // bound). The validator checks the range.
    const bool zero_keeps_default = row.group == EngineOptionGroup::Budget;
    sub->add_option_function<uint64_t>(
           std::string(row.flag),
           [&options, info, zero_keeps_default](const uint64_t& value) {
             info->set(options, value == 0 && zero_keeps_default ? info->default_value : value);
           },
           engine_option_help(row))
        ->type_name(std::string(row.value_name))
        ->check(whole_number(row.min, row.max));
  }
}

void add_trace_argument(CLI::App* sub, std::string& trace) {
  sub->add_option("TRACE", trace, "Trace file ('-' reads standard input)")->required();
}

void add_trace_argument(CLI::App* sub, std::string& trace, ReportOptions& report) {
  add_trace_argument(sub, trace);
  report.inputs.push_back(&trace);
}

ReadOptions read_options(const std::string& input_format, bool lenient) {
  ReadOptions read;
  read.lenient = lenient;
  if (auto format = parse_input_format(input_format)) read.format = *format;
  return read;
}

void add_color_option(CLI::App* sub, ReportOptions& options) {
  sub->add_option("--color", options.color,
                  "Colour the text report: auto (when standard output is a terminal and NO_COLOR "
                  "is not set), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

bool color_wanted(const ReportOptions& options) {
  const bool to_stdout = options.output.empty() || options.output == "-";
  return color_wanted(options.color, to_stdout && isatty(STDOUT_FILENO) == 1,
                      std::getenv("NO_COLOR"), std::getenv("TERM"));
}

bool color_wanted(const std::string& mode, bool to_terminal, const char* no_color,
                  const char* term) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  return to_terminal && (no_color == nullptr || *no_color == '\0') &&
         (term == nullptr || std::string_view(term) != "dumb");
}

std::string colorize(const std::string& text) {
  constexpr std::string_view kRed = "\x1b[1;31m", kBold = "\x1b[1m", kDim = "\x1b[2m",
                             kReset = "\x1b[0m";
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    std::string_view color;
    if (line.rfind("WARNING:", 0) == 0 || line.rfind("ERROR:", 0) == 0) {
      color = kRed;
    } else if (line.rfind("SUMMARY:", 0) == 0) {
      color = kBold;
    } else if (line.rfind("  Fingerprint:", 0) == 0 || line.rfind("==================", 0) == 0) {
      color = kDim;
    }
    if (color.empty()) {
      out += line;
    } else {
      out += color;
      out += line;
      out += kReset;
    }
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

bool progress_wanted(const ReportOptions& options) {
  return progress_wanted(options.quiet, isatty(STDERR_FILENO) == 1, std::getenv("CI"));
}

bool progress_wanted(bool quiet, bool stderr_is_terminal, const char* ci) {
  return !quiet && stderr_is_terminal && ci == nullptr;
}

}  // namespace racepred::cli

namespace racepred::cli {

CLI::Validator whole_number(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        uint64_t value = 0;
        const char* first = text.data();
        const char* last = first + text.size();
        const auto [end, error] = std::from_chars(first, last, value);
        if (error != std::errc{} || end != last || value < min || value > max)
          return "'" + text + "' is not a whole number from " + std::to_string(min) + " to " +
                 std::to_string(max);
        return {};
      },
      "UINT", "whole number");
}

void add_execution_options(CLI::App* sub, explore::ProgramSpec& program) {
  sub->add_option("--max-steps", program.max_steps,
                  "An execution that passes this many scheduling points is a hang")
      ->check(whole_number(1))
      ->capture_default_str();
  sub->add_option("--timeout", program.timeout_seconds,
                  "An execution that stops answering the scheduler for this many seconds is "
                  "killed (a hang)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

}  // namespace racepred::cli
