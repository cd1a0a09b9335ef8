// A trace prepared for the exact analyses of Sulzmann and Thiemann (§3–5): per-thread event lists,
// last writes, matching acquire/release pairs and fork events, after checking Def. 3.2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "racepred/trace/error.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred::exact {

inline constexpr uint32_t kNoIndex = UINT32_MAX;

// The events are addressed by their index in the trace (0-based, trace order); ids are the
// trace's event ids, used only for output.
class ExactTrace {
 public:
  // Checks well-formedness with the validator (trace/validator.hpp: Def. 3.2 with the policy of
  // docs/WELLFORMEDNESS.md, the same rules as `racepred check`; re-entrant acquires must have
  // been normalised away, as every command's validator does) and throws InputError naming the
  // first violation in the validator's format (event id, and line when `lines` are given).
  // `symbols` is used for messages only and may be null.
  ExactTrace(std::vector<Event> events, std::vector<EventId> ids, const Symbols* symbols = nullptr,
             const std::vector<uint32_t>& lines = {});
  explicit ExactTrace(const Trace& trace)
      : ExactTrace(trace.events, trace.ids, &trace.symbols, trace.lines) {}

  size_t size() const { return events_.size(); }
  const Event& event(uint32_t i) const { return events_[i]; }
  const std::vector<Event>& events() const { return events_; }
  EventId id(uint32_t i) const { return ids_[i]; }
  const std::vector<EventId>& ids() const { return ids_; }

  // Thread ids are the trace's (dense from 0); every id named by an event or a fork/join target
  // has an entry, possibly with no events.
  uint32_t thread_count() const { return static_cast<uint32_t>(thread_events_.size()); }
  const std::vector<uint32_t>& thread_events(uint32_t t) const { return thread_events_[t]; }
  uint32_t index_in_thread(uint32_t i) const { return index_in_thread_[i]; }
  // The fork(t) event, or kNoIndex when t runs from the start.
  uint32_t fork_of(uint32_t t) const { return fork_of_[t]; }
  // For a read: the last write of the same variable before it in the trace, or kNoIndex.
  uint32_t last_write(uint32_t i) const { return last_write_[i]; }
  // For an acquire (either mode): its matching release (next release of the lock in its
  // thread, of the same mode), or kNoIndex when the lock is still held at the end of the trace.
  // For a release: its acquire.
  uint32_t matching(uint32_t i) const { return matching_[i]; }
  uint32_t variable_count() const { return variable_count_; }
  uint32_t lock_count() const { return lock_count_; }

  // Indices of conflicting pairs (i < j), in trace order of (i, j).
  std::vector<std::pair<uint32_t, uint32_t>> conflicting_pairs() const;

  // "T1|w(x)" style description for messages, with names when symbols were given.
  std::string describe(uint32_t i) const;
  // Names from the symbols, or T<n> / V<n> / L<n> without them.
  std::string thread_name(ThreadId t) const;
  std::string variable_name(VariableId x) const;
  std::string lock_name(LockId l) const;
  const Symbols* symbols() const { return symbols_; }

 private:
  std::vector<Event> events_;
  std::vector<EventId> ids_;
  const Symbols* symbols_;
  std::vector<std::vector<uint32_t>> thread_events_;
  std::vector<uint32_t> index_in_thread_;
  std::vector<uint32_t> fork_of_;
  std::vector<uint32_t> last_write_;
  std::vector<uint32_t> matching_;
  uint32_t variable_count_ = 0;
  uint32_t lock_count_ = 0;
};

}  // namespace racepred::exact
