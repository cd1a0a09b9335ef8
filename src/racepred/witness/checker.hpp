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
// in the trace; each check of a listed prefix is linear in the witness. A witness that is only
// a cut is checked without visiting its events: in trace order each thread runs a prefix and
// every read, recv, fork and join keeps what came before it in the trace, so the rules reduce to
// "this event in T' needs that event in T'" (per thread pair, the largest need of a prefix of
// the thread, looked up by binary search) and, for locks, "no section left open in T' before a
// later conflicting section of its lock in T'" (the sections a thread holds at its cut, and per
// other thread its last section of the lock inside the cut). A cut the fast check rejects is
// expanded and checked event by event, which names the rule and the event.
class Checker {
 public:
  explicit Checker(const Trace& trace);
  Verdict check(const Witness& w);
  // The number of events of T' (the cut's and the prefix's), 0 when the cut names an unknown
  // event.
  uint64_t events(const Witness& w) const;
  // Events checked one by one so far (listed prefixes, and cuts the fast check did not accept):
  // the work measure of the tests.
  uint64_t listed_events() const { return listed_events_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  size_t position(EventId id) const;  // SIZE_MAX when not in the trace
  std::string describe(size_t i) const;
  Verdict check_listed(const std::vector<EventId>& prefix, const Witness& w);
  // Whether the cut (count_ per thread, threads in cut_threads_) with the race of w meets every
  // rule; false says nothing about which (the event-by-event check then finds it).
  bool cut_valid(const Witness& w) const;
  void build_cut_tables();

  // For cuts (built on the first cut witness). Per thread t, the events it needs from other
  // threads: groups need_group_[need_at_[t], need_at_[t + 1]) of (thread u, range of steps into
  // need_steps_); a step (k, r) says the first k + 1 events of t need r events of u, the steps
  // of a group rising in both.
  bool cut_tables_ = false;
  std::vector<uint32_t> positions_;     // trace positions of each thread's events, thread by thread
  std::vector<uint32_t> thread_start_;  // thread t's positions at positions_[thread_start_[t]..)
  std::vector<uint32_t> need_at_;
  struct NeedGroup {
    uint32_t thread, begin, end;
  };
  std::vector<NeedGroup> need_group_;
  std::vector<std::pair<uint32_t, uint32_t>> need_steps_;
  // The sections a thread holds: a persistent stack of held sections (node: lock, read mode,
  // acquire position, parent); per thread, after each of its acquires and releases (by rank),
  // the top: held_steps_[held_at_[t], held_at_[t + 1]) of (rank, node).
  struct Held {
    uint32_t lock, acquire, parent;
    bool read;
  };
  std::vector<Held> held_;
  std::vector<uint32_t> held_at_;
  std::vector<std::pair<uint32_t, uint32_t>> held_steps_;
  // Per lock, the threads that take it: lock_users_[lock_at_[l], lock_at_[l + 1]) of (thread,
  // sections): the thread's sections of l in order, (rank of the acquire, its position), in
  // sections_[begin, end), and its write sections in write_sections_ likewise.
  struct LockUser {
    uint32_t thread, begin, end, write_begin, write_end;
  };
  std::vector<uint32_t> lock_at_;
  std::vector<LockUser> lock_users_;
  std::vector<std::pair<uint32_t, uint32_t>> sections_, write_sections_;
  uint64_t listed_events_ = 0;
  // State of one cut check.
  std::vector<uint32_t> count_;        // per thread: its events in the cut
  std::vector<uint32_t> cut_threads_;  // threads with a count

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
