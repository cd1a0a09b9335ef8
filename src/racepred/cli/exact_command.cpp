// racepred exact: the ground truth of Sulzmann and Thiemann for small traces (exact/search.hpp).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "racepred/cli/cli.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/index_race.hpp"
#include "racepred/exact/deadlocks.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/exact/table.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/report/race.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"
#include "racepred/trace/trace_index.hpp"
#include "racepred/trace/validator.hpp"
#include "racepred/witness/witness.hpp"

namespace racepred::cli {
namespace {

struct ExactArgs {
  ReportOptions report;
  std::string input_format = "auto";
  std::string path;
  bool enabled = false;
  bool complete = false;
  bool witness = false;
  std::string witness_file;  // --witness-file: the witnesses for check-witness
  bool mhb = false;
  bool deadlocks = false;  // --deadlocks: Def. B.4, B.7 and the Def. B.8 cases
  EngineOptions budget;    // --max-states, --max-memory
};

Trace read_validated(const std::string& path, const std::string& input_format) {
  Trace trace;
  TraceCollector collector(trace);
  ValidationOptions validation;
  validation.mode = ValidationMode::Strict;
  validation.file_name = path == "-" ? "<stdin>" : path;
  Validator validator(trace.symbols, validation, collector);
  trace.summary = read_events(path, read_options(input_format, false), trace.symbols, validator);
  validator.on_end();
  return trace;
}

// 1 when races or (with --deadlocks) predictable deadlocks are found.
int exit_code(const exact::SearchResult& result) {
  return result.races.empty() && result.deadlocks.empty() && result.cross_thread_deadlocks.empty()
             ? kExitNoRace
             : kExitRaces;
}

std::string notion_text(const exact::SearchResult& result) {
  std::string text =
      result.notion == exact::RaceNotion::Adjacent
          ? "Def. 3.8: adjacent in a correctly reordered prefix"
          : "both enabled after a correctly reordered prefix (--enabled, not Def. 3.8)";
  if (result.reorderings == exact::Reorderings::Complete)
    text += "; --complete: only prefixes that extend to a reordering of the whole trace";
  return text;
}

std::vector<exact::TableRow> witness_rows(const exact::RaceWitness& w, exact::RaceNotion notion) {
  std::vector<exact::TableRow> rows;
  for (uint32_t i : w.prefix) {
    exact::TableRow row;
    row.event = i;
    if (notion == exact::RaceNotion::Adjacent && (i == w.first || i == w.second))
      row.note = "<- race";
    rows.push_back(row);
  }
  if (notion == exact::RaceNotion::Enabled)
    for (uint32_t i : {w.first, w.second})
      rows.push_back({i, "<- race (enabled, not executed)", {}});
  for (size_t k = 0; k < w.completion.size(); ++k)
    rows.push_back(
        {w.completion[k], k == 0 ? "(completion to the whole trace from here)" : "", {}});
  return rows;
}

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    out += prefix + text.substr(start, end - start) + '\n';
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

// Def. B.8 for one partial order: its races that are not predictable races, and the cases.
struct CriticalReport {
  std::string engine;
  std::vector<std::pair<uint32_t, uint32_t>> open;  // its races without a predictable race
  exact::CriticalCase cases;
};

std::vector<CriticalReport> critical_reports(const Trace& trace,
                                             const exact::SearchResult& result) {
  std::vector<CriticalReport> reports;
  for (const char* engine : {"wcp", "sdp", "dc-tp"}) {
    const RaceSink sink = run_engine(engine, trace);
    CriticalReport r{engine, {}, exact::classify(!sink.races().empty(), result)};
    for (const Race& race : sink.races()) {
      const uint32_t a = static_cast<uint32_t>(trace.index_of(race.first.event));
      const uint32_t b = static_cast<uint32_t>(trace.index_of(race.second.event));
      const std::pair<uint32_t, uint32_t> pair{std::min(a, b), std::max(a, b)};
      if (!std::binary_search(result.races.begin(), result.races.end(), pair))
        r.open.push_back(pair);
    }
    reports.push_back(std::move(r));
  }
  return reports;
}

void print_deadlocks(std::ostream& out, const Trace& trace, const TraceIndex& t,
                     const std::vector<exact::DeadlockWitness>& deadlocks, const char* title) {
  out << title << ": " << deadlocks.size() << "\n";
  for (size_t d = 0; d < deadlocks.size(); ++d) {
    const exact::DeadlockWitness& w = deadlocks[d];
    out << "  deadlock " << d + 1 << ":";
    for (uint32_t a : w.acquires) out << "  e" << t.id(a) << " " << trace.to_std(t.event(a));
    out << '\n';
    std::vector<exact::TableRow> rows;
    for (uint32_t i : w.prefix) rows.push_back({i, "", {}});
    for (uint32_t a : w.acquires) rows.push_back({a, "<- blocked (not executed)", {}});
    out << "    prefix:\n" << indent(exact::format_table(t, rows), "      ");
  }
}

int print_text(std::ostream& out, const ExactArgs& args, const Trace& trace, const TraceIndex& t,
               const exact::SearchResult& result, size_t conflicting) {
  out << "exact: " << printable(args.path, 4096) << ": " << t.size() << " events, "
      << trace.symbols.threads.size() << " threads\n";
  out << "predictable races (" << notion_text(result) << "): " << result.races.size() << "\n";
  for (size_t r = 0; r < result.races.size(); ++r) {
    const auto [a, b] = result.races[r];
    const Race race = race_at(t, a, b);
    out << "  race " << r + 1 << ": e" << t.id(a) << " " << trace.to_std(t.event(a)) << "  and  e"
        << t.id(b) << " " << trace.to_std(t.event(b)) << "  (" << race_kind_name(race_kind(race))
        << " on " << t.variable_name(t.event(a).target) << ")\n";
    if (args.witness) {
      out << "    witness:\n"
          << indent(exact::format_table(t, witness_rows(result.witnesses[r], result.notion)),
                    "      ");
    }
  }
  if (result.stuck_states > 0) {
    out << "stuck reorderings: " << result.stuck_states
        << " stuck states (no event can run; threads wait for locks or joins)\n";
    if (args.witness) {
      std::vector<exact::TableRow> rows;
      for (uint32_t i : result.stuck_witness) rows.push_back({i, "", {}});
      out << "    stuck prefix:\n" << indent(exact::format_table(t, rows), "      ");
      // The events that wait: the next event of every thread that has not finished.
      std::vector<uint32_t> position(t.thread_count(), 0);
      for (uint32_t i : result.stuck_witness) ++position[t.event(i).thread];
      out << "    waiting:";
      for (uint32_t u = 0; u < t.thread_count(); ++u)
        if (position[u] < t.thread_events(u).size()) {
          const uint32_t i = t.thread_events(u)[position[u]];
          out << "  e" << t.id(i) << " " << t.describe(i);
        }
      out << '\n';
    }
  }
  if (args.deadlocks) {
    print_deadlocks(out, trace, t, result.deadlocks, "predictable deadlocks (Def. B.4)");
    print_deadlocks(out, trace, t, result.cross_thread_deadlocks,
                    "cross-thread predictable deadlocks (Def. B.7)");
    for (const CriticalReport& r : critical_reports(trace, result)) {
      out << r.engine << " races without a predictable race: " << r.open.size();
      for (const auto& [a, b] : r.open) out << "  (e" << t.id(a) << ", e" << t.id(b) << ")";
      out << "\n  Def. B.8: ";
      if (!r.cases.critical1 && !r.cases.critical2)
        out << "neither Critical-1 nor Critical-2";
      else if (r.cases.critical1 && r.cases.critical2)
        out << "Critical-1 and Critical-2";
      else
        out << (r.cases.critical1 ? "Critical-1" : "Critical-2");
      out << '\n';
    }
  }
  if (args.mhb) {
    out << "must-happen-before (Def. 3.5), e <mhb f:\n";
    for (uint32_t e = 0; e < t.size(); ++e) {
      out << "  e" << t.id(e) << " " << t.describe(e) << "  <mhb ";
      bool any = false;
      for (uint32_t f = 0; f < t.size(); ++f)
        if (result.mhb.before(e, f)) {
          out << " e" << t.id(f);
          any = true;
        }
      if (!any) out << " (none)";
      out << '\n';
    }
  }
  out << "SUMMARY: " << result.races.size() << " predictable race"
      << (result.races.size() == 1 ? "" : "s") << " among " << conflicting << " conflicting pairs; "
      << result.states << " states, " << result.transitions << " transitions explored";
  if (args.deadlocks)
    out << "; " << result.deadlocks.size() << " predictable deadlock"
        << (result.deadlocks.size() == 1 ? "" : "s") << ", " << result.cross_thread_deadlocks.size()
        << " cross-thread";
  out << '\n';
  return exit_code(result);
}

int print_json(std::ostream& out, const ExactArgs& args, const Trace& trace, const TraceIndex& t,
               const exact::SearchResult& result, size_t conflicting, double seconds) {
  using json = nlohmann::ordered_json;  // keys in their documented order
  json races = json::array();
  std::vector<EventId> racy_events;
  std::vector<std::string> racy_locations;
  for (const auto& [a, b] : result.races) {
    const Race race = race_at(t, a, b);
    races.push_back(finding_json(trace.symbols, Finding::of_race(race)));
    racy_events.push_back(t.id(b));
    racy_locations.emplace_back(trace.location_name(t.event(b).location));
  }
  for (const exact::DeadlockWitness& d : result.deadlocks)
    races.push_back(finding_json(trace.symbols, exact::deadlock_finding(t, d)));
  json counts = json::object();
  for (FindingKind kind : kFindingKinds)
    counts[std::string(finding_kind_name(kind))] =
        kind == FindingKind::DataRace   ? result.races.size()
        : kind == FindingKind::Deadlock ? result.deadlocks.size()
                                        : 0;
  std::sort(racy_events.begin(), racy_events.end());
  racy_events.erase(std::unique(racy_events.begin(), racy_events.end()), racy_events.end());
  std::sort(racy_locations.begin(), racy_locations.end());
  racy_locations.erase(std::unique(racy_locations.begin(), racy_locations.end()),
                       racy_locations.end());
  json engine = {
      {"engine", result.notion == exact::RaceNotion::Adjacent ? "exact" : "exact-enabled"},
      {"reorderings", result.reorderings == exact::Reorderings::Prefixes ? "prefixes" : "complete"},
      {"findings", races},
      {"counts", counts},
      {"race_count", result.races.size()},
      {"racy_events", racy_events},
      {"racy_event_count", racy_events.size()},
      {"racy_locations", racy_locations},
      {"truncated", false},
      {"seconds", seconds},
      {"extras",
       {{"conflicting_pairs", conflicting},
        {"states", result.states},
        {"transitions", result.transitions},
        {"stuck_states", result.stuck_states}}}};
  auto ids = [&](const std::vector<uint32_t>& indices) {
    json a = json::array();
    for (uint32_t i : indices) a.push_back(t.id(i));
    return a;
  };
  if (args.witness) {
    json witnesses = json::array();
    for (const exact::RaceWitness& w : result.witnesses) {
      json entry = {{"races", {t.id(w.first), t.id(w.second)}}, {"prefix", ids(w.prefix)}};
      if (result.reorderings == exact::Reorderings::Complete)
        entry["completion"] = ids(w.completion);
      witnesses.push_back(entry);
    }
    engine["witnesses"] = witnesses;
    if (result.stuck_states > 0) engine["stuck_witness"] = ids(result.stuck_witness);
  }
  if (args.deadlocks) {
    json cross = json::array();
    for (const exact::DeadlockWitness& d : result.cross_thread_deadlocks)
      cross.push_back(finding_json(trace.symbols, exact::deadlock_finding(t, d)));
    engine["cross_thread_deadlocks"] = cross;
    json critical = json::object();
    for (const CriticalReport& r : critical_reports(trace, result)) {
      json open = json::array();
      for (const auto& [a, b] : r.open) open.push_back({t.id(a), t.id(b)});
      critical[r.engine] = {{"races_without_predictable_race", open},
                            {"critical_1", r.cases.critical1},
                            {"critical_2", r.cases.critical2}};
    }
    engine["critical"] = critical;
  }
  if (args.mhb) {
    json pairs = json::array();
    for (uint32_t e = 0; e < t.size(); ++e)
      for (uint32_t f = 0; f < t.size(); ++f)
        if (result.mhb.before(e, f)) pairs.push_back({t.id(e), t.id(f)});
    engine["must_happen_before"] = pairs;
  }
  json doc = json_header("exact");
  doc["trace"] = trace_json(TraceInfo::of(args.path, trace.symbols, trace.summary, trace.size()));
  doc["results"] = json::array({engine});
  write_json(out, doc);
  return exit_code(result);
}

void write_witness_file(const ExactArgs& args, const TraceIndex& t,
                        const exact::SearchResult& result) {
  witness::WitnessFile file;
  file.trace = args.path;
  const bool enabled = result.notion == exact::RaceNotion::Enabled;
  for (const exact::RaceWitness& w : result.witnesses) {
    witness::Witness out;
    out.engine = enabled ? "exact-enabled" : "exact";
    out.notion = enabled ? witness::Notion::Enabled : witness::Notion::Adjacent;
    out.first = t.id(w.first);
    out.second = t.id(w.second);
    for (uint32_t i : w.prefix) out.prefix.push_back(t.id(i));
    file.witnesses.push_back(std::move(out));
  }
  ReportOutput output(args.witness_file, {args.path});
  output.stream() << witness::to_json(file);
  output.commit();
}

}  // namespace

Command add_exact_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "exact",
      "Ground truth: all predictable races of a small trace (Sulzmann and Thiemann, Def. 3.8)");
  sub->footer(
      "Explores every correctly reordered prefix (Def. 3.4); exponential, for traces of a few "
      "dozen events. Exit code 2 when the state budget is exhausted. See docs/GROUND_TRUTH.md.");
  auto args = std::make_shared<ExactArgs>();
  add_trace_argument(sub, args->path, args->report);
  sub->add_flag("--enabled", args->enabled,
                "Weaker notion: both events enabled after a correctly reordered prefix (the "
                "SHB/SyncP/M2 papers' notion), instead of adjacent (Def. 3.8)");
  sub->add_flag("--complete", args->complete,
                "Count only reorderings that extend to the whole trace (the reading of the "
                "paper's prose for Fig. 6, 9, 13); affects races and --mhb");
  sub->add_flag("--witness", args->witness,
                "Print, for each race, a correctly reordered prefix exhibiting it");
  sub->add_option("--witness-file", args->witness_file,
                  "Write every race's witness to FILE (JSON, docs/WITNESSES.md) for "
                  "`racepred check-witness`")
      ->type_name("FILE");
  sub->add_flag("--mhb", args->mhb, "Print the must-happen-before relation (Def. 3.5)");
  sub->add_flag("--deadlocks", args->deadlocks,
                "Also list the predictable deadlocks (Def. B.4) and cross-thread predictable "
                "deadlocks (Def. B.7) with their prefixes, and the Critical-1/Critical-2 cases "
                "(Def. B.8) of wcp's, sdp's and dc-tp's races");
  add_engine_options(sub, args->budget, EngineOptionGroup::Budget);
  add_report_options(sub, args->report);
  add_input_format_option(sub, args->input_format);
  return {sub,
          [args](std::ostream& out) -> int {
            const auto start = std::chrono::steady_clock::now();
            const Trace trace = read_validated(args->path, args->input_format);
            const TraceIndex t(trace);
            exact::SearchOptions options;
            options.notion =
                args->enabled ? exact::RaceNotion::Enabled : exact::RaceNotion::Adjacent;
            options.reorderings =
                args->complete ? exact::Reorderings::Complete : exact::Reorderings::Prefixes;
            options.max_states = args->budget.max_states;
            options.max_memory = args->budget.max_memory_mib << 20;
            options.witnesses = args->witness || !args->witness_file.empty();
            options.deadlocks = args->deadlocks;
            const exact::SearchResult result = exact::search(t, options);
            if (!args->witness_file.empty()) write_witness_file(*args, t, result);
            const size_t conflicting = t.conflicting_pairs().size();
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (args->report.json())
              return print_json(out, *args, trace, t, result, conflicting, seconds);
            std::ostringstream text;  // names from the trace: control characters escaped
            const int code = print_text(text, *args, trace, t, result, conflicting);
            out << printable_text(text.str());
            return code;
          },
          &args->report};
}

}  // namespace racepred::cli
