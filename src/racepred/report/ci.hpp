// What CI needs from reports (docs/CI.md): a filter that leaves out suppressed findings and those
// of a baseline, SARIF 2.1.0, and merging the JSON reports of several runs. SARIF, baselines and
// merging work on the JSON form of findings (finding_json plus "engine", "confidence" and
// "fingerprint"), so that they apply alike to analyze, explore and merged reports.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/report/fingerprint.hpp"
#include "racepred/report/suppressions.hpp"

namespace racepred {

// The fingerprints of a baseline: a racepred JSON report (analyze, explore, merge) or a SARIF
// log racepred wrote. InputError when the file cannot be read or is neither.
struct Baseline {
  std::string file;
  std::set<std::string> fingerprints;
  static Baseline read(const std::string& path);
};

// Decides which findings a report shows. Without suppressions and baseline it shows all.
struct FindingFilter {
  Suppressions suppressions;
  std::optional<Baseline> baseline;
  bool active() const { return !suppressions.empty() || baseline.has_value(); }
  enum class Verdict : uint8_t { Shown, Suppressed, InBaseline };
  // `suppression`: the index of the matching suppression when Suppressed.
  Verdict judge(const Symbols& symbols, const Finding& finding, const std::string& fingerprint,
                int* suppression = nullptr) const;
};

// What a filter left out of a report, for its summary lines and exit code.
struct FilterSummary {
  std::vector<uint64_t> used;  // findings per suppression (index of Suppressions::list())
  uint64_t suppressed = 0;
  uint64_t in_baseline = 0;
  uint64_t shown_failing = 0;  // shown findings that make a run fail (fails_run)
  // Races an engine counted but did not list (--max-races): not filtered, so counted as shown.
  uint64_t unlisted = 0;
};
// "Suppressions used:" with counts, unused suppressions, and the baseline line.
void write_filter_summary(std::ostream& out, const FindingFilter& filter,
                          const FilterSummary& summary);
nlohmann::ordered_json filter_summary_json(const FindingFilter& filter,
                                           const FilterSummary& summary);

// One SARIF 2.1.0 log of `findings` (JSON findings with "engine", "confidence", "fingerprint";
// equal (kind, engine, fingerprint) are one result with their counts summed).
// `command`: the racepred command that found them; `artifact`: the trace or program.
nlohmann::ordered_json sarif_log(const std::vector<nlohmann::ordered_json>& findings,
                                 std::string_view command, const std::string& artifact);

// racepred merge: the findings of several JSON reports (analyze, explore, merge), one per
// fingerprint and kind, counts summed, the first run's finding kept with "first_seen" (the input
// it came from) and "runs" (how many inputs have it). InputError for a file that is not a racepred
// JSON report.
nlohmann::ordered_json merge_reports(const std::vector<std::string>& paths);
// The findings of a report (analyze, explore or merge) with "engine" set on each.
std::vector<nlohmann::ordered_json> report_findings(const nlohmann::ordered_json& doc);

}  // namespace racepred
