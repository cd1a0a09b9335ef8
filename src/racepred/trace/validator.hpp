// Well-formedness (Def. 3.2 of Sulzmann and Thiemann) with the policy of docs/WELLFORMEDNESS.md.
// The validator is an online filter: it checks each event, normalises re-entrant locking,
// and forwards the events that remain to the next consumer. docs/WELLFORMEDNESS.md has the rules.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "racepred/trace/error.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {

enum class ValidationMode {
  Strict,   // throw InputError at the first violation (analyze's default)
  Lenient,  // drop each offending event, count it, go on (--lenient)
  Collect,  // record every violation, drop the offending events, go on (racepred check)
};

// Rule names as in Def. 3.2, and the note for normalised re-entrant locking.
inline constexpr const char* kRuleLock1 = "Lock-1";
inline constexpr const char* kRuleLock2 = "Lock-2";
inline constexpr const char* kRuleFork1 = "Fork-1";
inline constexpr const char* kRuleFork2 = "Fork-2";
inline constexpr const char* kRuleJoin = "Join";
// A req(l) is followed in its thread only by the acquire of l that grants it, and its thread is
// not joined while it waits (docs/WELLFORMEDNESS.md, "Lock requests").
inline constexpr const char* kRuleRequest = "Request";
inline constexpr const char* kNoteReentrant = "re-entrant";

struct ValidationIssue {
  EventId event = kNoEvent;
  uint32_t line = 0;
  std::string rule;  // "Lock-1", "Lock-2", "Fork-1", "Fork-2", "Join", "Request", "re-entrant"
  std::string
      message;  // complete sentence naming the event, e.g. "event 7 (line 9): T1 releases L …"
};

struct ValidationReport {
  uint64_t reentrant_acquires = 0;      // inner acquire/release pairs dropped (normalised)
  std::vector<ValidationIssue> notes;   // first few re-entrancy notes
  uint64_t violations = 0;              // all violations (dropped under Lenient/Collect)
  std::vector<ValidationIssue> errors;  // the first ValidationOptions::max_issues violations
  std::map<std::string, uint64_t> violations_by_rule;  // rule -> count
  // Releases (and nested acquires) dropped together with an acquire that broke Lock-1; not
  // counted as violations of their own.
  uint64_t dropped_with_acquire = 0;
  uint64_t unreleased_locks = 0;  // critical sections still open at the end (allowed)
  // Threads forked or joined that have no event of their own (allowed, but often a typo in a
  // hand-written trace: a warning), and the names of the first few.
  uint64_t threads_without_events = 0;
  std::vector<std::string> threads_without_events_examples;
  uint64_t forwarded = 0;  // events passed on to the next consumer
  bool ok() const { return violations == 0; }
};

// The one error format of a violation, as every command reports it (analyze, exact, annotate
// under Strict; the exact module): "FILE:LINE:1: error: trace is not well-formed (RULE): event N
// (line L): …". Without a file name or line (events in memory): "error: trace is not
// well-formed (RULE): event N: …".
std::string validation_error(const std::string& file_name, const ValidationIssue& issue);

// How many notes (and, outside Collect, errors) a report keeps; all are counted.
inline constexpr size_t kKeptIssues = 10;

struct ValidationOptions {
  ValidationMode mode = ValidationMode::Strict;
  std::string file_name;  // for messages
  // Violations kept in ValidationReport::errors (all are counted): memory stays bounded
  // whatever the number of violations.
  size_t max_issues = kKeptIssues;
};

class Validator : public EventConsumer {
 public:
  // `symbols` names threads and locks in messages only (read when an issue is found).
  Validator(const Symbols& symbols, ValidationOptions options, EventConsumer& next);
  ~Validator() override;
  Validator(const Validator&) = delete;
  Validator& operator=(const Validator&) = delete;

  void on_event(EventId id, const Event& event, uint32_t line) override;
  // Checks each event; forwards the runs of events it keeps as runs.
  void on_events(std::span<const EventId> ids, std::span<const Event> events) override;
  // The same with input lines (named in the messages).
  void on_lines(std::span<const EventId> ids, std::span<const Event> events,
                std::span<const uint32_t> lines) override;
  // Counts the locks still held, then calls next.on_end().
  void on_end() override;
  const ValidationReport& report() const;

 private:
  void check_run(std::span<const EventId> ids, std::span<const Event> events,
                 std::span<const uint32_t> lines);
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace racepred
