// racepred analyze: one read of the trace, every selected engine, a text or JSON report.
#include <iostream>
#include <memory>
#include <sstream>

#include "racepred/cli/cli.hpp"
#include "racepred/driver/pipeline.hpp"
#include "racepred/io/formats.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::cli {
namespace {

struct AnalyzeOptions {
  std::vector<std::string> engines;
  std::string format = "text";
  size_t max_races = 1000;
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

int analyze(const AnalyzeOptions& o) {
  const std::vector<const EngineInfo*> engines = resolve_engines(split_names(
      o.engines.empty() ? std::vector<std::string>{std::string(kDefaultEngines)} : o.engines));
  PipelineOptions options;
  options.read.lenient = o.lenient;
  options.read.format = *parse_input_format(o.input_format);
  options.validation = o.lenient ? ValidationMode::Lenient : ValidationMode::Strict;
  options.max_races = o.max_races;

  const PipelineResult result = run_pipeline(o.trace, engines, options);
  for (const std::string& line : pipeline_diagnostics(result)) std::cerr << line << '\n';
  const Report report = result.report();
  if (o.format == "json")
    write_json_report(std::cout, report);
  else
    write_text_report(std::cout, report);
  std::cout.flush();
  return result.any_race() ? kExitRaces : kExitNoRace;
}

}  // namespace

Command add_analyze_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "analyze", "Predict data races in a trace with one or more engines (the main command)");
  sub->footer(
      "Reads TRACE once and runs every selected engine over it. The text report has one\n"
      "block per racing pair of source locations and a SUMMARY line per engine; --format json\n"
      "writes schema racepred/1 (docs/CLI.md). Notes and warnings about the input go to stderr.\n"
      "Exit code: 0 no race reported, 1 races reported, 2 usage or input error.\n"
      "\n"
      "Examples:\n"
      "  racepred analyze trace.std\n"
      "  racepred analyze -e lockset --format json --max-races 10 trace.std\n"
      "  racepred analyze -e all - < trace.std");
  auto o = std::make_shared<AnalyzeOptions>();
  sub->add_option("-e,--engine", o->engines,
                  "Engines to run, comma-separated or repeated; 'all' = every online engine; "
                  "'racepred engines' lists them (default: " +
                      std::string(kDefaultEngines) + ")")
      ->type_name("ENGINE[,ENGINE...]");
  sub->add_option("--format", o->format, "Report format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  sub->add_option("--max-races", o->max_races,
                  "List at most N races per engine (the first in trace order of their later "
                  "event); all races are still counted")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_flag("--lenient", o->lenient,
                "Skip malformed lines and drop events that break well-formedness (counted and "
                "reported on stderr) instead of failing");
  sub->add_option("--input-format", o->input_format,
                  "Trace format (auto: recognised by its content; docs/FORMATS.md)")
      ->check(CLI::IsMember(input_format_names()))
      ->capture_default_str();
  sub->add_option("TRACE", o->trace, "Trace file ('-' reads standard input)")->required();
  return {sub, [o] { return analyze(*o); }};
}

}  // namespace racepred::cli
