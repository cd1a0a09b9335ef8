// The pure lock-set method of seed 000 ("Lockset data race check", "Lockset computation"):
// (e, f) is a race pair iff e and f conflict (same variable, different threads, at least one
// write) and LS(e) ∩ LS(f) = {}, where LS(e) is the set of locks e's thread holds at e.
//
// Comparing all pairs is quadratic. Instead, per variable the accesses are counted by lock set,
// thread and op: the races of a new access are the accesses of the other threads whose lock
// sets are disjoint from its own (conflicting ops only), one sweep over the variable's lock
// sets, so race_count and the racy events are exact and an access costs O(distinct lock sets
// of its variable). Pairs are listed only while the sink still keeps races: each (lock set,
// thread, op) group then remembers its first --max-races event ids, enough to list any kept
// race.
#include "racepred/clock/id_table.hpp"
#include "racepred/clock/lock_set.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "racepred/engines/dispatch.hpp"
#include "racepred/engines/lockset/read_locks.hpp"

namespace racepred {

namespace {

using SetId = LockSetTable::SetId;
using NodeId = LockSetTable::NodeId;

class LocksetEngine final : public DispatchEngine<LocksetEngine>, public Annotator {
 public:
  explicit LocksetEngine(EngineContext& context)
      : symbols_(context.symbols),
        sink_(context.sink),
        cap_(context.sink.max_kept()),
        listing_(context.sink.accepting()) {}

  // acq(t,y): ls(t) = ls(t) ∪ {y}
  void acquire(EventId, const Event& e) {
    NodeId& n = ls(e.thread);
    n = table_.acquire(n, e.target);
  }
  // rel(t,y): ls(t) = ls(t) - {y}
  void release(EventId, const Event& e) {
    NodeId& n = ls(e.thread);
    n = table_.release(n, e.target);
  }
  // racq(t,y), rrel(t,y): y held in read mode, which protects only against write-mode holds
  // (engines/lockset/read_locks.hpp)
  void read_acquire(EventId, const Event& e) {
    read_locks_ = true;
    NodeId& n = ls(e.thread);
    n = table_.acquire(n, read_hold(e.target));
  }
  void read_release(EventId, const Event& e) {
    NodeId& n = ls(e.thread);
    n = table_.release(n, read_hold(e.target));
  }
  void read(EventId id, const Event& e) { access(id, e); }
  void write(EventId id, const Event& e) { access(id, e); }
  // Lock sets are agnostic of fork and join (seed 000). A join only frees memory: a joined
  // thread makes no more accesses, so its per-variable counts C(s, k), which serve only to
  // leave out its own accesses, are dead; a thread that accesses x later takes its slot.
  void join(EventId, const Event& e) {
    if (e.target != e.thread) retired_[e.target] = 1;
  }

  Annotator* annotator() override { return this; }
  // Column "LS": the event's lock set LS(e) for reads and writes, as in the seed's tables.
  void annotate(EventId, const Event& e, Annotation& row) override {
    std::string value;
    if (e.is_access()) value = lock_set_names(table_, table_.set_of(ls(e.thread)), symbols_);
    row.push_back({"LS", std::move(value)});
  }

 private:
  using Ids = std::vector<std::pair<EventId, LocationId>>;

  // Per variable x: the threads that accessed it (slots) and the distinct lock sets its accesses
  // held (entries), in one block: `cap` entry cells, then per slot `cap` two-word cells. Entry
  // cell k holds entry k's lock set, C(k) (the accesses whose lock set is exactly entry k's:
  // reads, writes) and a bitmap of the entries whose lock sets are disjoint from it; cell k of
  // slot s's row holds C(s, k), those of the thread in slot s. An access of thread s with lock
  // set L races with C(j) − C(s, j) of the entries j whose lock sets are disjoint from L
  // (conflicting ops only: writes for a read, reads and writes for a write); then it adds itself
  // to C(k) and C(s, k) of its own entry. So an access visits the disjoint entries' cells in two
  // contiguous rows: a handful in real traces, where a variable is accessed under few distinct
  // lock sets. Past kMaxBitmapCap entries the bitmaps go and an access sweeps all entries.
  struct alignas(64) Variable {  // one cache line
    std::vector<uint64_t> block;
    std::vector<ThreadId> threads;  // slot → thread
    uint32_t entries = 0;
    uint32_t cap = 0;        // cells per row
    uint32_t last_slot = 0;  // caches for the lookups
    uint32_t last_entry = 0;

    // Entry cell: mask, set | exact << 32, C.reads, C.writes, then bitmap_words() words.
    size_t bitmap_words() const { return cap > kMaxBitmapCap ? 0 : (cap + 63) / 64; }
    size_t cell_words() const { return 4 + bitmap_words(); }
    uint64_t* entry(size_t k) { return block.data() + k * cell_words(); }
    uint64_t* slot_row(size_t s) { return block.data() + cap * cell_words() + 2 * s * cap; }
  };
  static constexpr uint32_t kMaxBitmapCap = 1024;
  static uint64_t conflicting(const uint64_t* counts, bool write) {
    return counts[1] + (write ? counts[0] : 0);  // counts = {reads, writes}
  }
  // While listing, per variable: the first event ids per (slot, entry, op).
  Ids& ids_of(VariableId x, uint32_t s, uint32_t k, bool write) {
    return ids_[x][(size_t{s} * variables_[x].cap + k) * 2 + write];
  }

  NodeId& ls(ThreadId t) { return ls_[t]; }
  bool retired(ThreadId t) const {
    const uint8_t* r = retired_.find(t);
    return r && *r;
  }
  NodeId ls(ThreadId t) const {
    const NodeId* n = ls_.find(t);
    return n ? *n : LockSetTable::kRoot;
  }

  // LS(e) of the access being analysed, with its mask.
  struct Query {
    SetId set;
    uint64_t mask;
    bool exact;
  };
  bool disjoint(const uint64_t* cell, const Query& q) const {
    if ((cell[0] & q.mask) == 0) return true;
    if ((cell[1] >> 32) && q.exact) return false;
    // Until the first read lock, the table's plain test (no read-hold tokens exist).
    return read_locks_ ? disjoint_rw(table_, static_cast<SetId>(cell[1]), q.set)
                       : table_.disjoint(static_cast<SetId>(cell[1]), q.set);
  }

  uint32_t slot_of(VariableId xid, Variable& x, ThreadId t) {
    if (x.last_slot < x.threads.size() && x.threads[x.last_slot] == t) return x.last_slot;
    uint32_t s = 0;
    uint32_t dead = UINT32_MAX;  // a slot of a joined thread
    for (; s < x.threads.size() && x.threads[s] != t; ++s)
      if (dead == UINT32_MAX && retired(x.threads[s])) dead = s;
    if (s == x.threads.size() && dead != UINT32_MAX && !listing_) {
      // Not while listing: the slot's event ids name the joined thread's accesses.
      x.threads[dead] = t;
      std::fill_n(x.slot_row(dead), 2 * size_t{x.cap}, uint64_t{0});
      return x.last_slot = dead;
    }
    if (s == x.threads.size()) {  // a new thread: a row of zeros
      x.threads.push_back(t);
      x.block.resize(x.block.size() + 2 * size_t{x.cap}, 0);
      if (listing_) ids_[xid].resize(ids_[xid].size() + 2 * size_t{x.cap});
    }
    return x.last_slot = s;
  }

  uint32_t entry_of(VariableId xid, Variable& x, SetId set) {
    if (x.last_entry < x.entries && static_cast<SetId>(x.entry(x.last_entry)[1]) == set)
      return x.last_entry;
    uint32_t k = 0;
    while (k < x.entries && static_cast<SetId>(x.entry(k)[1]) != set) ++k;
    if (k == x.entries) {  // a new lock set: a new cell in every row
      if (k == x.cap) grow(xid, x);
      uint64_t* cell = x.entry(k);
      cell[0] = table_.mask(set);
      cell[1] = uint64_t{set} | uint64_t{table_.exact(set)} << 32;
      if (x.bitmap_words() > 0) {
        const Query q{set, cell[0], table_.exact(set)};
        for (uint32_t j = 0; j < k; ++j) {
          uint64_t* other = x.entry(j);
          if (!disjoint(other, q)) continue;
          other[4 + k / 64] |= uint64_t{1} << (k % 64);
          cell[4 + j / 64] |= uint64_t{1} << (j % 64);
        }
        // Accesses of one lock set race among themselves when it is empty or holds read
        // locks only (two readers of a lock do not exclude each other).
        if (set == LockSetTable::kEmptySet || (read_locks_ && disjoint_rw(table_, set, set)))
          cell[4 + k / 64] |= uint64_t{1} << (k % 64);
      }
      ++x.entries;
    }
    return x.last_entry = k;
  }

  // Doubles the cells per row; recomputes the bitmaps when their width changes.
  void grow(VariableId xid, Variable& x) {
    const uint32_t old_cap = x.cap;
    const size_t old_words = x.cell_words();
    const size_t old_bitmap = x.bitmap_words();
    const size_t slots = x.threads.size();
    std::vector<uint64_t> old;
    old.swap(x.block);
    x.cap = std::max<uint32_t>(4, 2 * old_cap);
    x.block.assign(x.cap * x.cell_words() + 2 * slots * x.cap, 0);
    const size_t bitmap = std::min(old_bitmap, x.bitmap_words());
    for (uint32_t k = 0; k < x.entries; ++k)
      std::copy_n(old.begin() + static_cast<std::ptrdiff_t>(k * old_words), 4 + bitmap, x.entry(k));
    for (size_t s = 0; s < slots; ++s)
      std::copy_n(old.begin() + static_cast<std::ptrdiff_t>(old_cap * old_words + 2 * s * old_cap),
                  2 * old_cap, x.slot_row(s));
    if (listing_) {
      std::vector<Ids>& before = ids_[xid];
      std::vector<Ids> ids(slots * x.cap * 2);
      for (size_t s = 0; s < slots; ++s)
        for (uint32_t k = 0; k < old_cap; ++k)
          for (size_t w = 0; w < 2; ++w)
            ids[(s * x.cap + k) * 2 + w] = std::move(before[(s * old_cap + k) * 2 + w]);
      before.swap(ids);
    }
  }

  void access(EventId id, const Event& e) {
    const VariableId xid = e.target;
    if (xid >= variables_.size()) {
      variables_.resize(xid + 1);
      if (listing_) ids_.resize(xid + 1);
    }
    Variable& x = variables_[xid];
    const bool write = e.op == Op::Write;
    const SetId set = table_.set_of(ls(e.thread));  // LS(e)
    const uint32_t k = entry_of(xid, x, set);
    const uint32_t s = slot_of(xid, x, e.thread);
    const Query q{set, table_.mask(set), table_.exact(set)};

    // Earlier accesses of other threads with a conflicting op and a disjoint lock set.
    uint64_t races = 0;
    const uint64_t* mine = x.slot_row(s);
    const size_t words = x.bitmap_words();
    if (words > 0) {  // the entries disjoint from LS(e), from its bitmap
      const uint64_t* bitmap = x.entry(k) + 4;
      for (size_t w = 0; w < words; ++w)
        for (uint64_t bits = bitmap[w]; bits != 0; bits &= bits - 1) {
          const size_t j = 64 * w + static_cast<size_t>(std::countr_zero(bits));
          races += conflicting(x.entry(j) + 2, write) - conflicting(mine + 2 * j, write);
        }
    } else {
      for (uint32_t j = 0; j < x.entries; ++j)
        if (disjoint(x.entry(j), q))
          races += conflicting(x.entry(j) + 2, write) - conflicting(mine + 2 * j, write);
    }
    if (races > 0) {
      if (listing_) {
        list_races(xid, id, e, s, q, races);
        if (!sink_.accepting()) stop_listing();
      } else {
        sink_.add_uncounted_races(races);
        sink_.mark_racy(Access::of(id, e));
      }
    }
    ++x.entry(k)[2 + write];
    ++x.slot_row(s)[2 * k + write];
    if (listing_) {
      Ids& ids = ids_of(xid, s, k, write);
      if (ids.size() < cap_) ids.emplace_back(id, e.location);
    }
  }

  // Reports the races of `e` with the smallest first events that the sink still keeps (a k-way
  // merge over the id lists of the other threads' conflicting (lock set, op) groups) and counts
  // the rest.
  void list_races(VariableId xid, EventId id, const Event& e, uint32_t s, const Query& q,
                  uint64_t races) {
    const bool write = e.op == Op::Write;
    Variable& x = variables_[xid];
    heap_.clear();
    for (uint32_t k = 0; k < x.entries; ++k) {
      if (!disjoint(x.entry(k), q)) continue;
      for (uint32_t other = 0; other < x.threads.size(); ++other) {
        if (other == s) continue;
        for (int w = write ? 0 : 1; w < 2; ++w) {
          const Ids& ids = ids_of(xid, other, k, w);
          if (!ids.empty()) heap_.push_back({ids[0].first, k, other, static_cast<bool>(w), 0});
        }
      }
    }
    auto later = [](const Cursor& a, const Cursor& b) { return a.id > b.id; };
    std::make_heap(heap_.begin(), heap_.end(), later);
    const uint64_t room = cap_ - sink_.races().size();
    uint64_t listed = 0;
    const Access second = Access::of(id, e);
    while (listed < room && !heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      Cursor& cur = heap_.back();
      const Ids& ids = ids_of(xid, cur.slot, cur.entry, cur.write);
      const Access first{cur.id, x.threads[cur.slot], ids[cur.pos].second,
                         cur.write ? Op::Write : Op::Read};
      sink_.report(Race{first, second, e.target});
      ++listed;
      if (++cur.pos < ids.size()) {
        cur.id = ids[cur.pos].first;
        std::push_heap(heap_.begin(), heap_.end(), later);
      } else {
        heap_.pop_back();
      }
    }
    sink_.add_uncounted_races(races - listed);
  }

  // The sink keeps no more races: from now on only counts matter.
  void stop_listing() {
    listing_ = false;
    std::vector<std::vector<Ids>>().swap(ids_);
  }

  struct Cursor {
    EventId id;
    uint32_t entry;
    uint32_t slot;
    bool write;
    uint32_t pos;
  };

  const Symbols& symbols_;
  RaceSink& sink_;
  const size_t cap_;
  bool listing_;
  LockSetTable table_;
  bool read_locks_ = false;                  // a read lock was seen: sets may hold read-hold tokens
  IdTable<NodeId> ls_{LockSetTable::kRoot};  // ls(t): the node of thread t's current lock set
  IdTable<uint8_t> retired_;                 // 1: the thread was joined
  std::vector<Variable> variables_;
  std::vector<std::vector<Ids>> ids_;  // by variable, while listing
  std::vector<Cursor> heap_;
};

}  // namespace

std::unique_ptr<Engine> make_lockset(EngineContext& context) {
  return std::make_unique<LocksetEngine>(context);
}

}  // namespace racepred
