// racepred check-witness TRACE WITNESS: the independent check of witnesses (docs/WITNESSES.md).
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "racepred/cli/cli.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"
#include "racepred/witness/checker.hpp"

namespace racepred::cli {
namespace {

struct CheckWitnessOptions {
  ReportOptions report;
  std::string input_format = "auto";
  std::string trace;
  std::string witnesses;
};

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": error: cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path + ": error: cannot read: " + std::strerror(errno));
  return text.str();
}

int check_witnesses(const CheckWitnessOptions& o, std::ostream& out) {
  const Trace trace = load_checked_trace(o.trace, read_options(o.input_format, false));
  const witness::WitnessFile file =
      witness::parse_witness_file(read_whole(o.witnesses), o.witnesses, trace.size());
  witness::Checker checker(trace);
  std::vector<witness::Verdict> verdicts;
  verdicts.reserve(file.witnesses.size());
  size_t invalid = 0;
  for (const witness::Witness& w : file.witnesses) {
    verdicts.push_back(checker.check(w));
    invalid += !verdicts.back().valid();
  }

  if (o.report.json()) {
    nlohmann::ordered_json j = json_header("check-witness");
    j["trace"] = o.trace;
    j["witness_file"] = o.witnesses;
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (size_t k = 0; k < verdicts.size(); ++k) {
      const witness::Witness& w = file.witnesses[k];
      const witness::Verdict& v = verdicts[k];
      nlohmann::ordered_json entry;
      entry["engine"] = w.engine;
      entry["race"] = {w.first, w.second};
      entry["notion"] = witness::notion_name(w.notion);
      entry["events"] = checker.events(w);
      entry["valid"] = v.valid();
      if (!v.valid()) {
        entry["rule"] = witness::rule_name(v.rule);
        entry["event"] = v.event;
        entry["message"] = v.message;
      }
      list.push_back(std::move(entry));
    }
    j["witnesses"] = std::move(list);
    j["valid"] = verdicts.size() - invalid;
    j["invalid"] = invalid;
    write_json(out, j);
  } else {
    for (size_t k = 0; k < verdicts.size(); ++k) {
      const witness::Witness& w = file.witnesses[k];
      const witness::Verdict& v = verdicts[k];
      out << "witness " << k + 1;
      if (!w.engine.empty()) out << " (" << printable(w.engine, 200) << ")";
      out << ": race of events " << w.first << " and " << w.second << ", "
          << witness::notion_name(w.notion) << ", " << checker.events(w) << " events: ";
      if (v.valid()) {
        out << "valid\n";
      } else {
        out << "INVALID, breaks " << witness::rule_name(v.rule) << " at event " << v.event << ": "
            << printable(v.message, 4096) << '\n';
      }
    }
    out << verdicts.size() << " witness" << (verdicts.size() == 1 ? "" : "es") << ": "
        << verdicts.size() - invalid << " valid, " << invalid << " invalid\n";
  }
  return invalid == 0 ? kExitNoRace : kExitRaces;
}

}  // namespace

Command add_check_witness_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "check-witness", "Check witnesses of predicted races against the trace, independently");
  sub->description(
      "Checks each witness of WITNESS (a file written by `analyze --witness` or `exact\n"
      "--witness-file`, docs/WITNESSES.md) against TRACE: its events must form a correctly\n"
      "reordered prefix of the trace (each thread runs a prefix of its own events in order;\n"
      "locks, forks and joins keep their rules; every read sees the write it saw in the trace),\n"
      "after which the two racing accesses run back to back (adjacent) or are both next\n"
      "(enabled). The checker shares no code with the engines.\n"
      "Exit code: 0 every witness is valid, 1 a witness is invalid (the rule it breaks and the\n"
      "event are printed), 2 unreadable input.\n"
      "Examples:\n"
      "  racepred analyze -e shb --witness w.json trace.std\n"
      "  racepred check-witness trace.std w.json");
  auto o = std::make_shared<CheckWitnessOptions>();
  add_report_options(sub, o->report);
  add_input_format_option(sub, o->input_format);
  add_trace_argument(sub, o->trace, o->report);
  sub->add_option("WITNESS", o->witnesses, "The witness file (JSON)")->required();
  o->report.inputs.push_back(&o->witnesses);
  return {sub, [o](std::ostream& out) { return check_witnesses(*o, out); }, &o->report};
}

}  // namespace racepred::cli
