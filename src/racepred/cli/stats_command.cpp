// racepred stats: what a trace contains (the columns E, T, M, L of Sulzmann and Thiemann's Fig. 11
// and more).
#include <array>
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

struct StatsOptions {
  ReportOptions report;
  bool lenient = false;
  std::string input_format = "auto";
  std::string trace;
};

// Counts every event the reader delivers, then forwards it (to the validator).
class OpCounter : public EventConsumer {
 public:
  explicit OpCounter(EventConsumer& next) : next_(next) {}
  void on_event(EventId id, const Event& event, uint32_t line) override {
    ++ops[static_cast<size_t>(event.op)];
    if (event.thread >= active.size()) active.resize(event.thread + 1, false);
    active[event.thread] = true;
    next_.on_event(id, event, line);
  }
  void on_end() override { next_.on_end(); }

  std::array<uint64_t, kOpCount> ops{};
  std::vector<bool> active;  // threads with at least one event

 private:
  EventConsumer& next_;
};

class Discard : public EventConsumer {
 public:
  void on_event(EventId, const Event&, uint32_t) override {}
};

std::string counts_text(const std::map<std::string, uint64_t>& counts) {
  if (counts.empty()) return "none";
  std::string s;
  for (const auto& [name, n] : counts)
    s += (s.empty() ? "" : ", ") + name + " " + std::to_string(n);
  return s;
}

int stats(const StatsOptions& o, std::ostream& out) {
  const ReadOptions read = read_options(o.input_format, o.lenient);
  const std::string name = o.trace == "-" ? "<stdin>" : o.trace;

  Symbols symbols;
  Discard sink;
  // Only counts are printed: keep no violation messages.
  Validator validator(symbols, ValidationOptions{ValidationMode::Collect, name, 0}, sink);
  OpCounter counter(validator);
  const ReadSummary summary = read_events(o.trace, read, symbols, counter);
  counter.on_end();
  const ValidationReport& v = validator.report();
  uint64_t active = 0;
  for (bool a : counter.active) active += a;

  if (o.report.json()) {
    nlohmann::ordered_json j = json_header("stats");
    j["trace"] = trace_json(TraceInfo::of(name, symbols, summary, summary.delivered));
    nlohmann::ordered_json ops = nlohmann::ordered_json::object();
    for (int i = 0; i < kOpCount; ++i)
      ops[std::string(op_name(static_cast<Op>(i)))] = counter.ops[i];
    nlohmann::ordered_json by_rule = nlohmann::ordered_json::object();
    for (const auto& [rule, n] : v.violations_by_rule) by_rule[rule] = n;
    j["stats"] = {{"lines", summary.lines},
                  {"event_lines", summary.event_lines},
                  {"threads_with_events", active},
                  {"locations", symbols.locations.size()},
                  {"ops", ops},
                  {"skipped_ops", summary.skipped_ops},
                  {"malformed", summary.malformed},
                  {"malformed_examples", summary.malformed_examples},
                  {"well_formed", v.ok()},
                  {"violations", v.violations},
                  {"violations_by_rule", by_rule},
                  {"reentrant_acquires", v.reentrant_acquires},
                  {"unreleased_locks", v.unreleased_locks},
                  {"threads_without_events", v.threads_without_events}};
    write_json(out, j);
    return kExitNoRace;
  }

  auto row = [&out](std::string_view key, const std::string& value) {
    out << key << std::string(key.size() < 20 ? 20 - key.size() : 1, ' ') << value << '\n';
  };
  row("trace", printable(name, 4096));
  row("format", summary.compression.empty() ? summary.format
                                            : summary.format + " (" + summary.compression + ")");
  row("events", std::to_string(summary.delivered));
  row("threads",
      std::to_string(symbols.threads.size()) + " (" + std::to_string(active) + " with events)");
  row("variables", std::to_string(symbols.variables.size()));
  row("locks", std::to_string(symbols.locks.size()));
  row("locations", std::to_string(symbols.locations.size()));
  std::string ops;
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    // Read locks, sync orders and requests only when the trace has them.
    if ((is_read_lock_op(op) || is_sync_op(op) || is_request_op(op)) && counter.ops[i] == 0)
      continue;
    ops += (i ? ", " : "") + std::string(op_name(static_cast<Op>(i))) + " " +
           std::to_string(counter.ops[i]);
  }
  row("events per op", ops);
  row("skipped ops", counts_text(summary.skipped_ops));
  row("lines",
      std::to_string(summary.lines) + " (" + std::to_string(summary.event_lines) + " event lines)");
  if (o.lenient || summary.malformed) row("malformed lines", std::to_string(summary.malformed));
  for (const std::string& m : summary.malformed_examples) out << "  " << printable(m, 4096) << '\n';
  std::string wf = v.ok() ? "yes"
                          : "no: " + std::to_string(v.violations) + " violation" +
                                (v.violations == 1 ? "" : "s") + " (" +
                                counts_text(v.violations_by_rule) + "); see racepred check";
  row("well-formed", wf);
  row("re-entrant", std::to_string(v.reentrant_acquires) + " inner acquire" +
                        (v.reentrant_acquires == 1 ? "" : "s") + " normalised");
  row("locks held at end", std::to_string(v.unreleased_locks));
  if (v.threads_without_events)
    row("idle threads", std::to_string(v.threads_without_events) +
                            " forked or joined without an event of their own");
  return kExitNoRace;
}

}  // namespace

Command add_stats_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "stats", "Trace statistics: events, threads, variables, locks, events per op, skipped ops");
  sub->description(
      "Trace statistics: events (E), threads (T), variables (M), locks (L) as in Fig. 11 of the\n"
      "cross-thread paper, events per operation, skipped operations (begin, end, ...), malformed\n"
      "lines (with --lenient) and a one-line well-formedness verdict (details: racepred check).\n"
      "Exit code: 0, or 2 on an input error.\n"
      "Examples:\n"
      "  racepred stats trace.std\n"
      "  racepred stats --format json --input-format speedygo Test12.log");
  auto o = std::make_shared<StatsOptions>();
  add_report_options(sub, o->report);
  add_lenient_option(sub, o->lenient, "Skip malformed lines (counted) instead of failing");
  add_input_format_option(sub, o->input_format);
  add_trace_argument(sub, o->trace, o->report);
  return {sub, [o](std::ostream& out) { return stats(*o, out); }, &o->report};
}

}  // namespace racepred::cli
