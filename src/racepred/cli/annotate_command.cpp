// racepred annotate: the papers' tabular view of a trace with an engine's per-event state.
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>

#include "racepred/cli/cli.hpp"
#include "racepred/driver/annotate.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/report/notation.hpp"
#include "racepred/report/table.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred::cli {
namespace {

struct AnnotateOptions {
  ReportOptions report;
  std::string engine = "hb";
  std::string input_format = "auto";
  std::string layout = "auto";
  int width = -1;  // -1: the terminal's width when printing to one, else unlimited
  bool truncate = false;
  bool lenient = false;
  std::string path;
};

// The trace, checked for well-formedness (docs/WELLFORMEDNESS.md: errors stop, --lenient drops).
Trace load_validated(const AnnotateOptions& o) {
  Trace trace;
  TraceCollector collector(trace);
  ValidationOptions vo;
  vo.mode = o.lenient ? ValidationMode::Lenient : ValidationMode::Strict;
  vo.file_name = o.path;
  Validator validator(trace.symbols, vo, collector);
  trace.summary =
      read_events(o.path, read_options(o.input_format, o.lenient), trace.symbols, validator);
  validator.on_end();
  const ValidationReport& report = validator.report();
  if (o.report.quiet) return trace;
  if (trace.summary.malformed)
    std::cerr << "racepred: warning: skipped " << trace.summary.malformed << " malformed line(s)\n";
  if (report.violations)
    std::cerr << "racepred: warning: dropped " << report.violations << " ill-formed event(s)\n";
  if (report.reentrant_acquires)
    std::cerr << "racepred: note: normalised " << report.reentrant_acquires
              << " re-entrant acquire(s)\n";
  return trace;
}

size_t terminal_width() {
  if (isatty(STDOUT_FILENO)) {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    if (const char* columns = std::getenv("COLUMNS")) return std::strtoul(columns, nullptr, 10);
  }
  return 0;
}

std::vector<NamedCells> named_cells(const std::vector<Annotation>& rows) {
  std::vector<NamedCells> cells(rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    for (const AnnotationCell& c : rows[i]) cells[i].push_back({c.column, c.value});
  return cells;
}

int run_annotate(const AnnotateOptions& o, std::ostream& out) {
  if (o.engine.find(',') != std::string::npos)
    throw UsageError("annotate shows one engine at a time (got '" + o.engine + "')");
  if (!find_engine(o.engine)) {
    std::string names;
    for (const std::string& n : annotating_engines()) names += (names.empty() ? "" : ", ") + n;
    throw UsageError("unknown engine '" + o.engine + "'; engines with an annotated view: " + names);
  }
  const Trace trace = load_validated(o);
  const AnnotationRun run = annotate_trace(o.engine, trace);
  const std::vector<NamedCells> cells = named_cells(run.rows);
  const RaceSink& sink = run.sink;

  if (o.report.json()) {
    nlohmann::ordered_json doc = json_header("annotate");
    doc["engine"] = o.engine;
    doc["trace"] = trace_json(TraceInfo::of(o.path, trace.symbols, trace.summary, trace.size()));
    nlohmann::ordered_json table = trace_table_json(trace, cells);
    for (auto it = table.begin(); it != table.end(); ++it) doc[it.key()] = it.value();
    nlohmann::ordered_json findings = nlohmann::ordered_json::array();
    for (const Race& r : sink.races())
      findings.push_back(finding_json(trace.symbols, Finding::of_race(r)));
    doc["findings"] = std::move(findings);
    doc["race_count"] = sink.race_count();
    doc["truncated"] = sink.truncated();
    write_json(out, doc);
  } else {
    TraceTableOptions options;
    options.table.width = o.width >= 0 ? static_cast<size_t>(o.width)
                                       : (o.report.output.empty() ? terminal_width() : 0);
    options.table.truncate = o.truncate;
    options.layout = o.layout == "columns"   ? TraceLayout::Columns
                     : o.layout == "compact" ? TraceLayout::Compact
                                             : TraceLayout::Auto;
    out << printable_text(render_trace_table(trace, cells, options)) << '\n';
    out << o.engine << ": ";
    if (sink.race_count() == 0) {
      out << "no race\n";
    } else {
      out << sink.race_count() << " race pair" << (sink.race_count() == 1 ? "" : "s");
      std::string pairs;
      for (const Race& r : sink.races()) {
        pairs += ' ';
        pairs += r.first.known() ? pair_text(r.first.event, r.second.event)
                                 : "(?,e" + std::to_string(r.second.event) + ")";
      }
      out << ":" << pairs << (sink.truncated() ? " ..." : "") << '\n';
    }
  }
  return sink.any_failing() ? kExitRaces : kExitNoRace;
}

}  // namespace

Command add_annotate_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "annotate",
      "Print the trace as the papers' table (one column per thread, one row per event) with an "
      "engine's per-event state in extra columns");
  auto o = std::make_shared<AnnotateOptions>();
  sub->add_option("-e,--engine", o->engine,
                  "Engine whose state to show (one; see docs/ANNOTATE.md)")
      ->capture_default_str();
  add_report_options(sub, o->report);
  sub->add_option("--width", o->width,
                  "Table width in characters; long cells are wrapped (0 = unlimited; default: the "
                  "terminal's width, unlimited when not printing to a terminal)")
      ->check(CLI::Range(0, 1'000'000));
  sub->add_flag("--truncate", o->truncate, "Cut long cells with '...' instead of wrapping them");
  sub->add_option("--layout", o->layout,
                  "columns: one column per thread; compact: thread and event columns; auto: "
                  "columns unless the threads do not fit")
      ->check(CLI::IsMember({"auto", "columns", "compact"}))
      ->capture_default_str();
  add_lenient_option(sub, o->lenient,
                     "Skip malformed lines and drop ill-formed events instead of stopping");
  add_input_format_option(sub, o->input_format);
  add_trace_argument(sub, o->path, o->report);
  return {sub, [o](std::ostream& out) { return run_annotate(*o, out); }, &o->report};
}

}  // namespace racepred::cli
