#include "racepred/cli/options.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdlib>

#include "racepred/io/formats.hpp"

namespace racepred::cli {

void add_report_options(CLI::App* sub, ReportOptions& options) {
  options.command = sub->get_name();
  sub->add_option("--format", options.format,
                  "Report format: text for people, json for programs (schema racepred/2, "
                  "docs/CLI.md)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
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

void add_budget_options(CLI::App* sub, uint64_t& max_states, uint64_t& max_memory_mib) {
  sub->add_option("--max-states", max_states,
                  "Exact search budget: stop after N distinct states (0: the default, " +
                      std::to_string(2'000'000) + ")")
      ->type_name("N")
      ->check(whole_number(0));
  sub->add_option("--max-memory", max_memory_mib,
                  "Exact search budget: MiB for its tables and stored states (0: the default, "
                  "256)")
      ->type_name("MIB")
      ->check(whole_number(0, uint64_t{1} << 40));
}

void add_bound_options(CLI::App* sub, EngineBounds& bounds) {
  sub->add_option("--pwr-history", bounds.pwr_history,
                  "Critical sections per lock that pwr, pwr-cs, pwr-e and pwr-edges keep for the "
                  "ROD rule (default 5, the PWR paper's; fewer: faster, more false positives; "
                  "the *-unbounded engines keep all; docs/ENGINES.md)")
      ->type_name("N")
      ->check(whole_number(1, UINT32_MAX));
  sub->add_option("--pwr-edges", bounds.pwr_edges,
                  "Edge constraints per variable that pwr-edges keeps (default 25, the PWR "
                  "paper's; fewer: faster, may miss races behind replaced accesses; "
                  "pwr-edges-unbounded keeps all; docs/ENGINES.md)")
      ->type_name("N")
      ->check(whole_number(1, UINT32_MAX));
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

}  // namespace racepred::cli
