// racepred check: well-formedness report (Def. 3.2 of Sulzmann and Thiemann, policy in
// docs/WELLFORMEDNESS.md).
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "racepred/cli/cli.hpp"
#include "racepred/io/formats.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred::cli {
namespace {

struct CheckOptions {
  ReportOptions report;
  std::string input_format = "auto";
  size_t max_violations = 1000;
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

int check(const CheckOptions& o, std::ostream& out) {
  const ReadOptions read = read_options(o.input_format, false);
  const std::string name = o.trace == "-" ? "<stdin>" : o.trace;
  const std::string shown = printable(name, 4096);

  Symbols symbols;
  Discard sink;
  Validator validator(symbols, ValidationOptions{ValidationMode::Collect, name, o.max_violations},
                      sink);
  const ReadSummary summary = read_events(o.trace, read, symbols, validator);
  validator.on_end();
  const ValidationReport& v = validator.report();
  const bool listed_all = v.errors.size() == v.violations;

  if (o.report.json()) {
    nlohmann::ordered_json j = json_header("check");
    j["trace"] = trace_json(TraceInfo::of(name, symbols, summary, summary.delivered));
    j["verdict"] = v.ok() ? "well-formed" : "ill-formed";
    j["well_formed"] = v.ok();
    j["violation_count"] = v.violations;
    nlohmann::ordered_json by_rule = nlohmann::ordered_json::object();
    for (const auto& [rule, n] : v.violations_by_rule) by_rule[rule] = n;
    j["violations_by_rule"] = by_rule;
    j["violations"] = nlohmann::ordered_json::array();
    for (const ValidationIssue& issue : v.errors) j["violations"].push_back(issue_json(issue));
    j["violations_truncated"] = !listed_all;
    j["reentrant_acquires"] = v.reentrant_acquires;
    j["notes"] = nlohmann::ordered_json::array();
    for (const ValidationIssue& issue : v.notes) j["notes"].push_back(issue_json(issue));
    j["unreleased_locks"] = v.unreleased_locks;
    j["threads_without_events"] = v.threads_without_events;
    write_json(out, j);
  } else {
    for (const ValidationIssue& issue : v.errors)
      out << shown << ':' << issue.line << ": error: " << issue.rule << ": " << issue.message
          << '\n';
    if (!listed_all)
      out << shown << ": note: " << v.violations - v.errors.size()
          << " more violations not listed (--max-violations " << o.max_violations << ")\n";
    for (const ValidationIssue& issue : v.notes)
      out << shown << ':' << issue.line << ": note: " << issue.rule << ": " << issue.message
          << '\n';
    if (v.reentrant_acquires > v.notes.size())
      out << shown << ": note: " << v.reentrant_acquires - v.notes.size()
          << " more re-entrant acquires not listed\n";
    if (v.threads_without_events) {
      out << shown << ": warning: " << plural(v.threads_without_events, "thread")
          << " forked or joined without an event of its own:";
      for (const std::string& t : v.threads_without_events_examples) out << ' ' << t;
      out << (v.threads_without_events > v.threads_without_events_examples.size() ? " ..." : "")
          << '\n';
    }
    std::string detail = plural(summary.delivered, "event") + ", " +
                         plural(symbols.threads.size(), "thread") + ", " +
                         plural(v.reentrant_acquires, "re-entrant acquire") + " normalised";
    if (v.unreleased_locks)
      detail += ", " + plural(v.unreleased_locks, "lock") + " held at the end";
    if (v.ok()) {
      out << shown << ": well-formed (" << detail << ")\n";
    } else {
      std::string rules;
      for (const auto& [rule, n] : v.violations_by_rule)
        rules += (rules.empty() ? "" : ", ") + rule + " " + std::to_string(n);
      out << shown << ": NOT well-formed: " << plural(v.violations, "violation") << " (" << rules
          << "; " << detail << ")\n";
    }
  }
  return v.ok() ? kExitNoRace : kExitError;
}

}  // namespace

Command add_check_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "check", "Check well-formedness (Def. 3.2 of the cross-thread paper) and list violations");
  sub->description(
      "Check that TRACE is well-formed: locks are acquired by one thread at a time and released\n"
      "by their holder, each thread is forked at most once and before its first event, and no\n"
      "thread acts after it was joined (Lock-1, Lock-2, Fork-1, Fork-2, Join of Def. 3.2 in\n"
      "the cross-thread paper). Policy: re-entrant acquires are normalised (a note), threads\n"
      "without a fork run from the start, forks of threads that never run are fine (a warning).\n"
      "Lists the violations with rule, event id and line, then a verdict line.\n"
      "Exit code: 0 well-formed; 2 either not well-formed (verdict line 'NOT well-formed', JSON\n"
      "\"verdict\": \"ill-formed\") or unreadable (an error message, JSON \"error\" object).\n"
      "Examples:\n"
      "  racepred check trace.std\n"
      "  racepred check --format json trace.std");
  auto o = std::make_shared<CheckOptions>();
  add_report_options(sub, o->report);
  sub->add_option("--max-violations", o->max_violations,
                  "List at most N violations (all are counted)")
      ->type_name("N")
      ->check(whole_number(0))
      ->capture_default_str();
  add_input_format_option(sub, o->input_format);
  add_trace_argument(sub, o->trace, o->report);
  return {sub, [o](std::ostream& out) { return check(*o, out); }, &o->report};
}

}  // namespace racepred::cli
