// racepred compare: the tables of Fig. 11 and Fig. 12 of Sulzmann and Thiemann for any engines and
// traces.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "racepred/cli/cli.hpp"
#include "racepred/driver/pipeline.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"

namespace racepred::cli {
namespace {

struct CompareOptions {
  std::vector<std::string> engines;
  std::string format = "text";
  bool lenient = false;
  std::string input_format = "auto";
  EngineOptions engine;  // --pwr-history, --pwr-edges
  std::vector<std::string> traces;
};

struct EngineRow {
  std::string engine;
  double seconds = 0;
  uint64_t races = 0;             // race pairs
  uint64_t location_pairs = 0;    // distinct (first location, second location)
  bool pairs_at_least = false;    // more races than kPairRaces: location_pairs is a lower bound
  std::vector<ExtraStat> extras;  // the engine's own statistics (pwr-cs: Fig. 12's columns)
};
struct TraceRow {
  TraceInfo trace;
  double read_seconds = 0;
  std::vector<EngineRow> engines;
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

// Engines that count races in bulk (lockset, tsan1, hb-pairs, …) list no pair when no race is
// kept; their location pairs come from a second run that lists up to this many races.
constexpr size_t kPairRaces = 1'000'000;

TraceRow measure(const std::string& path, const std::vector<const EngineInfo*>& engines,
                 const PipelineOptions& options) {
  TraceRow row;
  // Fig. 11 "parsing": reading and validating alone, without engines.
  PipelineOptions read_only = options;
  read_only.threaded = false;
  const auto start = std::chrono::steady_clock::now();
  run_pipeline(path, {}, read_only);
  row.read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const PipelineResult result = run_pipeline(path, engines, options);
  for (const std::string& line : pipeline_diagnostics(result))
    std::cerr << printable_text(line) << '\n';
  row.trace = result.trace_info();
  for (const EngineRun& run : result.runs) {
    EngineRow e;
    e.engine = run.info->name;
    e.seconds = run.seconds;
    e.races = run.sink.race_count();
    e.location_pairs = run.sink.location_pair_count();
    e.pairs_at_least = run.sink.location_pairs_lower_bound();
    e.extras = run.sink.extras().stats;
    row.engines.push_back(e);
  }
  std::vector<const EngineInfo*> recount;
  for (size_t i = 0; i < row.engines.size(); ++i)
    if (row.engines[i].races > 0 && row.engines[i].location_pairs == 0)
      recount.push_back(result.runs[i].info);
  if (!recount.empty()) {
    PipelineOptions listing = options;
    listing.max_races = kPairRaces;
    const PipelineResult again = run_pipeline(path, recount, listing);
    for (const EngineRun& run : again.runs)
      for (EngineRow& e : row.engines)
        if (e.engine == run.info->name) {
          e.location_pairs = run.sink.location_pair_count();
          e.pairs_at_least = run.sink.truncated() || run.sink.location_pairs_lower_bound();
        }
  }
  return row;
}

// Column headers and the cells of one row, shared by text, csv and markdown.
std::vector<std::string> headers(const std::vector<TraceRow>& rows) {
  std::vector<std::string> h = {"trace", "events", "threads", "locations", "locks", "read s"};
  if (rows.empty()) return h;
  for (const EngineRow& e : rows.front().engines) {
    h.push_back(e.engine + " s");
    h.push_back(e.engine + " races");
    h.push_back(e.engine + " loc pairs");
    for (const ExtraStat& x : e.extras) h.push_back(e.engine + " " + x.column);
  }
  return h;
}
std::vector<std::string> cells(const TraceRow& r) {
  std::vector<std::string> c = {r.trace.path,
                                std::to_string(r.trace.events),
                                std::to_string(r.trace.threads),
                                std::to_string(r.trace.variables),
                                std::to_string(r.trace.locks),
                                fmt::format("{:.3f}", r.read_seconds)};
  for (const EngineRow& e : r.engines) {
    c.push_back(fmt::format("{:.3f}", e.seconds));
    c.push_back(std::to_string(e.races));
    c.push_back((e.pairs_at_least ? ">=" : "") + std::to_string(e.location_pairs));
    for (const ExtraStat& x : e.extras) c.push_back(std::to_string(x.value));
  }
  return c;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

void write_table(const std::vector<TraceRow>& rows, const std::string& format) {
  const std::vector<std::string> h = headers(rows);
  std::vector<std::vector<std::string>> body;
  for (const TraceRow& r : rows) body.push_back(cells(r));
  if (format == "csv") {
    for (size_t k = 0; k < h.size(); ++k) std::cout << (k ? "," : "") << csv_field(h[k]);
    std::cout << '\n';
    for (const auto& line : body) {
      for (size_t k = 0; k < line.size(); ++k) std::cout << (k ? "," : "") << csv_field(line[k]);
      std::cout << '\n';
    }
    return;
  }
  std::vector<size_t> width(h.size());
  for (size_t k = 0; k < h.size(); ++k) {
    width[k] = h[k].size();
    for (const auto& line : body) width[k] = std::max(width[k], line[k].size());
  }
  const bool md = format == "markdown";
  auto print = [&](const std::vector<std::string>& line) {
    for (size_t k = 0; k < line.size(); ++k) {
      if (md) std::cout << "| ";
      if (k == 0)
        std::cout << fmt::format("{:<{}}", line[k], width[k]);
      else
        std::cout << fmt::format("{:>{}}", line[k], width[k]);
      std::cout << (md ? " " : (k + 1 < line.size() ? "  " : ""));
    }
    std::cout << (md ? "|\n" : "\n");
  };
  print(h);
  if (md) {
    for (size_t k = 0; k < h.size(); ++k)
      std::cout << "| "
                << (k == 0 ? std::string(width[k], '-') : std::string(width[k] - 1, '-') + ":")
                << ' ';
    std::cout << "|\n";
  }
  for (const auto& line : body) print(line);
}

void write_json(const std::vector<TraceRow>& rows) {
  nlohmann::ordered_json root;
  root["schema"] = kJsonSchema;
  root["command"] = "compare";
  nlohmann::ordered_json traces = nlohmann::ordered_json::array();
  for (const TraceRow& r : rows) {
    nlohmann::ordered_json t;
    t["trace"] = trace_json(r.trace);
    t["read_seconds"] = r.read_seconds;
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    for (const EngineRow& e : r.engines) {
      nlohmann::ordered_json x;
      x["engine"] = e.engine;
      x["seconds"] = e.seconds;
      x["race_count"] = e.races;
      x["location_pair_count"] = e.location_pairs;
      if (e.pairs_at_least) x["location_pair_count_is_lower_bound"] = true;
      nlohmann::ordered_json extras = nlohmann::ordered_json::object();
      for (const ExtraStat& stat : e.extras) extras[stat.key] = stat.value;
      x["extras"] = std::move(extras);
      results.push_back(std::move(x));
    }
    t["results"] = std::move(results);
    traces.push_back(std::move(t));
  }
  root["traces"] = std::move(traces);
  std::cout << root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

int compare(const CompareOptions& o) {
  const std::vector<const EngineInfo*> engines = resolve_engines(
      split_names(o.engines.empty() ? std::vector<std::string>{"pwr,pwr-cs"} : o.engines));
  PipelineOptions options;
  options.read = read_options(o.input_format, o.lenient);
  options.engine = o.engine;
  options.validation = o.lenient ? ValidationMode::Lenient : ValidationMode::Strict;
  options.max_races = 0;  // only the counts are shown
  std::vector<TraceRow> rows;
  bool races = false;
  size_t failed = 0;
  for (const std::string& path : o.traces) {
    // A trace that cannot be read (or is not well-formed) is named on stderr and left out; the
    // others still get their rows, and the exit code is 2.
    try {
      rows.push_back(measure(path, engines, options));
    } catch (const InputError& e) {
      std::cerr << e.what() << '\n';
      ++failed;
      continue;
    }
    for (const EngineRow& e : rows.back().engines) races = races || e.races > 0;
  }
  if (o.format == "json")
    write_json(rows);
  else
    write_table(rows, o.format);
  std::cout.flush();
  if (failed > 0) {
    std::cerr << "racepred: error: " << failed << (failed == 1 ? " trace" : " traces")
              << " left out of the table (input errors above"
              << (o.lenient ? ")" : "; --lenient drops events that break well-formedness)") << '\n';
    return kExitError;
  }
  return races ? kExitRaces : kExitNoRace;
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "compare",
      "Compare engines on traces: the tables of Fig. 11 and 12 of the cross-thread paper");
  sub->footer(
      "One row per trace: events, threads, memory locations (variables), locks, the time to\n"
      "read and validate the trace alone, and per engine its time, its race pairs, the\n"
      "distinct (first location, second location) pairs of its races, and, for engines that\n"
      "compute cross-thread guard locks (pwr-cs, pwr-e), the location pairs whose races a guard\n"
      "lock removed ('cs guarded') and how often a guard lock was confirmed ('guard locks').\n"
      "A trace that cannot be read is named on stderr and left out of the table.\n"
      "Exit code: 0 no race reported, 1 races reported, 2 usage or input error (also when a\n"
      "trace was left out).\n"
      "\n"
      "Examples:\n"
      "  racepred compare a.std b.std\n"
      "  racepred compare -e pwr,pwr-cs,fasttrack --format markdown traces/*.std");
  auto o = std::make_shared<CompareOptions>();
  sub->add_option("-e,--engine", o->engines,
                  "Engines to compare, comma-separated or repeated; 'all' = every online engine "
                  "(default: pwr,pwr-cs)")
      ->type_name("ENGINE[,ENGINE...]")
      ->allow_extra_args(false);  // one value per -e: `-e a,b TRACE` leaves TRACE alone
  sub->add_option("--format", o->format, "Table format")
      ->check(CLI::IsMember({"text", "json", "csv", "markdown"}))
      ->capture_default_str();
  add_lenient_option(sub, o->lenient,
                     "Skip malformed lines and drop events that break well-formedness");
  add_input_format_option(sub, o->input_format);
  add_engine_options(sub, o->engine, EngineOptionGroup::Bounds);
  sub->add_option("TRACE", o->traces, "Trace files")->required();
  return {sub, [o](std::ostream&) { return compare(*o); }};
}

}  // namespace racepred::cli
