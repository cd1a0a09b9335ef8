// wdp's race history with the standard lock-set filter, by thread slot: the lock sets
// interned (LockSets) and, per variable, one list of entries for the threads that accessed it
// (SlotFilteredHistory). docs/ENGINES.md "wdp".
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "racepred/engines/po/po_common.hpp"

namespace racepred::po {

// Interned standard lock sets: each distinct sorted set of lock tokens (l, or l | kReadMode for a
// read section) gets an id, 0 being the empty set. The sets are stored back to back in one array
// and found again through an open-addressing table of ids (no node or copy per set: tradebeans
// has half a million distinct sets). Each set keeps a 64-bit mask with bit lock_of(l) % 64 of
// each lock; two sets whose masks do not meet share no lock (in either sense below), so the exact
// test runs only when some bit is in both.
class LockSets {
 public:
  LockSets() : begin_{0, 0}, masks_{0}, table_(64, 0) {}
  static constexpr size_t kMaxSets = size_t{1} << 31;  // ids fit 31 bits (history entries)
  // The id of `locks` (sorted).
  uint32_t intern(const std::vector<LockId>& locks) {
    if (locks.empty()) return 0;
    const std::span<const LockId> key(locks);
    if (last_ != 0 && equal(last_, key)) return last_;
    const size_t mask = table_.size() - 1;
    size_t i = hash(key) & mask;
    for (; table_[i] != 0; i = (i + 1) & mask)
      if (equal(table_[i], key)) return last_ = table_[i];
    if (masks_.size() >= kMaxSets || pool_.size() + locks.size() > UINT32_MAX) [[unlikely]]
      throw InputError("error: more than 2^31 distinct lock sets or 2^32 locks in them");
    const auto id = static_cast<uint32_t>(masks_.size());
    pool_.insert(pool_.end(), locks.begin(), locks.end());
    begin_.push_back(static_cast<uint32_t>(pool_.size()));
    uint64_t bits = 0;
    for (LockId l : locks) bits |= bit(l);
    masks_.push_back(bits);
    table_[i] = id;
    if (2 * masks_.size() > table_.size()) grow();
    return last_ = id;
  }
  std::span<const LockId> locks(uint32_t id) const {
    return {pool_.data() + begin_[id], begin_[id + 1] - begin_[id]};
  }
  size_t size() const { return masks_.size(); }
  // No lock token in common (before any read lock, tokens are locks).
  bool disjoint(uint32_t a, uint32_t b) const {
    return (masks_[a] & masks_[b]) == 0 || (a != b && po::disjoint(locks(a), locks(b)));
  }
  // No reduced lock in common: no lock l held by both unless both hold it in read mode.
  bool disjoint_rw(uint32_t a, uint32_t b) const {
    return (masks_[a] & masks_[b]) == 0 || po::disjoint_rw(locks(a), locks(b));
  }
  // b ⊆ a (as token sets).
  bool includes(uint32_t a, uint32_t b) const {
    if (a == b || b == 0) return true;
    if ((masks_[b] & ~masks_[a]) != 0) return false;
    const std::span<const LockId> x = locks(a), y = locks(b);
    return std::includes(x.begin(), x.end(), y.begin(), y.end());
  }

 private:
  static uint64_t bit(LockId token) { return uint64_t{1} << (lock_of(token) % 64); }
  static size_t hash(std::span<const LockId> v) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ v.size();
    for (LockId l : v) h = (h ^ l) * 0x100000001b3ULL;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  bool equal(uint32_t id, std::span<const LockId> key) const {
    const std::span<const LockId> s = locks(id);
    return std::equal(s.begin(), s.end(), key.begin(), key.end());
  }
  void grow() {
    std::vector<uint32_t> table(table_.size() * 2, 0);
    const size_t mask = table.size() - 1;
    for (uint32_t id = 1; id < masks_.size(); ++id) {
      size_t i = hash(locks(id)) & mask;
      while (table[i] != 0) i = (i + 1) & mask;
      table[i] = id;
    }
    table_.swap(table);
  }
  std::vector<LockId> pool_;     // the sets' locks, back to back
  std::vector<uint32_t> begin_;  // by id: where its locks start in pool_ (one more at the end)
  std::vector<uint64_t> masks_;  // by id
  std::vector<uint32_t> table_;  // open addressing: ids, 0 = free (the empty set is not in it)
  uint32_t last_ = 0;  // the latest id handed out (accesses repeat their thread's lock set)
};

// FilteredHistory's rule (docs/ENGINES.md "What is reported"; po_common.hpp) with entries by
// thread slot and only for the threads that accessed the variable: per (variable, thread, kind)
// the latest access for each distinct lock set, kept in one list per variable sorted by thread.
// An entry names its thread (reports, the own-thread test, the lock-set pruning are per thread)
// and its slot with the local time there: an access of a thread whose slot was later reused is
// known to an event iff time <= known[slot] (clock/thread_clocks.hpp; the relation contains
// fork and join and is transitive), as in SparseHistory.
class SlotFilteredHistory {
 public:
  // 28 bytes (4-byte aligned: the event id in two halves, the kind in the lock-set word).
  struct Entry {
    uint32_t event_lo, event_hi;
    LocationId location;
    ThreadId thread;
    uint32_t slot;
    Clock time;
    uint32_t locks_write;  // LockSets id * 2 + (a write)
    EventId event() const { return EventId{event_hi} << 32 | event_lo; }
    uint32_t locks() const { return locks_write >> 1; }
    Op kind() const { return (locks_write & 1) != 0 ? Op::Write : Op::Read; }
    Partner who() const { return Partner{event(), location}; }
  };
  static_assert(sizeof(Entry) == 28);
  // Reports, for each other thread u in thread order and each conflicting kind (write, then
  // read), the latest entry not known to `known` (indexed by slot) whose lock set is disjoint
  // from `held`.
  template <class Engine>
  void check(Engine& engine, EventId id, const Event& e, const Clock* known, uint32_t held) {
    if (read_modes_) [[unlikely]]
      check_read_modes(engine, id, e, known, held);
    else
      check_modes<false>(engine, id, e, known, held);
  }
  template <class Engine>
  [[gnu::noinline]] void check_read_modes(Engine& engine, EventId id, const Event& e,
                                          const Clock* known, uint32_t held) {
    check_modes<true>(engine, id, e, known, held);
  }
  // From the first read-lock event on, lock sets may hold read-mode tokens.
  void allow_read_modes() { read_modes_ = true; }

  // An entry of the thread of the same kind whose lock set includes `held` is dropped: whenever
  // it would qualify (unordered, disjoint lock sets), the new, later access qualifies too. So the
  // entries of one (variable, thread, kind) have pairwise incomparable lock sets.
  void record(EventId id, const Event& e, uint32_t slot, Clock time, uint32_t held) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow_to(vars_, x);
    std::vector<Entry>& list = vars_[x];
    const ThreadId t = e.thread;
    const Entry fresh{static_cast<uint32_t>(id),
                      static_cast<uint32_t>(id >> 32),
                      e.location,
                      t,
                      slot,
                      time,
                      held << 1 | (e.op == Op::Write ? 1u : 0u)};
    auto lo = std::lower_bound(list.begin(), list.end(), t,
                               [](const Entry& a, ThreadId u) { return a.thread < u; });
    auto hi = lo;
    while (hi != list.end() && hi->thread == t) ++hi;
    auto kept = lo;
    for (auto it = lo; it != hi; ++it) {
      const bool covered = it->kind() == e.op && sets_.includes(it->locks(), held);
      if (!covered) *kept++ = *it;
    }
    if (kept != hi) {  // some dropped: the new entry takes the first free place
      *kept++ = fresh;
      list.erase(kept, hi);
    } else {
      // Grown by a quarter, not doubled: a million short lists on the benchmark traces.
      if (list.size() == list.capacity()) [[unlikely]] {
        const auto at = hi - list.begin();
        list.reserve(list.size() + list.size() / 4 + 1);
        hi = list.begin() + at;
      }
      list.insert(hi, fresh);
    }
  }
  LockSets& lock_sets() { return sets_; }
  // Entries stored (a measure of the memory).
  size_t entries() const {
    size_t n = 0;
    for (const auto& v : vars_) n += v.size();
    return n;
  }

 private:
  template <bool kModes, class Engine>
  void check_modes(Engine& engine, EventId id, const Event& e, const Clock* known, uint32_t held) {
    const size_t x = e.target;
    if (x >= vars_.size()) return;
    const std::vector<Entry>& list = vars_[x];
    const ThreadId t = e.thread;
    const bool write = e.op == Op::Write;
    for (size_t i = 0, n = list.size(); i < n;) {
      const ThreadId u = list[i].thread;
      if (u == t) {
        while (i < n && list[i].thread == u) ++i;
        continue;
      }
      const Entry* best[2] = {nullptr, nullptr};  // write, read
      for (; i < n && list[i].thread == u; ++i) {
        const Entry& en = list[i];
        if (en.time <= known[en.slot]) [[likely]]
          continue;
        const int k = (en.locks_write & 1) != 0 ? 0 : 1;
        if (k == 1 && !write) continue;
        const uint32_t locks = en.locks();
        if (!(kModes ? sets_.disjoint_rw(locks, held) : sets_.disjoint(locks, held))) continue;
        if (!best[k] || en.event() > best[k]->event()) best[k] = &en;
      }
      if (best[0]) [[unlikely]]
        engine.report(best[0]->who(), u, Op::Write, id, e);
      if (best[1]) [[unlikely]]
        engine.report(best[1]->who(), u, Op::Read, id, e);
    }
  }

  LockSets sets_;
  std::vector<std::vector<Entry>> vars_;  // per variable, sorted by thread
  bool read_modes_ = false;
};

}  // namespace racepred::po
