// Report writers: text in the ThreadSanitizer style and JSON (schema "racepred/2", docs/CLI.md).
// They print the findings model (finding.hpp) and switch over the finding kind without a default
// case.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "racepred/report/ci.hpp"
#include "racepred/report/race.hpp"
#include "racepred/trace/symbols.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {

inline constexpr const char* kJsonSchema = "racepred/2";

// The fields every JSON document of racepred starts with: schema, command, version.
nlohmann::ordered_json json_header(std::string_view command);
// Writes `doc` pretty-printed with two spaces, then a newline. Every command's JSON goes through
// here: a byte that is not valid UTF-8 (names come from the trace) is written as U+FFFD, the
// replacement character, instead of failing.
void write_json(std::ostream& out, const nlohmann::ordered_json& doc);

// The "trace" object of a report.
struct TraceInfo {
  std::string path;
  uint64_t events = 0;  // events the engines analysed
  uint64_t threads = 0;
  uint64_t variables = 0;
  uint64_t locks = 0;
  uint64_t skipped_events = 0;  // event lines not analysed (unused ops, dropped, malformed)
  std::string format;           // "std" / "speedygo"; left out of JSON when empty

  // What every command reports about the trace it read: `events` were analysed out of the
  // reader's event lines, the rest are skipped.
  static TraceInfo of(std::string path, const Symbols& symbols, const ReadSummary& read,
                      uint64_t events, bool with_format = true);
};

// The "trace" object of the JSON reports (analyze, check, stats, annotate, exact).
nlohmann::ordered_json trace_json(const TraceInfo& trace);

// One engine's result; the sink must be finalized. Its races, its other findings (deadlocks,
// failures) and its extras are reported.
struct EngineReport {
  std::string engine;
  const RaceSink* sink = nullptr;
  double seconds = 0;
  std::string error{};  // non-empty: the engine failed (budget) and has no result
  // The engine's guarantee says its first race is predictable (Soundness::FirstRace): that race
  // is labelled predicted, the others `confidence`.
  bool first_race_claim = false;
  Confidence confidence = Confidence::Possible;  // the label of the engine's reports
  // analyze --witness: the checked witnesses of the engine's races, by (first, second) event;
  // a race with one is labelled witnessed. `witness_file` is where they were written ("" when
  // they were not: JSON then carries each witness' events).
  const std::map<std::pair<EventId, EventId>, WitnessSummary>* witnesses = nullptr;
  std::string witness_file{};
  const WitnessSummary* witness_of(const Race& race) const;
};

// How an engine's reports are labelled, as the reports print it: "predicted", or "first race
// predicted, others possible" for an engine with a first-race claim.
std::string engine_confidence_text(const EngineReport& result);

// The races of one engine at one pair of locations, as the report shows them: the example is
// the first detected race of the pair, or the race the engine's first-race claim is about when
// the pair holds it (then the pair is labelled predicted).
struct LabelledPair {
  Race example;
  uint64_t count = 0;
  Confidence confidence = Confidence::Possible;
  bool claimed = false;  // the example is the race of the first-race claim
};
// An engine's kept races by pair of locations, in detection order (sink must be finalized).
std::vector<LabelledPair> labelled_pairs(const EngineReport& result);

struct Report {
  std::string command = "analyze";  // the JSON "command" field
  TraceInfo trace;
  const Symbols* symbols = nullptr;  // names of threads, variables and locations
  std::vector<EngineReport> results;
  // Where fingerprints read source lines (docs/CLI.md, "Fingerprints"); null: the files as
  // named, relative to the working directory.
  mutable std::shared_ptr<SourceLines> sources;
  // Suppressions and baseline: the findings it leaves out are not listed (the SUMMARY lines
  // still count what the engines found); null or inactive: every finding is listed.
  const FindingFilter* filter = nullptr;
  SourceLines& source_lines() const;
  // A trace with call stacks: the locks each reported access held (by its event), printed with
  // where each was acquired; nullptr when not known.
  const std::map<EventId, std::vector<HeldLock>>* held_locks = nullptr;
};

// What report.filter leaves out of the report (an empty summary without a filter).
FilterSummary filter_summary(const Report& report);
// The fingerprint of a finding of this report.
std::string report_fingerprint(const Report& report, const Finding& finding);
// The report as one SARIF 2.1.0 log (docs/CLI.md, "SARIF").
void write_sarif_report(std::ostream& out, const Report& report);

// One race across the engines of a run: the races the engines report at one unordered pair of
// locations (a race whose first access is unknown counts at its later location alone).
struct DistinctRace {
  Race example;                                  // the first engine's example
  Confidence confidence = Confidence::Possible;  // the most certain label any engine gives it
  struct Found {
    size_t result = 0;  // index in Report::results
    Race example;
    uint64_t count = 0;
    Confidence confidence = Confidence::Possible;
  };
  std::vector<Found> found;  // in the order of the engines
};
struct CombinedSummary {
  std::vector<DistinctRace> races;  // in detection order of their first example
  bool complete = true;             // false: some engine's race list was cut (--max-races)
  uint64_t count(Confidence c) const;
};
// Data races only (read-read discipline violations, deadlocks and failures stay per engine).
CombinedSummary combined_summary(const Report& report);

// One block per pair of source locations and engine, each labelled with its confidence, then
// one SUMMARY line per engine, the distinct races with the engines that found each (when
// several engines ran), and one combined SUMMARY line.
void write_text_report(std::ostream& out, const Report& report);
// The SUMMARY line of one engine (without newline), e.g.
// "SUMMARY: racepred: 2 races (2 racy events, 1 racy location) with engine lockset in t.std …".
std::string summary_line(const Report& report, const EngineReport& result);

// One finding as in the "findings" of racepred/2: "kind", "count", then the kind's fields.
// `locks_key` names a race's RaceLocks (EngineExtras::locks_key).
nlohmann::ordered_json finding_json(const Symbols& symbols, const Finding& finding,
                                    std::string_view locks_key = "locks");
// One finding in text: a block opening with "WARNING: " (no separator lines). `engine` names
// who found it.
void write_text_finding(std::ostream& out, const Symbols& symbols, const Finding& finding,
                        std::string_view engine, std::string_view locks_text = "Locks");
nlohmann::ordered_json json_report(const Report& report);
// json_report(report) pretty-printed with two spaces, then a newline.
void write_json_report(std::ostream& out, const Report& report);

}  // namespace racepred
