// racepred analyze: one read of the trace, every selected engine, a text or JSON report.
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <vector>

#include "racepred/cli/cli.hpp"
#include "racepred/cli/output.hpp"
#include "racepred/cli/progress.hpp"
#include "racepred/driver/pipeline.hpp"
#include "racepred/io/comments.hpp"
#include "racepred/io/formats.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/report/html.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"
#include "racepred/witness/witness.hpp"

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
  // --witness [FILE]: build and check witnesses; FILE ("" none) receives them.
  CLI::Option* witness = nullptr;
  std::string witness_file;
  std::string suppressions;  // --suppressions FILE
  std::string baseline;      // --baseline FILE
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

// The locks each reported access held, with the event that acquired each (a trace with call
// stacks prints them as ThreadSanitizer does: "Mutex m held by … acquired at"). The engines do
// not keep them, so the trace is read a second time: only for traces with stacks, and only the
// reported events are kept.
class HeldLocksAt : public EventConsumer {
 public:
  HeldLocksAt(std::set<EventId> wanted, std::map<EventId, std::vector<HeldLock>>& out)
      : wanted_(std::move(wanted)), out_(out) {}
  void on_event(EventId id, const Event& e, uint32_t) override {
    if (e.thread >= held_.size()) held_.resize(size_t{e.thread} + 1);
    std::vector<HeldLock>& held = held_[e.thread];
    if (e.op == Op::Acquire || e.op == Op::ReadAcquire) {
      held.push_back(HeldLock{e.target, e.thread, e.op == Op::ReadAcquire, id, e.location});
    } else if (e.op == Op::Release || e.op == Op::ReadRelease) {
      for (size_t i = held.size(); i-- > 0;) {
        if (held[i].lock == e.target) {
          held.erase(held.begin() + static_cast<ptrdiff_t>(i));
          break;
        }
      }
    } else if (e.is_access() && wanted_.count(id)) {
      out_[id] = held;
    }
  }

 private:
  std::set<EventId> wanted_;
  std::map<EventId, std::vector<HeldLock>>& out_;
  std::vector<std::vector<HeldLock>> held_;
};

void find_held_locks(const std::string& path, const ReadOptions& read, const Report& report,
                     std::map<EventId, std::vector<HeldLock>>& out) {
  std::set<EventId> wanted;
  for (const EngineReport& r : report.results) {
    if (!r.sink) continue;
    for (const Race& race : r.sink->races()) {
      wanted.insert(race.second.event);
      if (race.first.known()) wanted.insert(race.first.event);
    }
    if (r.sink->has_first_detected()) {
      wanted.insert(r.sink->first_detected().second.event);
      if (r.sink->first_detected().first.known())
        wanted.insert(r.sink->first_detected().first.event);
    }
  }
  if (wanted.empty()) return;
  Symbols symbols;
  HeldLocksAt consumer(std::move(wanted), out);
  read_events(path, read, symbols, consumer);
}

int analyze(const AnalyzeOptions& o, std::ostream& out) {
  const std::vector<const EngineInfo*> engines = resolve_engines(split_names(
      o.engines.empty() ? std::vector<std::string>{std::string(kDefaultEngines)} : o.engines));
  PipelineOptions options;
  options.read = read_options(o.input_format, o.lenient);
  options.validation = o.lenient ? ValidationMode::Lenient : ValidationMode::Strict;
  options.max_races = o.max_races;
  options.engine = o.engine;
  options.witnesses = o.witness && o.witness->count() > 0;
  if (options.witnesses) {
    if (o.witness_file == "-")
      throw UsageError("--witness: FILE must be a file (the report goes to standard output)");
    check_not_an_input(o.witness_file, {o.trace});
  }
  // Read before the analysis: a bad file is reported at once.
  FindingFilter filter;
  if (!o.suppressions.empty()) filter.suppressions = Suppressions::read(o.suppressions);
  if (!o.baseline.empty()) filter.baseline = Baseline::read(o.baseline);
  Progress progress(progress_wanted(o.report));
  if (progress.enabled())
    options.on_progress = [&progress](uint64_t events) { progress.update(events); };

  const PipelineResult result = run_pipeline(o.trace, engines, options);
  progress.finish();
  if (!o.report.quiet)
    for (const std::string& line : pipeline_diagnostics(result))
      std::cerr << printable_text(line) << '\n';
  Report report = result.report();
  std::map<EventId, std::vector<HeldLock>> held_locks;
  if (!result.symbols.stacks.empty() && o.trace != "-") {
    find_held_locks(o.trace, options.read, report, held_locks);
    report.held_locks = &held_locks;
  }
  bool witness_error = false;
  if (options.witnesses) {
    witness::WitnessFile file;
    file.trace = o.trace;
    for (const EngineRun& run : result.runs) {
      file.witnesses.insert(file.witnesses.end(), run.witnesses.begin(), run.witnesses.end());
      for (const std::string& error : run.witness_errors) {
        // The engine's relation and the independent checker disagree: a bug, never a verdict.
        std::cerr << "racepred: internal error: " << printable(error, 4096) << '\n';
        witness_error = true;
      }
    }
    if (!o.witness_file.empty()) {
      ReportOutput output(o.witness_file, {o.trace});
      output.stream() << witness::to_json(file);
      output.commit();
      for (EngineReport& r : report.results) r.witness_file = o.witness_file;
    }
  }
  // An STD trace may carry its own suppressions in comment lines (docs/FORMATS.md); they join
  // --suppressions FILE.
  if (result.read.format == "std") {
    Suppressions own;
    for (const CommentLine& c : read_comment_lines(o.trace, kInlineSuppressionPrefix))
      own.add(c.text, o.trace, static_cast<uint32_t>(c.line), c.column);
    filter.suppressions.append(own);
  }
  report.filter = &filter;
  // Fingerprints read source lines as named, else beside the trace.
  std::vector<std::string> roots;
  if (o.trace != "-") roots.push_back(std::filesystem::path(o.trace).parent_path().string());
  report.sources = std::make_shared<SourceLines>(std::move(roots));
  if (o.report.sarif()) {
    write_sarif_report(out, report);
  } else if (o.report.html()) {
    write_html_report(out, report_findings(json_report(report)), "analyze", o.trace,
                      report.source_lines());
  } else if (o.report.json()) {
    write_json_report(out, report);
  } else if (color_wanted(o.report)) {
    std::ostringstream text;
    write_text_report(text, report);
    out << colorize(text.str());
  } else {
    write_text_report(out, report);
  }
  // Races reported by any engine: 1. Otherwise a failed engine makes the run incomplete: 2,
  // never "no race". With suppressions or a baseline, only the findings still listed count.
  if (witness_error) return kExitError;
  if (filter.active()) {
    const FilterSummary shown = filter_summary(report);
    if (shown.shown_failing + shown.unlisted > 0) return kExitRaces;
  } else if (result.any_finding()) {
    return kExitRaces;
  }
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
      "labelled observed (the recorded run shows it), witnessed (a checked schedule of the run\n"
      "shows it; --witness), predicted (a sound engine says another schedule of the run shows\n"
      "it) or possible (may be a false alarm), a SUMMARY line per engine and one combined\n"
      "SUMMARY of the distinct races; --format json writes schema racepred/2, --format sarif\n"
      "SARIF 2.1.0, --format html one self-contained page for a browser (docs/CLI.md). Each\n"
      "finding has a fingerprint that stays when the run is recorded again, lines shift or the\n"
      "threads swap roles (--baseline, racepred merge).\n"
      "Notes and warnings about the input go to stderr.\n"
      "--witness [FILE]: the engines whose guarantee says their reports are real (shb, syncp,\n"
      "adjacent; the first race of hb, djit, fasttrack, ...) build a witness of each race they\n"
      "list: a schedule of the run that reaches the race (docs/WITNESSES.md). Each is checked\n"
      "by the independent checker; the report shows its end and labels the race witnessed;\n"
      "FILE receives them for `racepred check-witness` (write --witness=FILE, or give the\n"
      "trace after FILE). A witness the checker rejects is an internal error (exit code 2).\n"
      "An offline engine that runs out of its budget (--max-states, --max-memory) is marked\n"
      "FAILED; the other engines' results are reported.\n"
      "Exit code: 0 nothing reported, 1 a data race, a deadlock or a program failure reported\n"
      "(read-read discipline violations alone: 0), 2 usage or input error, or nothing\n"
      "reported while an engine failed.\n"
      "\n"
      "Examples:\n"
      "  racepred analyze trace.std\n"
      "  racepred analyze -e lockset --format json --max-races 10 -o report.json trace.std\n"
      "  racepred analyze -e all - < trace.std\n"
      "  racepred analyze --format sarif -o races.sarif trace.std\n"
      "  racepred analyze --format html -o report.html trace.std\n"
      "  racepred analyze --suppressions tsan.supp --baseline old.json trace.std\n"
      "  racepred analyze --witness w.json trace.std && racepred check-witness trace.std w.json");
  auto o = std::make_shared<AnalyzeOptions>();
  sub->add_option("-e,--engine", o->engines,
                  "Engines to run, comma-separated or repeated; 'all' = every online engine; "
                  "'racepred engines -v' explains them (default: " +
                      std::string(kDefaultEngines) + ")")
      ->type_name("ENGINE[,ENGINE...]")
      ->allow_extra_args(false);  // one value per -e: `-e a,b TRACE` leaves TRACE alone
  add_report_options(sub, o->report, /*with_ci=*/true);
  add_color_option(sub, o->report);
  sub->add_option("--suppressions", o->suppressions,
                  "Leave out the findings a ThreadSanitizer-style suppressions file matches "
                  "(race:, race_top:, deadlock:, thread:, called_from_lib:; docs/CLI.md)")
      ->type_name("FILE");
  sub->add_option("--baseline", o->baseline,
                  "List only findings whose fingerprint is not in OLD (a JSON report or SARIF "
                  "log of racepred); exit code 1 only for new ones")
      ->type_name("OLD.json|OLD.sarif");
  o->report.inputs.push_back(&o->suppressions);  // -o must not write over them either
  o->report.inputs.push_back(&o->baseline);
  add_max_races_option(sub, o->max_races);
  add_lenient_option(sub, o->lenient,
                     "Skip malformed lines and drop events that break well-formedness (counted "
                     "and reported on stderr) instead of failing");
  add_input_format_option(sub, o->input_format);
  add_engine_options(sub, o->engine, EngineOptionGroup::Budget);
  add_engine_options(sub, o->engine, EngineOptionGroup::Bounds);
  o->witness = sub->add_option("--witness", o->witness_file,
                               "Build a checked witness of every race a sound engine lists (its "
                               "first race for hb, djit, fasttrack, ...) and write them to FILE "
                               "(docs/WITNESSES.md)")
                   ->expected(0, 1)
                   ->type_name("[FILE]");
  add_trace_argument(sub, o->trace, o->report);
  return {sub, [o](std::ostream& out) { return analyze(*o, out); }, &o->report};
}

}  // namespace racepred::cli
