// An index over a whole trace, for the offline engines: events by position, each thread's
// events, matching acquire/release pairs, fork and join of each thread, the last write before
// each read, critical sections. The driver builds it once per run from the validated events and
// shares it, read-only, among the offline engines of that run (engines/engine.hpp,
// OfflineEngine). Safe to read from several threads at once.
//
// Positions are 0-based indices in trace order; ids are the trace's event ids, for output.
// Memory: the events (16 bytes each) and their ids when they are not 1, 2, 3, … (8 bytes each);
// the per-event links (thread lists, positions in the thread, matching, last write: 16 bytes per
// event) are built on first use, so an engine that only walks the events does not pay for them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "racepred/trace/trace.hpp"

namespace racepred {

inline constexpr uint32_t kNoIndex = UINT32_MAX;

// A matching acquire-release pair (a, r) of one thread. `release` is kNoIndex when the lock is
// still held at the end of the trace.
struct CriticalSection {
  uint32_t acquire = kNoIndex;
  uint32_t release = kNoIndex;
  LockId lock = 0;
  ThreadId thread = 0;
  bool read = false;  // a read section (racq/rrel)
};

class TraceIndex {
 public:
  // Events the validator has already checked and forwarded (the pipeline's): well-formed
  // (Def. 3.2 of Sulzmann and Thiemann, "Cross-thread critical sections and efficient dynamic
  // race prediction methods"), re-entrant locking normalised away. Not checked again.
  struct Validated {};
  TraceIndex(Validated, std::vector<Event> events, std::vector<EventId> ids,
             const Symbols* symbols = nullptr);
  // Checks well-formedness with the validator first (the rules of `racepred check`, strictly;
  // re-entrant acquires must have been normalised away) and throws InputError naming the first
  // violation (event id, and line when `lines` are given). `symbols` is used for names and
  // messages only and may be null. Empty `ids` stand for 1, 2, 3, …
  TraceIndex(std::vector<Event> events, std::vector<EventId> ids, const Symbols* symbols = nullptr,
             const std::vector<uint32_t>& lines = {});
  explicit TraceIndex(const Trace& trace)
      : TraceIndex(trace.events, trace.ids, &trace.symbols, trace.lines) {}
  TraceIndex(TraceIndex&&) noexcept;
  TraceIndex& operator=(TraceIndex&&) noexcept;
  ~TraceIndex();

  size_t size() const { return events_.size(); }
  const Event& event(uint32_t i) const { return events_[i]; }
  const std::vector<Event>& events() const { return events_; }
  EventId id(uint32_t i) const { return ids_.empty() ? EventId{i} + 1 : ids_[i]; }

  // Thread ids are the trace's (dense from 0); every id named by an event or a fork/join target
  // has an entry, possibly with no events.
  uint32_t thread_count() const { return static_cast<uint32_t>(threads_.size()); }
  // The thread's first and last event, or kNoIndex when it has none.
  uint32_t first_of(ThreadId t) const { return threads_[t].first; }
  uint32_t last_of(ThreadId t) const { return threads_[t].last; }
  // The first fork(t) / join(t) event, or kNoIndex (a thread without a fork runs from the start).
  uint32_t fork_of(ThreadId t) const { return threads_[t].fork; }
  uint32_t join_of(ThreadId t) const { return threads_[t].join; }
  uint32_t variable_count() const { return variable_count_; }
  uint32_t lock_count() const { return lock_count_; }

  // The per-event links (built on first use).
  // The thread's events in trace order, and the position of event i in its thread's list.
  const std::vector<uint32_t>& thread_events(ThreadId t) const { return links().threads[t]; }
  uint32_t index_in_thread(uint32_t i) const { return links().index_in_thread[i]; }
  // For a read: the last write of the same variable before it in the trace, or kNoIndex.
  uint32_t last_write(uint32_t i) const { return links().last_write[i]; }
  // For an acquire (either mode): its matching release (the next release of the lock in its
  // thread, of the same mode), or kNoIndex when the lock is still held at the end of the trace.
  // For a release: its acquire. Otherwise kNoIndex.
  uint32_t matching(uint32_t i) const { return links().matching[i]; }
  // Every matching pair, in trace order of the acquires.
  std::vector<CriticalSection> critical_sections() const;
  // For a recv(o): the sends it is ordered after, one per thread that sent on o before it in the
  // trace (that thread's last send(o) before it; its earlier ones precede it in program order),
  // in no particular order. Empty for any other event and for a recv with no earlier send.
  std::span<const uint32_t> sends_before(uint32_t i) const {
    const Links& l = links();
    if (l.sends_at.empty()) return {};
    return {l.sends.data() + l.sends_at[i], l.sends.data() + l.sends_at[i + 1]};
  }
  // The trace has send or recv events.
  bool has_sync_ops() const { return has_sync_ops_; }

  // Positions of conflicting pairs (i < j), in trace order of (i, j). Quadratic: small traces.
  std::vector<std::pair<uint32_t, uint32_t>> conflicting_pairs() const;

  // "T1|w(x)" style description for messages, with names when symbols were given.
  std::string describe(uint32_t i) const;
  // Names from the symbols, or T<n> / V<n> / L<n> without them.
  std::string thread_name(ThreadId t) const;
  std::string variable_name(VariableId x) const;
  std::string lock_name(LockId l) const;
  const Symbols* symbols() const { return symbols_; }

 private:
  struct Thread {
    uint32_t first = kNoIndex, last = kNoIndex, fork = kNoIndex, join = kNoIndex;
  };
  struct Links {
    std::vector<std::vector<uint32_t>> threads;
    std::vector<uint32_t> index_in_thread;
    std::vector<uint32_t> last_write;
    std::vector<uint32_t> matching;
    // sends_before(i) is sends[sends_at[i], sends_at[i + 1]); both empty without recv events.
    std::vector<uint32_t> sends_at;
    std::vector<uint32_t> sends;
  };
  struct Lazy;
  const Links& links() const;
  void build_summary();

  std::vector<Event> events_;
  std::vector<EventId> ids_;  // empty while ids_[i] would be i + 1
  const Symbols* symbols_ = nullptr;
  std::vector<Thread> threads_;
  uint32_t variable_count_ = 0;
  uint32_t lock_count_ = 0;  // locks and sync objects: one namespace
  bool has_sync_ops_ = false;
  std::unique_ptr<Lazy> lazy_;
};

}  // namespace racepred
