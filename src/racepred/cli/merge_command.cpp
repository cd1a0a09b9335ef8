// racepred merge: the JSON reports of several runs or shards as one report, each finding once
// (by fingerprint), with its counts summed and the run it was first seen in (docs/CLI.md).
#include <memory>
#include <sstream>

#include "racepred/cli/cli.hpp"
#include "racepred/report/ci.hpp"
#include "racepred/report/html.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"

namespace racepred::cli {
namespace {

struct MergeOptions {
  ReportOptions report;
  std::vector<std::string> inputs;
  std::string baseline;
};

std::string text_of(const nlohmann::ordered_json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "x at a.c:4 and b.c:9", "a deadlock at a.c:4, b.c:9", "crash at a.c:3".
std::string place_of(const nlohmann::ordered_json& f) {
  const std::string kind = text_of(f, "kind");
  if (kind == "data-race" || kind == "read-read-violation") {
    std::string s = text_of(f, "variable") + " at ";
    if (!text_of(f, "first_location").empty()) s += text_of(f, "first_location") + " and ";
    return s + text_of(f, "second_location");
  }
  if (kind == "deadlock") {
    std::string s = "cycle at ";
    if (f.contains("cycle"))
      for (size_t i = 0; i < f["cycle"].size(); ++i)
        s += (i ? ", " : "") + text_of(f["cycle"][i], "location");
    return s;
  }
  std::string s = text_of(f, "failure");
  if (!text_of(f, "location").empty()) s += " at " + text_of(f, "location");
  return s;
}

int merge(const MergeOptions& o, std::ostream& out) {
  std::optional<Baseline> baseline;
  if (!o.baseline.empty()) baseline = Baseline::read(o.baseline);
  nlohmann::ordered_json merged = merge_reports(o.inputs);
  uint64_t in_baseline = 0;
  if (baseline) {
    nlohmann::ordered_json kept = nlohmann::ordered_json::array();
    for (nlohmann::ordered_json& f : merged["findings"]) {
      if (baseline->fingerprints.count(text_of(f, "fingerprint"))) {
        ++in_baseline;
      } else {
        kept.push_back(std::move(f));
      }
    }
    merged["findings"] = std::move(kept);
  }
  bool failing = false;
  for (const nlohmann::ordered_json& f : merged["findings"]) {
    const std::string kind = text_of(f, "kind");
    failing = failing || kind == "data-race" || kind == "deadlock" || kind == "failure";
  }
  if (o.report.sarif()) {
    write_json(out, sarif_log(report_findings(merged), "merge", ""));
  } else if (o.report.html()) {
    std::string subject;
    for (const std::string& input : o.inputs) subject += (subject.empty() ? "" : " ") + input;
    SourceLines sources;
    write_html_report(out, report_findings(merged), "merge", subject, sources);
  } else if (o.report.json()) {
    nlohmann::ordered_json doc = json_header("merge");
    for (auto& [key, value] : merged.items()) doc[key] = value;
    if (baseline)
      doc["baseline"] = {{"file", baseline->file},
                         {"fingerprints", baseline->fingerprints.size()},
                         {"in_baseline", in_baseline}};
    write_json(out, doc);
  } else {
    std::ostringstream text;
    for (const nlohmann::ordered_json& f : merged["findings"]) {
      text << "WARNING: " << text_of(f, "kind") << " " << printable(place_of(f)) << '\n';
      text << "  Fingerprint: " << text_of(f, "fingerprint") << "; found " << f.value("count", 0)
           << (f.value("count", 0) == 1 ? " time" : " times") << " in " << f.value("runs", 0)
           << " of " << o.inputs.size() << (o.inputs.size() == 1 ? " report" : " reports")
           << " by ";
      for (size_t i = 0; i < f["engines"].size(); ++i)
        text << (i ? ", " : "") << printable(f["engines"][i].get<std::string>());
      text << "; first seen in " << printable(text_of(f, "first_seen")) << '\n';
    }
    if (baseline)
      text << "Baseline " << printable(baseline->file) << ": " << in_baseline
           << (in_baseline == 1 ? " finding" : " findings")
           << " already in the baseline (not shown)\n";
    text << "SUMMARY: racepred merge: " << merged["findings"].size()
         << (merged["findings"].size() == 1 ? " distinct finding" : " distinct findings")
         << " by fingerprint in " << o.inputs.size()
         << (o.inputs.size() == 1 ? " report" : " reports") << '\n';
    out << (color_wanted(o.report) ? colorize(text.str()) : text.str());
  }
  return failing ? kExitRaces : kExitNoRace;
}

}  // namespace

Command add_merge_command(CLI::App& app) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* sub = app.add_subcommand(
      "merge",
      "Join the JSON reports of several runs or shards: each finding once, by fingerprint");
  sub->footer(
      "Reads reports written with --format json by analyze, explore or merge. Findings with the\n"
      "same kind and fingerprint are one: their counts are summed, \"runs\" says how many\n"
      "reports have it, \"engines\" which engines found it, and the first report's finding is\n"
      "kept with \"first_seen\" naming that report. --baseline OLD leaves out findings whose\n"
      "fingerprint OLD has. Exit code: 0 nothing listed, 1 a data race, deadlock or program\n"
      "failure listed, 2 usage or input error.\n"
      "\n"
      "Examples:\n"
      "  racepred merge shard1.json shard2.json shard3.json\n"
      "  racepred merge --format sarif -o all.sarif runs/*.json\n"
      "  racepred merge --format html -o all.html runs/*.json");
  add_report_options(sub, o->report, /*with_ci=*/true);
  add_color_option(sub, o->report);
  sub->add_option("--baseline", o->baseline,
                  "List only findings whose fingerprint is not in OLD (a JSON report or SARIF "
                  "log of racepred)")
      ->type_name("OLD.json|OLD.sarif");
  sub->add_option("REPORT", o->inputs, "JSON reports (racepred --format json)")
      ->required()
      ->check(CLI::ExistingFile);
  // The reports are known once parsing is done (the vector is filled then): -o must not name one
  // of them, nor the baseline.
  sub->parse_complete_callback([o] {
    for (const std::string& input : o->inputs) o->report.inputs.push_back(&input);
    o->report.inputs.push_back(&o->baseline);
  });
  return {sub, [o](std::ostream& out) { return merge(*o, out); }, &o->report};
}

}  // namespace racepred::cli
