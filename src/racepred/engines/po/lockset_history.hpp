// wdp's race history with the standard lock-set filter, by thread slot: the lock sets
// interned (LockSets) and, per variable, one list of entries for the threads that accessed it
// (SlotFilteredHistory). docs/ENGINES.md "wdp".
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
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
  // `known` is a Clock* or a ClockRef (entries past its size are 0: a clock as wide as the
  // threads it knows, not as all threads).
  template <class Engine, class Known>
  void check(Engine& engine, EventId id, const Event& e, const Known& known, uint32_t held) {
    if (read_modes_) [[unlikely]]
      check_read_modes(engine, id, e, known, held);
    else
      check_modes<false>(engine, id, e, known, held);
  }
  // The same, `known` being row s of `rows` (its own entry s may differ): on a large variable,
  // once races are only counted, an access that holds no lock counts them from the non-zero
  // entries of that row (count_large).
  template <class Engine>
  void check(Engine& engine, EventId id, const Event& e, const Clock* known, uint32_t held,
             const ThreadClocks& rows, uint32_t s) {
    if (e.target < vars_.size() && vars_[e.target].size() >= large_from_) [[unlikely]]
      if (held == 0 && count_large(engine, id, e, known, rows, s)) return;
    if (read_modes_) [[unlikely]]
      check_read_modes(engine, id, e, known, held);
    else
      check_modes<false>(engine, id, e, known, held);
  }
  template <class Engine, class Known>
  [[gnu::noinline]] void check_read_modes(Engine& engine, EventId id, const Event& e,
                                          const Known& known, uint32_t held) {
    check_modes<true>(engine, id, e, known, held);
  }
  // From the first read-lock event on, lock sets may hold read-mode tokens.
  void allow_read_modes() { read_modes_ = true; }
  // Variables of this many entries on are large (EngineOptions::bulk_count_from); call before
  // the first event.
  void large_from(uint64_t entries) { large_from_ = entries; }

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
    if (x < big_of_.size() && big_of_[x] != 0) [[unlikely]]
      update(bigs_[big_of_[x] - 1], fresh, lo, hi, e.op, held);
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
  template <bool kModes, class Engine, class Known>
  void check_modes(Engine& engine, EventId id, const Event& e, const Known& known, uint32_t held) {
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

  // Large variables (the flood of many threads on one variable), as SparseHistory's: the threads
  // of the entries indexed by slot, the (thread, kind) groups counted, every location of an
  // indexed variable marked (marks_), `repeats` once one was marked before or two entries share
  // one. An access that holds no lock races with every group of a conflicting kind that has an
  // entry not known to it: the groups but those whose entries it knows all.
  struct Big {
    bool repeats = false;
    uint64_t groups[2] = {0, 0};                          // of writes, of reads
    std::unordered_multimap<uint32_t, ThreadId> threads;  // slot -> the threads with entries
  };
  using Iter = std::vector<Entry>::iterator;
  bool mark(LocationId l) {
    if (l >= marks_.size()) marks_.resize(std::max<size_t>(size_t{l} + 1, marks_.size() * 2));
    const bool was = marks_[l] != 0;
    marks_[l] = 1;
    return was;
  }
  // The entries [lo, hi) of thread t before `fresh` (of kind op, lock set held) is recorded.
  [[gnu::noinline]] void update(Big& g, const Entry& fresh, Iter lo, Iter hi, Op op,
                                uint32_t held) {
    bool kind = false, same_location = false;
    for (auto it = lo; it != hi; ++it) {
      kind |= it->kind() == op;
      if (it->location != fresh.location) continue;
      same_location = true;  // (marked already) and if the entry is kept, two share it
      g.repeats |= !(it->kind() == op && sets_.includes(it->locks(), held));
    }
    if (!same_location) g.repeats |= mark(fresh.location);
    if (lo == hi) g.threads.emplace(fresh.slot, fresh.thread);
    if (!kind) ++g.groups[op == Op::Write ? 0 : 1];
  }
  [[gnu::noinline]] void index(VariableId x) {
    if (x >= big_of_.size()) big_of_.resize(size_t{x} + 1, 0);
    big_of_[x] = static_cast<uint32_t>(bigs_.size()) + 1;
    Big& g = bigs_.emplace_back();
    const std::vector<Entry>& list = vars_[x];
    for (size_t i = 0; i < list.size(); ++i) {
      g.repeats |= mark(list[i].location);
      if (i > 0 && list[i - 1].thread == list[i].thread) continue;
      g.threads.emplace(list[i].slot, list[i].thread);
      bool kinds[2] = {false, false};
      for (size_t k = i; k < list.size() && list[k].thread == list[i].thread; ++k)
        kinds[list[k].kind() == Op::Write ? 0 : 1] = true;
      g.groups[0] += kinds[0];
      g.groups[1] += kinds[1];
    }
  }
  // Which kinds of thread u's groups have an entry (all: whose entries are known to `known`).
  struct Groups {
    bool any[2] = {false, false}, known[2] = {true, true};
  };
  static Groups groups_of(const std::vector<Entry>& list, ThreadId u, const Clock* known) {
    Groups out;
    auto it = std::lower_bound(list.begin(), list.end(), u,
                               [](const Entry& a, ThreadId v) { return a.thread < v; });
    for (; it != list.end() && it->thread == u; ++it) {
      const int k = it->kind() == Op::Write ? 0 : 1;
      out.any[k] = true;
      out.known[k] = out.known[k] && it->time <= known[it->slot];
    }
    return out;
  }
  // Counts the races of e (holding no lock) on a large variable in bulk; false: they are
  // reported one by one (races are listed, rows are dense, locations repeat, or the sink stores
  // the group).
  template <class Engine>
  [[gnu::noinline]] bool count_large(Engine& engine, EventId id, const Event& e, const Clock* known,
                                     const ThreadClocks& rows, uint32_t s) {
    if (!rows.sparse() || !engine.counting()) return false;
    const VariableId x = e.target;
    if (x >= big_of_.size() || big_of_[x] == 0) index(x);
    const Big& g = bigs_[big_of_[x] - 1];
    const std::vector<Entry>& list = vars_[x];
    const std::span<const uint32_t> nonzeros = rows.nonzero_slots(s);
    if (g.repeats || nonzeros.size() >= list.size()) return false;  // (visiting each: no more)
    const bool write = e.op == Op::Write;
    const ThreadId t = e.thread;
    uint64_t n = g.groups[0] + (write ? g.groups[1] : 0);
    const Groups own = groups_of(list, t, known);
    n -= own.any[0] + (write && own.any[1]);
    const auto drop_known = [&](uint32_t j) {
      const auto [from, to] = g.threads.equal_range(j);
      for (auto it = from; it != to; ++it) {
        if (it->second == t) continue;
        const Groups u = groups_of(list, it->second, known);
        n -= (u.any[0] && u.known[0]) + (write && u.any[1] && u.known[1]);
      }
    };
    for (const uint32_t j : nonzeros)
      if (j != s) drop_known(j);
    drop_known(s);
    return n == 0 || engine.count_in_bulk(n, id, e);
  }

  LockSets sets_;
  std::vector<std::vector<Entry>> vars_;  // per variable, sorted by thread
  bool read_modes_ = false;
  uint64_t large_from_ = UINT64_MAX;
  std::vector<Big> bigs_;
  std::vector<uint32_t> big_of_;  // by variable: 1 + the index of its Big, 0: none
  std::vector<uint8_t> marks_;    // by location: held by an indexed variable
};

}  // namespace racepred::po
