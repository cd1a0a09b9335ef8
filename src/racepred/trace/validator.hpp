// Well-formedness (Def. 3.2 of seed 003) with the policy of DESIGN.md "Well-formedness".
// The validator is an online filter: it checks each event, normalises re-entrant locking,
// and forwards the events that remain to the next consumer.
#pragma once

#include <cstdint>
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

struct ValidationIssue {
  EventId event = kNoEvent;
  uint32_t line = 0;
  std::string rule;     // "Lock-1", "Lock-2", "Fork-1", "Fork-2", "Join", "re-entrant"
  std::string message;  // complete sentence naming the event, e.g. "event 7 (line 9): T1 releases L …"
};

struct ValidationReport {
  uint64_t reentrant_acquires = 0;  // inner acquire/release pairs dropped (normalised)
  std::vector<ValidationIssue> notes;   // first few re-entrancy notes
  uint64_t violations = 0;              // all violations (dropped under Lenient/Collect)
  std::vector<ValidationIssue> errors;  // all violations under Collect, the first few otherwise
  uint64_t unreleased_locks = 0;        // critical sections still open at the end (allowed)
  bool ok() const { return violations == 0; }
};

struct ValidationOptions {
  ValidationMode mode = ValidationMode::Strict;
  std::string file_name;  // for messages
};

class Validator : public EventConsumer {
 public:
  Validator(const Symbols& symbols, ValidationOptions options, EventConsumer& next);
  ~Validator() override;
  void on_event(EventId id, const Event& event, uint32_t line) override;
  void on_end() override;
  const ValidationReport& report() const;

 private:
  struct State;
  State* state_;
};

}  // namespace racepred
