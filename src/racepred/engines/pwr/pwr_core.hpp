// The PWR relation as vector clocks (Sulzmann & Stadtmüller, "Efficient, near complete and often
// sound hybrid dynamic data race prediction", MPLR 2020: Alg. 1 with fork/join, the read-read
// optimisation and thread-local histories; Sulzmann & Thiemann, "Cross-thread critical sections
// and efficient dynamic race prediction methods", Def. 6.1). Shared by pwr, pwr-edges, pwr-cs
// and pwr-e.
//
// State, in the papers' notation:
//   Th(i)      thread i's vector clock; initially 0 except Th(i)[i] = 1; every event of i
//              increments Th(i)[i] after it was processed, so an event is the epoch i#Th(i)[i]
//   LSt(i)     thread i's standard lock set (interned, LockSetTable)
//   Acq(y)     epoch of the most recent acq(y); holder(y) the thread holding y
//   L_all      the locks held by any thread (Algorithm 1 of the cross-thread paper)
//   H(y)       released critical sections on y: (acquire epoch j#k, release clock V'), the
//              newest `history` of them (0: all)
//   LW(x)      clock of the last write of x, with its epoch, lock set, event and location
//
// Snapshots (memory that follows what is live). Between two growths of Th(i) other
// than its own increments (clock_version) Th(i) changes only in entry i, so the clocks of
// every write and every release i makes in that stretch are one row, `snapshot`, plus the
// event's own clock value: LW(x) and the release clocks of H(y) keep a reference to a shared,
// reference-counted snapshot (the clock kit's SnapshotPool) and their own entry, instead of a row
// each. Joining one is join(row) then raising entry i to the own value, exactly the joined clock of
// before; a row goes back to the pool when the last last write and section using it were
// overwritten.
//
// ROD ("w3" of the PWR paper, rule PWR-3): while thread i holds y, every critical section
// (j#k, V') of another thread in H(y) whose acquire happens before i's current event
// (k <= Th(i)[j]) has its release ordered before it too: Th(i) = Th(i) ⊔ V'. The test uses the
// acquire only (PWR paper, App. F), i.e. PWR-3 over the closed sections [a, r] with f in (a2, r2]
// (docs/ENGINES.md "pwr": how this relates to Def. 6.1 as printed). Applied to a fixpoint, and
// only when Th(i) may have grown: after merging a last write (reads), after a join, and at the
// first event after an acquire. While i holds y no other thread releases y, so H(y) does not
// change under i's feet. Errata applied: the WRD test is Th(i)[j] < LW(x)[j] (Alg. 3 prints >);
// the forked thread's clock is joined with the parent's (its own entry stays 1).
//
// Slots (100,000 goroutines, few alive at once). Th lives in a ThreadClocks
// (clock/thread_clocks.hpp) without its lock order, which reuses the slot of a joined thread
// for a later fork once more than its budget of slots exist (fasttrack's rule: the forking
// thread knows every event of the slot's last thread). Every clock and epoch is indexed by
// slot: "thread j" in the rules above is slot(j) in the code, and the epoch s#k of an access
// names the thread thread_at(s#k) in reports. The rules hold per slot as they did per thread:
// an earlier tenant's events happen before every event of a later one. Per-thread state that
// is not a clock entry (lock sets, histories' holders, guard locks) stays indexed by thread.
// A thread joined while it holds a lock keeps its slot (its hold stays in L_all).
//
// Sparse clocks (20,000 threads alive at once). Past ThreadClocks' sparse threshold
// (1024 slots) Th is in its sparse mode (lists of non-zero entries, a few rows unpacked) and the
// snapshots become lists of non-zero entries (SnapshotPool::make_sparse). Every write into Th
// other than the own entry's tick goes through ThreadClocks (join_entries_into_slot, raise_slot,
// fork, join, sync_threads), which keeps an unpacked row's list of non-zero entries right; a row
// pointer (cur_th_, th()) is valid until another thread's row is unpacked, so it is looked up
// again after touching another thread (fork, join, pwr-e's merge_into_thread). Below the
// threshold the dense rows and loops are used as before.
//
// Read-write locks (docs/ENGINES.md, "Read-write locks"): the standard reduction, natively. A
// read section of y by i holds (y,i), a write section every (y,u); so two sections of y exclude
// each other unless both are read sections. y may have several read holders, each with its own
// acquire epoch (Acq of the reduced lock (y,i)); H(y) keeps read and write sections, a read
// section marked; w3 skips a read section of H(y) while i holds y in read mode (they share no
// reduced lock). LSt(i) holds y in read mode as the token read_mode(y) (clock/lock_set.hpp);
// lock sets are disjoint under the read-write rule once a read lock was seen (disjoint()).
// Traces without read locks take the same paths as before.
//
// Synchronisation orders (docs/ENGINES.md, "Synchronisation orders"): a hard edge like
// fork/join, through ThreadClocks' C(o): send(i,o) C(o) = C(o) ⊔ Th(i); recv(i,o) Th(i) =
// Th(i) ⊔ C(o), then w3(i) (Th(i) grew).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "racepred/clock/lock_set.hpp"
#include "racepred/clock/rows.hpp"
#include "racepred/clock/snapshot_pool.hpp"
#include "racepred/clock/thread_clocks.hpp"
#include "racepred/clock/vector_clock.hpp"
#include "racepred/engines/lockset/read_locks.hpp"
#include "racepred/engines/options.hpp"
#include "racepred/trace/event.hpp"

namespace racepred::pwr {

template <class T>
using Rows = ClockRows<T>;

inline constexpr uint32_t kUnbounded = 0;
inline constexpr uint32_t kNone = UINT32_MAX;

// Bounds of the bounded engines (the PWR paper's PWR_L^{E+E}; defaults in engines/options.def).
struct PwrOptions {
  // critical sections kept per lock; kUnbounded keeps all
  uint32_t history = EngineOptions{}.pwr_history;
  // pwr-edges: replaced accesses kept per variable; kUnbounded keeps all
  uint32_t edges = EngineOptions{}.pwr_edges;
  // pwr-edges: event ids from which an edge is "far" (pwr_edges.cpp)
  uint64_t edge_id_limit = EngineOptions{}.pwr_edge_id_limit;
  // Th's thread slots: reused past the budget, sparse past the threshold (engines/options.def)
  uint64_t clock_slot_budget = EngineOptions{}.clock_slot_budget;
  uint64_t clock_sparse_slots = EngineOptions{}.clock_sparse_slots;
  // entries of RW(x) from which it is indexed by slot and lock set (pwr_engine.hpp)
  uint64_t bulk_count_from = EngineOptions{}.bulk_count_from;
};

// Standard lock sets: the clock kit's LockSetTable (a thread holds a trie node, accesses keep
// the node's set id; disjointness is a bit test for lock ids below 64).
using SetId = LockSetTable::SetId;

// Marks the rows of read sections in H(y) (row ids stay below 2^31).
inline constexpr uint32_t kReadRow = uint32_t{1} << 31;

// Th, LSt, Acq, L_all, H and LW of the PWR vector-clock algorithm.
class PwrClocks {
 public:
  explicit PwrClocks(const PwrOptions& options)
      : history_(options.history), tc_(false), snaps_(SnapshotPool::kChain, full_rows()) {
    tc_.sparse_beyond(static_cast<size_t>(options.clock_sparse_slots));
    tc_.reuse_slots_beyond(static_cast<size_t>(options.clock_slot_budget));
  }

  size_t stride() const { return tc_.stride(); }
  // Th(i), indexed by slot.
  Clock* th(ThreadId i) { return tc_.th(i); }
  const Clock* th(ThreadId i) const { return tc_.th(i); }
  // The slot of a known thread (its entry in every clock).
  uint32_t slot(ThreadId i) const { return tc_.slot(i); }
  // Th and slot of the current event's thread (the one given to ensure_thread last): looked up
  // once per event instead of at every use (rows move only at fork, join and a new thread,
  // which refresh them).
  Clock* cur_th() const { return cur_th_.get(); }
  uint32_t cur_slot() const { return cur_slot_; }
  // The epoch of i's current event: slot(i)#Th(i)[slot(i)] (i is the current event's thread).
  Epoch now([[maybe_unused]] ThreadId i) const { return Epoch(cur_slot_, cur_th_[cur_slot_]); }
  // The thread of an epoch's event (cold: reports).
  ThreadId thread_at(Epoch e) const { return tc_.thread_at(e.thread(), e.clock()); }
  SetId lockset(ThreadId i) const { return threads_[i].set; }
  size_t thread_count() const { return threads_.size(); }
  bool holds_any(ThreadId i) const { return threads_[i].set != LockSetTable::kEmptySet; }
  // A read lock was taken somewhere in the trace (so far).
  bool read_locks() const { return read_locks_; }
  // LS(a) ∩ LS(b) = ∅; a lock held in read mode on both sides is no common lock.
  bool disjoint(SetId a, SetId b) const {
    return read_locks_ ? disjoint_rw(sets_, a, b) : sets_.disjoint(a, b);
  }
  // The set holds y in a mode that excludes a hold of y in mode `read` by another thread.
  bool excludes(SetId set, LockId y, bool read) const {
    return sets_.contains(set, y) || (!read && read_locks_ && sets_.contains(set, read_mode(y)));
  }
  // An epoch j#k happened before the current event of i (i is the current event's thread).
  bool ordered(Epoch f, [[maybe_unused]] ThreadId i) const {
    return f.clock() <= cur_th_[f.thread()];
  }

  // Before every event: t is the current event's thread from here to end(t).
  void ensure_thread(ThreadId t) {
    if (t >= threads_.size()) [[unlikely]]
      grow_threads(t);
    cur_ = t;
    refresh();
  }

  // Start of every event of thread i except reads (which call sync_read): the ROD syncs owed
  // since the last acquire.
  void begin(ThreadId i) {
    if (threads_[i].pending != kNoPending) [[unlikely]]
      rod_pending(i);
  }

  // --- last write (WRD) ---
  bool has_write(VariableId x) const { return x < vars_.size() && vars_[x].id != kNoEvent; }
  struct LastWrite {
    Epoch epoch;
    EventId id = kNoEvent;
    LocationId location = 0;
    SetId lockset = LockSetTable::kEmptySet;
    uint32_t record = kNone;  // pwr-cs: the access record of the write
    uint32_t snap = kNone;    // the snapshot row of LW(x) (entry epoch.thread() is epoch's)
  };
  const LastWrite& last_write(VariableId x) const { return vars_[x]; }
  LastWrite& last_write_mut(VariableId x) { return vars_[x]; }
  size_t variable_count() const { return vars_.size(); }
  void ensure_variable(VariableId x) {
    if (x >= vars_.size()) [[unlikely]]
      grow_variables(x);
  }
  // The read's WRD test before its sync: the last write does not happen before Th(i)
  // (Th(i)[j] < LW(x)[j], i.e. not j#k ⪯ Th(i)).
  bool last_write_unordered(ThreadId i, VariableId x) const {
    const LastWrite& w = vars_[x];
    return w.id != kNoEvent && !ordered(w.epoch, i);
  }
  // read(i,x): Th(i) = Th(i) ⊔ LW(x); w3(i). `unordered`: last_write_unordered(i, x), which the
  // caller has tested already for the WRD race.
  void sync_read(ThreadId i, VariableId x, bool unordered) {
    if (unordered) {
      const LastWrite& w = vars_[x];
      join_snapshot_into(cur_slot_, cur_th_.get(), w.snap, w.epoch);
      ++threads_[i].version;
      if (holds_any(i)) w3(i);
    } else if (threads_[i].pending != kNoPending) {
      rod_pending(i);
    }
    threads_[i].pending = kNoPending;
  }
  // write(i,x): LW(x) = Th(i), LWt(x) = i#Th(i)[i], LWL(x) = LSt(i).
  void set_last_write(ThreadId i, VariableId x, EventId id, LocationId location,
                      uint32_t record = kNone) {
    LastWrite& w = vars_[x];
    const uint32_t snap = snapshot(i);
    if (w.snap != kNone) unref_snapshot(w.snap);
    w.epoch = now(i);
    w.id = id;
    w.location = location;
    w.lockset = threads_[i].set;
    w.record = record;
    w.snap = snap;
  }

  // --- locks ---
  LockId lock_count() const { return static_cast<LockId>(locks_.size()); }
  // The thread holding y in write mode.
  ThreadId holder(LockId y) const { return y < locks_.size() ? locks_[y].holder : kNone; }
  bool holds_read(ThreadId i, LockId y) const {
    return y < locks_.size() && find_reader(locks_[y], i) != nullptr;
  }
  // L_all: the holds of locks by threads (one per write holder, one per read holder) with the
  // acquire epoch of each, contiguous for the guard-lock scan.
  struct Held {
    Epoch acq;
    LockId lock;
    ThreadId holder;
    bool read = false;
  };
  const std::vector<Held>& held() const { return held_; }
  // A foreign lock whose acquire happens before i's current event may be held: some thread
  // j ≠ i holds a lock acquired at j#k with k ⪯ Th(i)[j] (its earliest held acquire suffices).
  // A branch-free pass over T entries; the guard-lock scan runs only when this is true.
  bool may_have_guards([[maybe_unused]] ThreadId i) const {
    if (sparse_) [[unlikely]]
      return may_have_guards_sparse();
    const Clock* t = cur_th_.get();
    const uint32_t s = cur_slot_;
    unsigned any = 0;
    for (size_t j = 0, n = min_acq_.size(); j < n; ++j)
      any |= static_cast<unsigned>(min_acq_[j] <= t[j]) & static_cast<unsigned>(j != s);
    return any != 0;
  }
  // Changes whenever L_all changes (acquire, release).
  uint64_t lock_version() const { return lock_version_; }
  // Changes whenever Th(i) grows other than by its own increment.
  uint64_t clock_version(ThreadId i) const { return threads_[i].version; }

  // acq(i,y): LSt(i) ∪= {y}; L_all ∪= {y}; Acq(y) = i#Th(i)[i]; the ROD sync for y is owed at
  // i's next event (the acquire itself is not inside its section). False for a re-entrant
  // acquire, which is ignored (the pipeline normalises them away before engines see them).
  bool acquire(ThreadId i, LockId y) {
    begin(i);
    ensure_lock(y);
    Lock& l = locks_[y];
    if (l.holder == i) return false;
    l.acq = now(i);
    l.holder = i;
    l.all_pos = hold(Held{l.acq, y, i, false}, y);
    return true;
  }
  // racq(i,y): the same for a read hold of y, the token read_mode(y) in LSt(i).
  bool read_acquire(ThreadId i, LockId y) {
    begin(i);
    ensure_lock(y);
    read_locks_ = true;
    Lock& l = locks_[y];
    if (find_reader(l, i) != nullptr) return false;
    const Epoch acq = now(i);
    l.readers.push_back(Reader{acq, i, 0});
    l.readers.back().all_pos = hold(Held{acq, y, i, true}, read_mode(y));
    return true;
  }
  // rel(i,y): H(y) += (Acq(y), Th(i)); LSt(i) -= {y}; L_all -= {y}. False if i does not hold y.
  bool release(ThreadId i, LockId y) {
    begin(i);
    ensure_lock(y);
    Lock& l = locks_[y];
    if (l.holder != i) return false;
    record_section(l, l.acq, i, 0);
    l.holder = kNone;
    unhold(l.all_pos, l.acq, i, y);
    l.all_pos = kNone;
    return true;
  }
  // rrel(i,y): the same for i's read hold of y; the section enters H(y) marked as a read one.
  bool read_release(ThreadId i, LockId y) {
    begin(i);
    ensure_lock(y);
    Lock& l = locks_[y];
    Reader* r = find_reader(l, i);
    if (r == nullptr) return false;
    const Reader gone = *r;
    *r = l.readers.back();
    l.readers.pop_back();
    record_section(l, gone.acq, i, kReadRow);
    unhold(gone.all_pos, gone.acq, i, read_mode(y));
    return true;
  }
  // fork(i,u): Th(u) = Th(u) ⊔ Th(i) (a new thread may take a joined thread's slot).
  void fork(ThreadId i, ThreadId u) {
    begin(i);
    after_growth(tc_.fork(i, u));
    if (u >= threads_.size()) grow_threads(u);
    ++threads_[u].version;
    refresh();
  }
  // send(i,o): C(o) = C(o) ⊔ Th(i) (Th(i) unchanged until end()'s tick).
  void send(ThreadId i, LockId o) {
    begin(i);
    tc_.send(i, o);
    refresh();
  }
  // recv(i,o): Th(i) = Th(i) ⊔ C(o); w3(i).
  void recv(ThreadId i, LockId o) {
    begin(i);
    tc_.recv(i, o);
    refresh();
    ++threads_[i].version;
    w3(i);
  }
  // join(i,u): Th(i) = Th(i) ⊔ Th(u); w3(i). u's slot becomes free unless u holds a lock.
  void join(ThreadId i, ThreadId u) {
    begin(i);
    if (u >= threads_.size()) grow_threads(u);
    refresh();
    if (u == i) return;
    if (holds_any(u)) {
      tc_.sync_threads(i, u);
      refresh();
    } else {
      after_growth(tc_.join(i, u));
      refresh();
      Thread& t = threads_[u];
      if (t.snap != kNone) unref_snapshot(t.snap);
      t.snap = kNone;
    }
    ++threads_[i].version;
    w3(i);
  }
  // Th(u) = Th(u) ⊔ V for the clock V of a kept section's release, ordered before u's next
  // event (pwr-e); the ROD sync is owed again.
  struct Section;
  void merge_into_thread(ThreadId u, const Section& s) {
    if (!tc_.has_slot(u)) return;  // joined: no later event to order
    if (sparse_) [[unlikely]] {
      join_snapshot_into(slot(u), nullptr, s.snap, Epoch(s.acquire.thread(), s.release_clock));
      refresh();  // the current thread's row stays resident
    } else {
      join_section(th(u), s);
    }
    ++threads_[u].version;
    threads_[u].pending = holds_any(u) ? kAllLocks : kNoPending;
  }
  // After every event of i: Th(i)[i]++.
  void end(ThreadId i) { increment_clock(cur_th_[cur_slot_], i); }

  // w3(i): ROD for every lock i holds, to a fixpoint (i is the current event's thread). A
  // section of i's own slot is never joined: its release is in i's past or an earlier tenant's,
  // so cs_rel <= Th(i)[j] already (no test for j == slot(i) needed).
  void w3(ThreadId i) {
    Thread& t = threads_[i];
    t.pending = kNoPending;
    if (t.set == LockSetTable::kEmptySet) return;
    bool changed;
    do {
      changed = false;
      sets_.for_each_lock(t.set, [&](LockId y) { changed |= rod_lock(t, y); });
    } while (changed);
  }

  // The k-th kept critical section of y, for pwr-e: its release clock is the snapshot row
  // `release` with the entry of the section's thread raised to `release_clock`.
  struct Section {
    Epoch acquire;
    const Clock* release;  // sparse mode: unpacked, valid during the call of f
    Clock release_clock;
    bool read;
    uint32_t snap;  // the snapshot of `release`
    // The release clock's entry j.
    Clock at(size_t j) const {
      return j == acquire.thread() ? std::max(release[j], release_clock) : release[j];
    }
  };
  template <class F>
  void for_each_section(LockId y, F f) const {
    const Lock& l = locks_[y];
    for (size_t k = 0; k < l.cs_acq.size(); ++k) {
      const uint32_t snap = l.cs_row[k] & ~kReadRow;
      f(Section{l.cs_acq[k], snapshot_row(snap), l.cs_rel[k], (l.cs_row[k] & kReadRow) != 0, snap});
    }
  }
  // dst = dst ⊔ the release clock of s.
  void join_section(Clock* dst, const Section& s) const {
    join_snapshot(dst, s.release, Epoch(s.acquire.thread(), s.release_clock));
  }

  // The clocks are sparse (ThreadClocks past its threshold; snapshots are lists then).
  bool sparse() const { return sparse_; }
  // Sparse mode: the slots of the non-zero entries of the current thread's Th (each once; an
  // entry lowered to zero may stay listed), valid while cur_th() is.
  std::span<const uint32_t> cur_nonzero_slots() const { return tc_.nonzero_slots(cur_slot_); }
  // Sparse mode, for clocks the engines keep (pwr-e's V(f)): a reference to the snapshot of
  // Th(i) of the current thread i, shared with its writes and releases; the clock it stands
  // for at the epoch `own` as a row of the stride; the reference given back.
  uint32_t share_snapshot(ThreadId i) { return snapshot(i); }
  void unpack_snapshot(uint32_t r, Epoch own, std::vector<Clock>& row) const {
    row.assign(stride(), 0);
    for (const ThreadClocks::Entry& e : snaps_.entries(r)) row[e.slot] = e.value;
    row[own.thread()] = std::max(row[own.thread()], own.clock());
  }
  void drop_snapshot(uint32_t r) { unref_snapshot(r); }
  void join_into(Clock* dst, const Clock* src) const { join_clocks(dst, src, stride()); }
  void copy_row(Clock* dst, const Clock* src) const { copy_clock(dst, src, stride()); }

 private:
  struct Thread {
    LockSetTable::NodeId node = LockSetTable::kRoot;
    SetId set = LockSetTable::kEmptySet;
    LockId pending = kNoPending;  // ROD sync owed at the next event: the hold acquired, or all
    uint64_t version = 0;         // see clock_version()
    uint32_t snap = kNone;        // the snapshot of Th(i) at version snap_version (a reference)
    uint64_t snap_version = 0;
  };
  // The holds of a thread in acquire order (acquire clock, token), released ones among them
  // until they are the first: the earliest held acquire is the first live one (min_acq_). By
  // thread, apart from Thread: only threads that take locks have one.
  struct HoldOrder {
    std::vector<std::pair<Clock, LockId>> holds;
    uint32_t first_hold = 0;
  };
  struct Reader {
    Epoch acq;
    ThreadId thread;
    uint32_t all_pos;
  };
  struct Lock {
    Epoch acq;
    ThreadId holder = kNone;
    uint32_t all_pos = kNone;
    uint32_t next = 0;             // oldest entry of the ring (bounded history)
    std::vector<Epoch> cs_acq;     // H(y): acquire epochs
    std::vector<uint32_t> cs_row;  // H(y): snapshot rows of the release clocks | kReadRow
    std::vector<Clock> cs_rel;     // H(y): the release's own clock value
    std::vector<Reader> readers;   // the read holds of y
  };

  // The ROD sync owed at i's first event after acquiring the hold t.pending. Since the last
  // full w3, Th(i) changed only in i's own entry (every other growth runs w3 or owes all of
  // it: kAllLocks), and the sections of the other locks i holds did not change (nobody else
  // releases them while i holds them; a read hold skips the read sections others add), so
  // only the new hold's sections can add something; if one does, all of them are looked at
  // again, to the fixpoint.
  void rod_pending(ThreadId i) {
    Thread& t = threads_[i];
    const LockId y = t.pending;
    t.pending = kNoPending;
    if (y == kAllLocks || rod_lock(t, y)) w3(i);
  }
  // One pass of ROD over H(y) for the hold `token` (y, or read_mode(y)) of the current thread;
  // true if it joined something.
  bool rod_lock(Thread& t, LockId token) {
    Clock* const th = cur_th_.get();
    bool changed = false;
    // A read hold skips the read sections of H(y): (y,i) and (y,j) are different locks.
    const uint32_t skip = is_read_mode(token) ? kReadRow : 0;
    const Lock& l = locks_[lock_of(token)];
    const Epoch* acq = l.cs_acq.data();
    const Clock* rel = l.cs_rel.data();
    for (size_t k = 0, n = l.cs_acq.size(); k < n; ++k) {
      const ThreadId j = acq[k].thread();
      const Clock known = th[j];
      // acq(CS) <PWR now ⇒ rel(CS) <PWR now; joined only when it adds something.
      if ((acq[k].clock() <= known) & (rel[k] > known)) [[unlikely]] {
        const uint32_t row = l.cs_row[k];
        if (row & skip) continue;
        join_snapshot_into(cur_slot_, th, row & ~kReadRow, Epoch(j, rel[k]));
        ++t.version;
        changed = true;
      }
    }
    return changed;
  }

  static const Reader* find_reader(const Lock& l, ThreadId i) {
    for (const Reader& r : l.readers)
      if (r.thread == i) return &r;
    return nullptr;
  }
  static Reader* find_reader(Lock& l, ThreadId i) {
    for (Reader& r : l.readers)
      if (r.thread == i) return &r;
    return nullptr;
  }
  // The acquire epoch of i's hold `token` (y, or read_mode(y)).
  Epoch hold_acquire(ThreadId i, LockId token) const {
    if (!is_read_mode(token)) return locks_[token].acq;
    return find_reader(locks_[lock_of(token)], i)->acq;
  }

  // LSt(t) ∪= {token} (acquire) or -= {token}: the lock-set trie's transition, memoised in a
  // direct-mapped table (threads take the same locks from the same sets over and over).
  void step(Thread& t, LockId token, bool acquire) {
    uint32_t h = (t.node * 0x9E3779B1u) ^ (token * 0x85EBCA6Bu) ^ uint32_t { acquire };
    h ^= h >> 16;
    Step& s = steps_[h & ((1u << kStepBits) - 1)];
    if (s.from != t.node || s.token != token || s.acquire != acquire) [[unlikely]] {
      const LockSetTable::NodeId to =
          acquire ? sets_.acquire(t.node, token) : sets_.release(t.node, token);
      s = Step{t.node, token, to, sets_.set_of(to), acquire};
    }
    t.node = s.to;
    t.set = s.set;
  }

  // L_all ∪= {h}; LSt(h.holder) ∪= {token}; the sync owed. Returns h's position in held_.
  uint32_t hold(const Held& h, LockId token) {
    const uint32_t pos = static_cast<uint32_t>(held_.size());
    held_.push_back(h);
    ++lock_version_;
    const ThreadId i = h.holder;
    const uint32_t s = slot(i);
    min_acq_[s] = std::min(min_acq_[s], h.acq.clock());
    Thread& t = threads_[i];
    step(t, token, true);
    t.pending = t.pending == kNoPending ? token : kAllLocks;
    if (i >= hold_order_.size())
      hold_order_.resize(std::max<size_t>(size_t{i} + 1, hold_order_.size() * 2));
    hold_order_[i].holds.emplace_back(h.acq.clock(), token);
    return pos;
  }
  // L_all -= {the hold at pos}, acquired at acq; LSt(i) -= {token}.
  void unhold(uint32_t pos, Epoch acq, ThreadId i, LockId token) {
    const Held last = held_.back();
    held_[pos] = last;
    held_.pop_back();
    if (pos < held_.size()) {  // the moved hold's position
      Lock& m = locks_[last.lock];
      if (last.read)
        find_reader(m, last.holder)->all_pos = pos;
      else
        m.all_pos = pos;
    }
    ++lock_version_;
    step(threads_[i], token, false);
    Clock& min = min_acq_[slot(i)];
    HoldOrder& t = hold_order_[i];
    if (min == acq.clock()) {  // the earliest held acquire of i left: the next live hold
      // (amortised O(1) per release, whatever the number of locks i holds)
      while (t.first_hold < t.holds.size() && !live_hold(i, t.holds[t.first_hold])) ++t.first_hold;
      if (t.first_hold == t.holds.size()) {
        t.holds.clear();
        t.first_hold = 0;
        min = kNoClock;
      } else {
        min = t.holds[t.first_hold].first;
      }
    } else if (!t.holds.empty() && t.holds.back().first == acq.clock()) {
      t.holds.pop_back();  // the last acquired (LIFO order)
    }
    if (t.holds.size() - t.first_hold > 2 * sets_.size(threads_[i].set) + 16) [[unlikely]] {
      // released holds behind a live one are half of them: keep the live ones
      std::erase_if(t.holds, [&](const auto& h) { return !live_hold(i, h); });
      t.first_hold = 0;
    }
  }
  // i still holds `token` from the acquire at clock h.first.
  bool live_hold(ThreadId i, const std::pair<Clock, LockId>& h) const {
    const Lock& l = locks_[lock_of(h.second)];
    if (!is_read_mode(h.second)) return l.holder == i && l.acq.clock() == h.first;
    const Reader* r = find_reader(l, i);
    return r != nullptr && r->acq.clock() == h.first;
  }
  // H(y) += (acq, Th(i)), `read` = kReadRow for a read section; bounded: overwrites the oldest.
  void record_section(Lock& l, Epoch acq, ThreadId i, uint32_t read) {
    const uint32_t row = snapshot(i);
    const Clock own = now(i).clock();
    if (history_ == kUnbounded || l.cs_acq.size() < history_) {
      l.cs_acq.push_back(acq);
      l.cs_row.push_back(row | read);
      l.cs_rel.push_back(own);
    } else {  // overwrite the oldest entry
      unref_snapshot(l.cs_row[l.next] & ~kReadRow);
      l.cs_acq[l.next] = acq;
      l.cs_row[l.next] = row | read;
      l.cs_rel[l.next] = own;
      if (++l.next == history_) l.next = 0;
    }
  }

  // --- snapshots (see the top of the file) ---
  // A reference to the snapshot row of Th(i) (entry i as of the snapshot, at most Th(i)[i]).
  uint32_t snapshot(ThreadId i) {
    Thread& t = threads_[i];
    if (t.snap != kNone && t.snap_version == t.version) [[likely]] {
      snaps_.ref(t.snap);
      return t.snap;
    }
    return new_snapshot(i);
  }
  [[gnu::noinline]] uint32_t new_snapshot(ThreadId i) {
    Thread& t = threads_[i];
    if (t.snap != kNone) unref_snapshot(t.snap);
    const uint32_t r = sparse_ ? take_sparse_snapshot()
                               : snaps_.take(cur_th_.get(), static_cast<ThreadId>(cur_slot_));
    snaps_.ref(r);  // the thread's
    snaps_.ref(r);  // and the caller's
    t.snap = r;
    t.snap_version = t.version;
    return r;
  }
  void unref_snapshot(uint32_t r) { snaps_.unref(r); }
  // Th of slot s (its row th, dense mode) ⊔= snapshot `snap` with entry e.thread() raised to
  // e.clock(). Sparse mode: entry by entry through ThreadClocks, which keeps the row's list of
  // non-zero entries.
  void join_snapshot_into(uint32_t s, Clock* th, uint32_t snap, Epoch e) {
    if (sparse_) [[unlikely]]
      return sparse_join_snapshot(s, snap, e);
    join_snapshot(th, snaps_.row(snap), e);
  }
  [[gnu::noinline]] void sparse_join_snapshot(uint32_t s, uint32_t snap, Epoch e) {
    const std::span<const SnapshotPool::Entry> p = snaps_.entries(snap);
    tc_.join_entries_into_slot(s, p.data(), p.size());
    tc_.raise_slot(s, e.thread(), e.clock());
  }
  // Sparse mode: a snapshot of Th of the current thread, as its non-zero entries.
  [[gnu::noinline]] uint32_t take_sparse_snapshot() {
    return snaps_.take_entries(
        static_cast<ThreadId>(cur_slot_),
        [&](std::vector<SnapshotPool::Entry>& p) { tc_.pack_slot(cur_slot_, p); });
  }
  // Snapshot r as a row of the stride (sparse mode: unpacked into a scratch row, valid until
  // the next call).
  const Clock* snapshot_row(uint32_t r) const { return snaps_.row(r); }
  // The pool keeps every snapshot a full row (no deltas): a section's row is read by pointer
  // (for_each_section) while other snapshots are joined.
  static SnapshotOptions full_rows() {
    SnapshotOptions o;
    o.delta_min_stride = SIZE_MAX;
    return o;
  }
  // may_have_guards with sparse clocks: over the holds of L_all (a hold's acquire epoch is in
  // its holder's slot, which the holder keeps while it holds a lock), not over every slot.
  [[gnu::noinline]] bool may_have_guards_sparse() const {
    for (const Held& h : held_)
      if (h.acq.thread() != cur_slot_ && h.acq.clock() <= cur_th_[h.acq.thread()]) return true;
    return false;
  }
  // After ThreadClocks may have added threads (grew: the stride grew): the snapshots follow
  // its stride and, once its clocks went sparse, its representation.
  void after_growth(bool grew) {
    if (tc_.sparse() && !sparse_) [[unlikely]]
      make_sparse();
    if (grew) restride();
  }
  [[gnu::noinline]] void make_sparse() {
    snaps_.make_sparse();
    sparse_ = true;
  }
  // dst = dst ⊔ (row with entry e.thread() raised to e.clock()).
  void join_snapshot(Clock* dst, const Clock* row, Epoch e) const {
    join_into(dst, row);
    Clock& own = dst[e.thread()];
    own = std::max(own, e.clock());
  }

  // Makes thread t known (a slot, Th(t) = [0,…,1,…,0] unless forked into a reused slot).
  [[gnu::noinline]] void grow_threads(ThreadId t) {
    after_growth(tc_.add_thread(t));
    if (tc_.threads() > min_acq_.size()) min_acq_.resize(tc_.threads(), kNoClock);
    threads_.resize(static_cast<size_t>(t) + 1);
  }
  // The current thread's slot and row, again (after its row may have moved).
  void refresh() {
    cur_slot_ = tc_.slot(cur_);
    cur_th_ = tc_.th_ref_at_slot(cur_slot_);
  }
  // The thread capacity grew: the snapshot rows follow.
  void restride() { snaps_.set_stride(tc_.stride()); }
  [[gnu::noinline]] void grow_variables(VariableId x) {
    const size_t n = std::max<size_t>(static_cast<size_t>(x) + 1, vars_.size() * 3 / 2);
    vars_.resize(n);
  }
  void ensure_lock(LockId y) {
    if (y >= locks_.size()) [[unlikely]]
      locks_.resize(static_cast<size_t>(y) + 1);
  }

  uint32_t history_;
  ThreadId cur_ = 0;             // the current event's thread
  uint32_t cur_slot_ = 0;        // its slot
  ThreadClocks::RowRef cur_th_;  // Th(cur_) (checked in debug builds)
  ThreadClocks tc_;              // Th(i), by slot (no lock order: PWR has its own)
  SnapshotPool snaps_;           // snapshots: the rows of LW(x) and of H(y)'s releases
  bool sparse_ = false;          // tc_ and snaps_ are sparse (many threads alive at once)
  std::vector<Thread> threads_;
  std::vector<LastWrite> vars_;
  std::vector<Lock> locks_;
  std::vector<Held> held_;  // L_all
  struct Step {
    LockSetTable::NodeId from = UINT32_MAX;
    LockId token = 0;
    LockSetTable::NodeId to = 0;
    SetId set = 0;
    bool acquire = false;
  };
  static constexpr unsigned kStepBits = 9;
  std::vector<Step> steps_ = std::vector<Step>(size_t{1} << kStepBits);  // see step()
  bool read_locks_ = false;
  uint64_t lock_version_ = 0;
  static constexpr Clock kNoClock = UINT32_MAX;
  static constexpr LockId kNoPending = UINT32_MAX;     // Thread::pending: nothing owed
  static constexpr LockId kAllLocks = UINT32_MAX - 1;  // every held lock (Th(i) grew)
  std::vector<Clock> min_acq_;         // per slot: the clock of its thread's earliest held acquire
  std::vector<HoldOrder> hold_order_;  // by thread (see HoldOrder)
  LockSetTable sets_;
};

}  // namespace racepred::pwr
