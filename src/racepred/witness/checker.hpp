// The independent witness checker (racepred check-witness): is a witness a correctly reordered
// prefix of the trace in which the two accesses race? Written from the definitions alone
// (Def. 3.2 and 3.4 of Sulzmann and Thiemann's cross-thread paper, docs/WELLFORMEDNESS.md for
// read-write locks); it shares no code with the engines that produce witnesses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/trace/trace.hpp"
#include "racepred/witness/witness.hpp"

namespace racepred::witness {

// The rule a witness breaks. Names as in the papers and docs/WITNESSES.md.
enum class Rule : uint8_t {
  None,      // valid
  Unknown,   // an event id that is not in the trace
  PO,        // a thread's events in T' are not a prefix of its events in the trace, in order
  Lock1,     // an acquire of a lock another thread holds (or held in the other mode)
  Lock2,     // a release of a lock the thread does not hold
  Fork,      // an event of a thread before the fork that starts it
  Join,      // a join before the joined thread's last event
  LW,        // a read that sees another write than in the trace
  Sync,      // a recv(o) before a send(o) that precedes it in the trace
  Conflict,  // the two events do not conflict (same variable, different threads, a write)
  Meet,      // the two events are not the last two of T' (adjacent) or not both next (enabled)
};
std::string_view rule_name(Rule rule);  // "PO", "Lock-1", "LW", …

struct Verdict {
  Rule rule = Rule::None;
  EventId event = kNoEvent;  // the event at which the witness breaks the rule
  std::string message;       // why, in words, naming events in STD form
  bool valid() const { return rule == Rule::None; }
};

// Checks witnesses against one well-formed trace (load it with the validator). Set-up is linear
// in the trace; each check is linear in the witness.
class Checker {
 public:
  explicit Checker(const Trace& trace);
  Verdict check(const Witness& w);

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  size_t position(EventId id) const;  // SIZE_MAX when not in the trace
  std::string describe(size_t i) const;

  const Trace& trace_;
  bool dense_ids_ = false;               // ids are 1..n
  std::vector<uint32_t> rank_;           // event's position among its thread's events
  std::vector<uint32_t> last_write_;     // for reads: the trace's last write before, or kNone
  std::vector<uint32_t> thread_events_;  // events per thread
  std::vector<uint32_t> fork_;           // the fork of each thread, or kNone
  // For a recv at i: the last send on its object of each thread before it in the trace, at
  // sends_[sends_at_[i], sends_at_[i + 1]) (empty without recv events).
  std::vector<uint32_t> sends_at_;
  std::vector<uint32_t> sends_;
  // State of one check, kept to reuse the memory.
  std::vector<uint32_t> ran_;         // events run per thread
  std::vector<uint32_t> writer_;      // per lock: holder in write mode + 1, or 0
  std::vector<uint32_t> readers_;     // per lock: holders in read mode
  std::vector<uint32_t> seen_write_;  // per variable: last write in T', or kNone
  std::vector<std::pair<uint32_t, uint32_t>> read_holds_;  // (lock, thread) held in read mode
};

}  // namespace racepred::witness
