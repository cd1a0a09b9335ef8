// The pure lock-set method of Sulzmann, "Lock sets" ("Lockset data race check", "Lockset
// computation"): (e, f) is a race pair iff e and f conflict (same variable, different threads, at
// least one write) and LS(e) ∩ LS(f) = {}, where LS(e) is the set of locks e's thread holds at e.
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
    n = table_.acquire(n, read_mode(e.target));
  }
  void read_release(EventId, const Event& e) {
    NodeId& n = ls(e.thread);
    n = table_.release(n, read_mode(e.target));
  }
  // Lock sets have no order: send/recv are ignored, like fork and join, so pairs they order may
  // be reported (a possible race).
  void send(EventId, const Event&) {}
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event&) {}
  void read(EventId id, const Event& e) { access(id, e); }
  void write(EventId id, const Event& e) { access(id, e); }
  // Lock sets are agnostic of fork and join (Sulzmann, "Lock sets").

  Annotator* annotator() override { return this; }
  // Column "LS": the event's lock set LS(e) for reads and writes, as in the paper's tables.
  void annotate(EventId, const Event& e, Annotation& row) override {
    std::string value;
    if (e.is_access()) value = lock_set_names(table_, table_.set_of(ls(e.thread)), symbols_);
    row.push_back({"LS", std::move(value)});
  }

 private:
  using Ids = std::vector<std::pair<EventId, LocationId>>;

  // Per variable x, in one block of 64-bit words: the distinct lock sets its accesses held
  // (entries, five words each) and, after them, the (thread, entry) pairs that occurred
  // (records, three words each, sorted by thread). Entry k: its mask, its set | exact << 32, a
  // bitmap of the entries whose lock sets are disjoint from it (while the variable has at most 64
  // entries), and C(k), the accesses whose lock set is exactly entry k's (reads, writes). A record
  // holds C(t, k), those of thread t. An access of thread t with lock set L races with C(j) − C(t,
  // j) over the entries j disjoint from L (conflicting ops only: writes for a read, reads and
  // writes for a write), then adds itself to C(k) and C(t, k) of its own entry k. Only pairs
  // that occur take room (a variable of one thread and one lock set: eight words), where a dense
  // threads × lock sets table took several hundred bytes per variable of a trace with many
  // variables. Past 64 entries the bitmaps go and an access tests every entry.
  struct Variable {
    std::vector<uint64_t> block;
    uint32_t entries = 0;
    uint32_t records = 0;  // sorted by thread: a thread's records are contiguous
    uint32_t last_entry = 0;
    // The records of the thread that accessed last: [first, first + count).
    ThreadId last_thread = UINT32_MAX;
    uint32_t first = 0;
    uint32_t count = 0;

    uint64_t* entry(size_t k) { return block.data() + kEntryWords * k; }
    const uint64_t* entry(size_t k) const { return block.data() + kEntryWords * k; }
    uint64_t* record(size_t r) { return block.data() + kEntryWords * entries + kRecordWords * r; }
    const uint64_t* record(size_t r) const {
      return block.data() + kEntryWords * entries + kRecordWords * r;
    }
    bool bitmaps() const { return entries <= 64; }
    // Room for `words` more words: an eighth of slack, not the doubling of push_back (most
    // variables stop growing after a few records).
    // Past a few thousand words the block doubles: reallocating a large block by an eighth at a
    // time costs a fresh mapping and page faults each time (read-lock traces reach such sizes).
    void reserve_more(size_t words) {
      const size_t need = block.size() + words;
      if (need > block.capacity()) block.reserve(need > 4096 ? 2 * need : need + need / 8 + 2);
    }
  };
  static constexpr size_t kEntryWords = 5;   // mask, set | exact << 32, bitmap, reads, writes
  static constexpr size_t kRecordWords = 3;  // thread | entry << 32, reads, writes
  static ThreadId record_thread(const uint64_t* r) { return static_cast<ThreadId>(r[0]); }
  static uint32_t record_entry(const uint64_t* r) { return static_cast<uint32_t>(r[0] >> 32); }
  static uint64_t conflicting(const uint64_t* counts, bool write) {
    return counts[1] + (write ? counts[0] : 0);  // counts = {reads, writes}
  }
  // While listing, per variable: the first event ids per (record, op).
  Ids& ids_of(VariableId x, uint32_t r, bool write) { return ids_[x][size_t{r} * 2 + write]; }

  NodeId& ls(ThreadId t) { return ls_[t]; }
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
  // Entry j's lock set disjoint from entry k's (the query's).
  bool disjoint(const Variable& x, uint32_t k, uint32_t j, const Query& q) const {
    if (x.bitmaps()) return (x.entry(k)[2] >> j) & 1;
    return disjoint(x.entry(j), q);
  }

  uint32_t entry_of(Variable& x, const Query& q) {
    if (x.last_entry < x.entries && static_cast<SetId>(x.entry(x.last_entry)[1]) == q.set)
      return x.last_entry;
    uint32_t k = 0;
    while (k < x.entries && static_cast<SetId>(x.entry(k)[1]) != q.set) ++k;
    if (k < x.entries) return x.last_entry = k;
    x.last_thread = UINT32_MAX;  // the records move
    // A new lock set: five words before the records.
    x.reserve_more(kEntryWords);
    x.block.insert(x.block.begin() + static_cast<std::ptrdiff_t>(kEntryWords * k), kEntryWords, 0);
    ++x.entries;
    uint64_t* cell = x.entry(k);
    cell[0] = q.mask;
    cell[1] = uint64_t{q.set} | uint64_t{q.exact} << 32;
    if (x.bitmaps()) {
      for (uint32_t j = 0; j < k; ++j) {
        uint64_t* other = x.entry(j);
        if (!disjoint(other, q)) continue;
        other[2] |= uint64_t{1} << k;
        cell[2] |= uint64_t{1} << j;
      }
      // Accesses of one lock set race among themselves when it is empty or holds read locks
      // only (two readers of a lock do not exclude each other).
      if (q.set == LockSetTable::kEmptySet || (read_locks_ && disjoint_rw(table_, q.set, q.set)))
        cell[2] |= uint64_t{1} << k;
    }
    return x.last_entry = k;
  }

  // Sets x.first and x.count to thread t's records (binary search: records are sorted by thread).
  static void find_thread(Variable& x, ThreadId t) {
    if (x.last_thread == t) return;
    uint32_t lo = 0, hi = x.records;
    while (lo < hi) {
      const uint32_t mid = (lo + hi) / 2;
      if (record_thread(x.record(mid)) < t)
        lo = mid + 1;
      else
        hi = mid;
    }
    uint32_t end = lo;
    while (end < x.records && record_thread(x.record(end)) == t) ++end;
    x.last_thread = t;
    x.first = lo;
    x.count = end - lo;
  }

  // The record of (t, k), a new one at the end of t's records if none.
  uint32_t record_of(VariableId xid, Variable& x, ThreadId t, uint32_t k) {
    find_thread(x, t);
    const uint64_t key = uint64_t{t} | uint64_t{k} << 32;
    for (uint32_t r = x.first; r < x.first + x.count; ++r)
      if (x.record(r)[0] == key) return r;
    const uint32_t r = x.first + x.count;
    x.reserve_more(kRecordWords);
    const auto at = x.block.begin() + static_cast<std::ptrdiff_t>(x.record(r) - x.block.data());
    x.block.insert(at, {key, 0, 0});
    if (listing_) {
      auto& ids = ids_[xid];
      ids.insert(ids.begin() + static_cast<std::ptrdiff_t>(2 * size_t{r}), 2, Ids{});
    }
    ++x.records;
    ++x.count;
    return r;
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
    const Query q{set, table_.mask(set), table_.exact(set)};
    const uint32_t k = entry_of(x, q);
    const uint32_t r = record_of(xid, x, e.thread, k);

    // Earlier accesses with a conflicting op and a disjoint lock set, then those of this thread.
    uint64_t races = 0;
    if (x.bitmaps()) {
      for (uint64_t bits = x.entry(k)[2]; bits != 0; bits &= bits - 1)
        races += conflicting(x.entry(static_cast<size_t>(std::countr_zero(bits))) + 3, write);
    } else {
      for (uint32_t j = 0; j < x.entries; ++j)
        if (disjoint(x.entry(j), q)) races += conflicting(x.entry(j) + 3, write);
    }
    if (races > 0)  // x.first, x.count: this thread's records (record_of)
      for (uint32_t o = x.first; o < x.first + x.count; ++o) {
        const uint64_t* rec = x.record(o);
        if (disjoint(x, k, record_entry(rec), q)) races -= conflicting(rec + 1, write);
      }
    if (races > 0) {
      if (listing_) {
        list_races(xid, id, e, r, k, q, races);
        if (!sink_.accepting()) stop_listing();
      } else {
        sink_.add_uncounted_races(races);
        sink_.mark_racy(Access::of(id, e));
      }
    }
    ++x.entry(k)[3 + write];
    ++x.record(r)[1 + write];
    if (listing_) {
      Ids& ids = ids_of(xid, r, write);
      if (ids.size() < cap_) ids.emplace_back(id, e.location);
    }
  }

  // Reports the races of `e` with the smallest first events that the sink still keeps (a k-way
  // merge over the id lists of the other threads' conflicting (lock set, op) groups) and counts
  // the rest.
  void list_races(VariableId xid, EventId id, const Event& e, uint32_t own, uint32_t k,
                  const Query& q, uint64_t races) {
    const bool write = e.op == Op::Write;
    Variable& x = variables_[xid];
    heap_.clear();
    for (uint32_t r = 0; r < x.records; ++r) {
      const uint64_t* rec = x.record(r);
      if (r == own || record_thread(rec) == e.thread || !disjoint(x, k, record_entry(rec), q))
        continue;
      for (int w = write ? 0 : 1; w < 2; ++w) {
        const Ids& ids = ids_of(xid, r, w);
        if (!ids.empty()) heap_.push_back({ids[0].first, r, static_cast<bool>(w), 0});
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
      const Ids& ids = ids_of(xid, cur.record, cur.write);
      const Access first{cur.id, record_thread(x.record(cur.record)), ids[cur.pos].second,
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
    uint32_t record;
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
  std::vector<Variable> variables_;
  std::vector<std::vector<Ids>> ids_;  // by variable, while listing
  std::vector<Cursor> heap_;
};

}  // namespace

std::unique_ptr<Engine> make_lockset(EngineContext& context) {
  return std::make_unique<LocksetEngine>(context);
}

}  // namespace racepred
