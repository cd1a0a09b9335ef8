// racepred check: well-formedness report (Def. 3.2 of seed 003, policy in docs/WELLFORMEDNESS.md).
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "racepred/cli/cli.hpp"
#include "racepred/io/formats.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred::cli {
namespace {

struct CheckOptions {
  std::string format = "text";
  std::string input_format = "auto";
  std::string trace;
};

class Discard : public EventConsumer {
 public:
  void on_event(EventId, const Event&, uint32_t) override {}
};

std::string plural(uint64_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

nlohmann::ordered_json issue_json(const ValidationIssue& issue) {
  return {{"rule", issue.rule},
          {"event", issue.event},
          {"line", issue.line},
          {"message", issue.message}};
}

int check(const CheckOptions& o) {
  ReadOptions read;
  read.format = *parse_input_format(o.input_format);
  const std::string name = o.trace == "-" ? "<stdin>" : o.trace;

  Symbols symbols;
  Discard sink;
  Validator validator(symbols, ValidationOptions{ValidationMode::Collect, name}, sink);
  const ReadSummary summary = read_events(o.trace, read, symbols, validator);
  validator.on_end();
  const ValidationReport& v = validator.report();

  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["schema"] = "racepred/1";
    j["trace"] = trace_json(TraceInfo::of(name, symbols, summary, summary.delivered, true));
    j["well_formed"] = v.ok();
    j["violation_count"] = v.violations;
    nlohmann::ordered_json by_rule = nlohmann::ordered_json::object();
    for (const auto& [rule, n] : v.violations_by_rule) by_rule[rule] = n;
    j["violations_by_rule"] = by_rule;
    j["violations"] = nlohmann::ordered_json::array();
    for (const ValidationIssue& issue : v.errors) j["violations"].push_back(issue_json(issue));
    j["reentrant_acquires"] = v.reentrant_acquires;
    j["notes"] = nlohmann::ordered_json::array();
    for (const ValidationIssue& issue : v.notes) j["notes"].push_back(issue_json(issue));
    j["unreleased_locks"] = v.unreleased_locks;
    std::cout << j.dump(2) << '\n';
  } else {
    for (const ValidationIssue& issue : v.errors)
      std::cout << name << ':' << issue.line << ": error: " << issue.rule << ": " << issue.message
                << '\n';
    for (const ValidationIssue& issue : v.notes)
      std::cout << name << ':' << issue.line << ": note: " << issue.rule << ": " << issue.message
                << '\n';
    if (v.reentrant_acquires > v.notes.size())
      std::cout << name << ": note: " << v.reentrant_acquires - v.notes.size()
                << " more re-entrant acquires not listed\n";
    std::string detail = plural(summary.delivered, "event") + ", " +
                         plural(symbols.threads.size(), "thread") + ", " +
                         plural(v.reentrant_acquires, "re-entrant acquire") + " normalised";
    if (v.unreleased_locks)
      detail += ", " + plural(v.unreleased_locks, "lock") + " held at the end";
    if (v.ok()) {
      std::cout << name << ": well-formed (" << detail << ")\n";
    } else {
      std::string rules;
      for (const auto& [rule, n] : v.violations_by_rule)
        rules += (rules.empty() ? "" : ", ") + rule + " " + std::to_string(n);
      std::cout << name << ": NOT well-formed: " << plural(v.violations, "violation") << " ("
                << rules << "; " << detail << ")\n";
    }
  }
  std::cout.flush();
  return v.ok() ? kExitNoRace : kExitError;
}

}  // namespace

Command add_check_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "check", "Check well-formedness (Def. 3.2 of the cross-thread paper) and list violations");
  sub->description(
      "Check that TRACE is well-formed (Def. 3.2 of the cross-thread paper: Lock-1, Lock-2,\n"
      "Fork-1, Fork-2, Join) under racepred's policy: re-entrant acquires are normalised (a\n"
      "note), threads without a fork run from the start, forks of threads that never run are\n"
      "fine. Lists every violation with its rule, event id and line, then a verdict line.\n"
      "Exit code: 0 well-formed, 2 not well-formed or input error.\n"
      "Examples:\n"
      "  racepred check trace.std\n"
      "  racepred check --format json trace.std");
  auto o = std::make_shared<CheckOptions>();
  sub->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  sub->add_option("--input-format", o->input_format,
                  "Trace format (auto: judged by the first event line)")
      ->check(CLI::IsMember(input_format_names()))
      ->capture_default_str();
  sub->add_option("TRACE", o->trace, "Trace file ('-' reads standard input)")->required();
  return {sub, [o]() { return check(*o); }};
}

}  // namespace racepred::cli
