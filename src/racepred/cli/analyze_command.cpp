// racepred analyze: one read of the trace, every selected engine, a text or JSON report.
#include <iostream>
#include <memory>
#include <sstream>

#include "racepred/cli/cli.hpp"
#include "racepred/cli/progress.hpp"
#include "racepred/driver/pipeline.hpp"
#include "racepred/io/formats.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"

namespace racepred::cli {
namespace {

struct AnalyzeOptions {
  ReportOptions report;
  std::vector<std::string> engines;
  size_t max_races = 1000;
  EngineOptions engine;  // --max-states, --max-memory, --pwr-history, --pwr-edges
  bool lenient = false;
  std::string input_format = "auto";
  std::string trace;
};

std::vector<std::string> split_names(const std::vector<std::string>& values) {
  std::vector<std::string> names;
  for (const std::string& value : values) {
    std::stringstream ss(value);
    std::string name;
    while (std::getline(ss, name, ','))
      if (!name.empty()) names.push_back(name);
  }
  return names;
}

int analyze(const AnalyzeOptions& o, std::ostream& out) {
  const std::vector<const EngineInfo*> engines = resolve_engines(split_names(
      o.engines.empty() ? std::vector<std::string>{std::string(kDefaultEngines)} : o.engines));
  PipelineOptions options;
  options.read = read_options(o.input_format, o.lenient);
  options.validation = o.lenient ? ValidationMode::Lenient : ValidationMode::Strict;
  options.max_races = o.max_races;
  options.engine = o.engine;
  Progress progress(progress_wanted(o.report));
  if (progress.enabled())
    options.on_progress = [&progress](uint64_t events) { progress.update(events); };

  const PipelineResult result = run_pipeline(o.trace, engines, options);
  progress.finish();
  if (!o.report.quiet)
    for (const std::string& line : pipeline_diagnostics(result))
      std::cerr << printable_text(line) << '\n';
  const Report report = result.report();
  if (o.report.json())
    write_json_report(out, report);
  else
    write_text_report(out, report);
  // Races reported by any engine: 1. Otherwise a failed engine makes the run incomplete: 2,
  // never "no race".
  if (result.any_finding()) return kExitRaces;
  return result.any_failed() ? kExitError : kExitNoRace;
}

}  // namespace

Command add_analyze_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "analyze", "Predict data races in a trace with one or more engines (the main command)");
  sub->footer(
      "Reads TRACE once and runs every selected engine over it. Without -e it runs shb, whose\n"
      "every report is a predicted race; engines that may report false races (lockset, ...)\n"
      "run only when named. The text report has one block per racing pair of source locations,\n"
      "labelled real (the run shows it), predicted (another schedule of the run shows it) or\n"
      "possible (may be a false alarm), a SUMMARY line per engine and one combined SUMMARY of\n"
      "the distinct races; --format json writes schema racepred/2 (docs/CLI.md). Notes and\n"
      "warnings about the input go to stderr.\n"
      "An offline engine that runs out of its budget (--max-states, --max-memory) is marked\n"
      "FAILED; the other engines' results are reported.\n"
      "Exit code: 0 nothing reported, 1 a data race, a deadlock or a program failure reported\n"
      "(read-read discipline violations alone: 0), 2 usage or input error, or nothing\n"
      "reported while an engine failed.\n"
      "\n"
      "Examples:\n"
      "  racepred analyze trace.std\n"
      "  racepred analyze -e lockset --format json --max-races 10 -o report.json trace.std\n"
      "  racepred analyze -e all - < trace.std");
  auto o = std::make_shared<AnalyzeOptions>();
  sub->add_option("-e,--engine", o->engines,
                  "Engines to run, comma-separated or repeated; 'all' = every online engine; "
                  "'racepred engines -v' explains them (default: " +
                      std::string(kDefaultEngines) + ")")
      ->type_name("ENGINE[,ENGINE...]")
      ->allow_extra_args(false);  // one value per -e: `-e a,b TRACE` leaves TRACE alone
  add_report_options(sub, o->report);
  add_max_races_option(sub, o->max_races);
  add_lenient_option(sub, o->lenient,
                     "Skip malformed lines and drop events that break well-formedness (counted "
                     "and reported on stderr) instead of failing");
  add_input_format_option(sub, o->input_format);
  add_engine_options(sub, o->engine, EngineOptionGroup::Budget);
  add_engine_options(sub, o->engine, EngineOptionGroup::Bounds);
  add_trace_argument(sub, o->trace, o->report);
  return {sub, [o](std::ostream& out) { return analyze(*o, out); }, &o->report};
}

}  // namespace racepred::cli
