// Thread clocks Th(i) and release clocks Rel(y) with the synchronisation rules of the papers'
// vector-clock algorithms (Sulzmann, "Dynamic data race prediction", "Vector clocks", Sulzmann,
// "Happens-before and vector clocks" with fork and join):
//
//   acq(i,y):   Th(i) = sync(Th(i), Rel(y))        rel(i,y):  Rel(y) = Th(i)
//   fork(i,j):  Th(j) = sync(Th(j), Th(i))         join(i,j): Th(i) = sync(Th(i), Th(j))
//   after every event of thread i: inc(Th(i), i)   (tick)
//
// Read-write locks (docs/ENGINES.md, "Read-write locks"): RelR(y) joins the clocks of the read
// releases of y since its last write section. A read section is ordered after the last write
// section of y, a write section after every earlier section of y, read sections among
// themselves not at all (the read-lock reduction: reader t holds (y,t), a writer every (y,u)):
//
//   racq(i,y):  Th(i) = sync(Th(i), Rel(y))        rrel(i,y): RelR(y) = sync(RelR(y), Th(i))
//   acq(i,y):   Th(i) = sync(Th(i), Rel(y), RelR(y))
//
// RelR(y) is not reset at a write release: Rel(y) = Th(i) then covers it (the writer joined it),
// so joining it again adds nothing. Locks never taken in read mode have no RelR row.
//
// Synchronisation orders (docs/ENGINES.md, "Synchronisation orders"): C(o) joins the clocks of
// every send on sync object o; a recv takes it (release/acquire without mutual exclusion, and
// not affected by lock_order = false). Objects never sent or received on have no row:
//
//   send(i,o):  C(o) = sync(C(o), Th(i))           recv(i,o): Th(i) = sync(Th(i), C(o))
//
// Th(i) starts as [0,…,1,…,0] (own entry 1), so an access's epoch i#Th(i)(i) before the tick is
// its own, and an earlier access j#k is happens-before the current event of thread i iff
// k <= Th(i)(j) (the epoch lemma). All clocks are rows of one stride in flat arrays
// (clock/rows.hpp); the stride is the thread capacity, a power of two.
//
// Slots (threads × threads memory). Rows and clock entries are indexed by a slot;
// by default thread t has slot t. An engine may allow slots to be reused (reuse_slots_beyond):
// once more than `budget` slots exist, a thread forked by i takes the slot s of a thread that
// was joined, provided Th(i)(s) already covers that thread's last clock value (i knows all of
// its events). The new thread then starts at Th(i)(s) + 1 in slot s, so epochs s#k with k up
// to the old thread's last value name the old thread (thread_at), later ones the new thread,
// and the epoch lemma holds for both: with churn (short-lived threads forked and joined) the
// stride follows the threads alive at once, not all threads ever seen. Engines index rows and
// entries by slot(t); with reuse off, slot(t) == t. With reuse on, slot(t) == t too until a
// thread id reaches the budget or a fork needs a slot beyond it: only then are slots mapped
// (a SlotMap, clock/slot_map.hpp: the slot reuse Goldilocks shares), so traces with few threads
// pay nothing for the mapping on the per-event path.
//
// Sparse clocks (many threads alive at once). A row per slot is slots² entries:
// 20,000 threads that are all alive are 1.6 GB of mostly zeros (a thread forked by T0 knows
// T0 and itself). Past `sparse_beyond` slots (default 1024, where the rows reach 4 MB) the
// clocks switch to sparse storage: every clock is the list of its non-zero entries (slot,
// value), and only a few threads' clocks (kResident, least recently used) are unpacked into
// rows of the stride, which th()/view() hand out as before. Each unpacked row keeps the list of
// its non-zero entries, so packing it again, joining it into another row, releasing it into a
// lock's clock and acquiring a lock's clock all cost the non-zero entries, not the stride.
// A pointer from th()/view() stays valid until the clock of a (kResident - 1)-th other thread
// is asked for; the engines use Th(i) of the event's thread only (fork and join touch two).
// Below the threshold nothing changes: the flat rows and loops of the dense form (one
// predictable branch on the mode). RelR(y) is sparse there too (the read releases' clocks
// joined entry by entry), so read-write locks work with many threads alive.
//
// Clocks of other kinds per slot (rows_start_empty): the same rows and lock clocks can hold a
// clock that is not a thread's own time and starts empty, indexed by the slots of another
// ThreadClocks (WCP's P_t, P_l and PR_l beside H's slots: the acquire/release rules are the
// same); join_slot_from / assign_slot_from join a row of that other ThreadClocks in (in sparse
// mode entry by entry over its non-zero entries).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "racepred/clock/rows.hpp"
#include "racepred/clock/slot_map.hpp"
#include "racepred/clock/vector_clock.hpp"
#include "racepred/trace/debug_check.hpp"
#include "racepred/trace/event.hpp"

namespace racepred {

// Thread `i`'s clock would wrap around (2^32 events): throws InputError naming the thread.
[[noreturn, gnu::noinline, gnu::cold]] void clock_overflow(ThreadId i);

// c := c + 1 for a clock value of thread i, which never wraps around.
inline void increment_clock(Clock& c, ThreadId i) {
  if (++c == 0) [[unlikely]]
    clock_overflow(i);
}

class ThreadClocks {
 public:
  // lock_order = false leaves out the critical-section order (fork/join and program order
  // only, as the "Dynamic data race prediction" notes' lockset-style predictor does): acquire and
  // release do nothing.
  explicit ThreadClocks(bool lock_order = true) : lock_order_(lock_order) {}

  // Makes threads [0, t] known. Returns true when the stride grew: a caller with rows of its
  // own of the same stride re-lays them out (ClockRows::set_stride(stride())).
  bool add_thread(ThreadId t) {
    if (!mapped_) [[likely]] {
      if (t < threads_) [[likely]]
        return false;
      if (!reuse_ || t < budget_) return grow(t);
      start_mapping();
    }
    if (slots_.find(t) != kNoSlot) [[likely]]
      return false;
    return new_slot(t);
  }
  // Rows in use: threads, or slots when slots are reused.
  size_t threads() const { return threads_; }
  size_t stride() const { return th_.stride(); }

  // Allows slot reuse once more than `budget` slots exist (call before the first event).
  // SIZE_MAX turns reuse off (slot(t) == t again).
  void reuse_slots_beyond(size_t budget) {
    reuse_ = budget != SIZE_MAX;
    budget_ = budget;
  }
  bool reuses_slots() const { return reuse_; }
  // The slot of a known thread: the index of its row and of its entry in every clock.
  uint32_t slot(ThreadId t) const { return mapped_ ? slots_[t] : t; }
  // Thread t has a slot: it is known and, with slot reuse, not joined.
  bool has_slot(ThreadId t) const { return mapped_ ? slots_.find(t) != kNoSlot : t < threads_; }
  // The thread whose clock value k is in slot s (an epoch s#k of an access). Cold path.
  ThreadId thread_at(uint32_t s, Clock k) const;

  // Sparse clocks past `slots` slots (call before the first event; SIZE_MAX: never).
  void sparse_beyond(size_t slots) { sparse_beyond_ = slots; }
  // Rows start all zero instead of [0,…,1,…,0] (call before the first event): for a clock per
  // slot that is not the thread's own time (see the top of the file). Use without slot reuse.
  void rows_start_empty() { start_ = 0; }
  // The threshold a ThreadClocks starts with; the engines pass theirs (engines/options.def).
  static constexpr size_t kDefaultSparseThreshold = 1024;
  bool sparse() const { return sparse_; }
  // Non-zero entries stored over all clocks (sparse mode; a measure of its memory).
  size_t sparse_entries() const;

  // Th(i) of a known thread, `stride()` entries, indexed by slot.
  Clock* th(ThreadId i) { return row(slot(i)); }

  // Th of a thread, held across calls into the clocks. The row stays valid until the clocks
  // grow (add_thread, or fork, join and apply naming a new thread: the rows may move), in
  // sparse mode until it is packed (the clocks of kResident - 1 other slots asked for), and it
  // is the thread's until its slot passes to another thread (slot reuse). With
  // RACEPRED_DEBUG_CHECKS (trace/debug_check.hpp) every use checks all three; otherwise a
  // RowRef is the bare pointer.
  class RowRef {
   public:
    Clock* get() const {
      RACEPRED_DEBUG_ONLY(if (owner_ != nullptr) owner_->check_row(*this);)
      return row_;
    }
    Clock& operator[](size_t k) const { return get()[k]; }

   private:
    friend class ThreadClocks;
    Clock* row_ = nullptr;
    RACEPRED_DEBUG_ONLY(const ThreadClocks* owner_ = nullptr; uint32_t slot_ = 0;
                        uint64_t generation_ = 0; size_t tenants_ = 0;)
  };
  RowRef th_ref(ThreadId i) { return th_ref_at_slot(slot(i)); }
  RowRef th_ref_at_slot(uint32_t s) {
    RowRef r;
    r.row_ = row(s);
    RACEPRED_DEBUG_ONLY(r.owner_ = this; r.slot_ = s; r.generation_ = generation_;
                        r.tenants_ = tenants_of(s);)
    return r;
  }
  // Th of the thread in slot s, and inc(Th(i), i) for thread i in slot s: for engines that look
  // the slot up once per event (the lookup is a load per call while slots may be reused).
  Clock* th_at_slot(uint32_t s) { return row(s); }
  void tick_slot(uint32_t s, ThreadId i) { increment_clock(row(s)[s], i); }
  const Clock* th(ThreadId i) const { return row(slot(i)); }
  // Th of slot s ⊔= src (stride() entries), and Th(s)(k) = max(Th(s)(k), v): for engines that
  // join clocks of their own (release snapshots) into a thread's clock; in sparse mode they
  // keep the row's list of non-zero entries (writing a row from th() directly would not).
  void join_into_slot(uint32_t s, const Clock* src) {
    if (sparse_) [[unlikely]]
      return sparse_join_into(s, src);
    join_clocks(th_.row(s), src, stride());
  }
  // The same for a src whose non-zero entries are all in `nonzeros` (e.g. a packed snapshot's):
  // in sparse mode it costs those entries instead of the stride.
  void join_into_slot(uint32_t s, const Clock* src, std::span<const uint32_t> nonzeros) {
    if (sparse_) [[unlikely]] {
      Clock* r = resident(s);
      const uint32_t c = resident_[s];
      for (const uint32_t k : nonzeros) raise(c, r, k, src[k]);
      return;
    }
    join_clocks(th_.row(s), src, stride());
  }
  void raise_slot(uint32_t s, uint32_t k, Clock v) {
    if (sparse_) [[unlikely]] {
      Clock* r = resident(s);
      return raise(resident_[s], r, k, v);
    }
    Clock& c = th_.row(s)[k];
    c = std::max(c, v);
  }
  // Sparse mode, for engines that keep clocks of their own as lists of non-zero entries (PWR's
  // snapshots): an entry (slot, value) of such a list; Th of slot s ⊔= the list; the list of
  // Th of slot s appended to `out` (its non-zero entries, in no particular order).
  struct Entry {
    uint32_t slot;
    Clock value;
  };
  void join_entries_into_slot(uint32_t s, const Entry* e, size_t n) {
    Clock* r = resident(s);
    const uint32_t c = resident_[s];
    for (size_t k = 0; k < n; ++k) raise(c, r, e[k].slot, e[k].value);
  }
  void pack_slot(uint32_t s, std::vector<Entry>& out) const {
    const Clock* r = resident(s);
    for (const uint32_t k : touched_[resident_[s]]) out.push_back(Entry{k, r[k]});
  }
  // Sparse mode: the slots of the non-zero entries of Th of slot s (each once; an entry that
  // was lowered to zero may stay listed). Valid until the row is packed (see th_ref).
  std::span<const uint32_t> nonzero_slots(uint32_t s) const {
    resident(s);
    return touched_[resident_[s]];
  }
  // Th(i) = sync(Th(i), Th(j)) without joining j (its slot stays its own), i != j.
  void sync_threads(ThreadId i, ThreadId j) { join_slots(slot(i), slot(j)); }
  // Th of slot s ⊔= Th of slot os of `other` (a ThreadClocks of the same stride); assign: :=.
  // In sparse mode over the other row's non-zero entries.
  void join_slot_from(uint32_t s, const ThreadClocks& other, uint32_t os) {
    if (!sparse_ && !other.sparse_) [[likely]]
      return join_clocks(th_.row(s), other.th_.row(os), stride());
    sparse_join_from(s, other, os);
  }
  void assign_slot_from(uint32_t s, const ThreadClocks& other, uint32_t os) {
    if (!sparse_ && !other.sparse_) [[likely]]
      return copy_clock(th_.row(s), other.th_.row(os), stride());
    clear_slot(s);
    sparse_join_from(s, other, os);
  }
  // Th of slot s, entry k := v, no more than its value (cold: a correction of an own entry).
  void lower_slot(uint32_t s, uint32_t k, Clock v);
  // Th of slot s <= snap in every entry but s (dominated_but_own; in sparse mode over the row's
  // non-zero entries).
  bool slot_within_but_own(uint32_t s, const Clock* snap) {
    if (sparse_) [[unlikely]]
      return sparse_within_but_own(s, snap);
    return dominated_but_own(th_.row(s), snap, s, stride());
  }
  // Rel(y) <= Th of slot s: the thread learns nothing by acquiring y (RelR(y) not looked at).
  bool knows_release(uint32_t s, LockId y) {
    ensure_lock(y);
    if (sparse_) [[unlikely]]
      return sparse_knows_release(s, y);
    return !any_unordered(rel_.row(y), th_.row(s), stride());
  }
  ClockRef view(ThreadId i) const { return {row(slot(i)), threads_}; }
  // Rel(y), `stride()` entries; all zero before the first release of y. Sparse mode: a copy,
  // valid until the next call.
  const Clock* rel(LockId y) {
    ensure_lock(y);
    if (sparse_) [[unlikely]]
      return unpacked_rel(y);
    return rel_.row(y);
  }

  // C(o), `stride()` entries, or nullptr before the first send on o. Sparse mode: a copy, valid
  // until the next call.
  const Clock* sent(LockId o) {
    if (sparse_) [[unlikely]] {
      if (o >= sync_sparse_.size() || sync_sparse_[o].empty()) return nullptr;
      rel_copy_.assign(stride(), 0);
      for (const Entry& x : sync_sparse_[o]) rel_copy_[x.slot] = x.value;
      return rel_copy_.data();
    }
    return o < sync_.rows() ? sync_.row(o) : nullptr;
  }

  // acq(i,y): Th(i) = sync(Th(i), Rel(y)), and RelR(y) when y was taken in read mode
  void acquire(ThreadId i, LockId y) {
    if (!lock_order_) return;
    ensure_lock(y);
    if (sparse_) [[unlikely]]
      return sparse_acquire(slot(i), y, true);
    join_clocks(th(i), rel_.row(y), stride());
    if (y < rrel_.rows()) [[unlikely]]
      join_clocks(th(i), rrel_.row(y), stride());
  }
  // racq(i,y): Th(i) = sync(Th(i), Rel(y)): after the last write section of y only
  void read_acquire(ThreadId i, LockId y) {
    if (!lock_order_) return;
    ensure_lock(y);
    if (sparse_) [[unlikely]]
      return sparse_acquire(slot(i), y, false);  // Rel(y) only
    join_clocks(th(i), rel_.row(y), stride());
  }
  // rrel(i,y): RelR(y) = sync(RelR(y), Th(i))
  void read_release(ThreadId i, LockId y) {
    if (!lock_order_) return;
    if (sparse_) [[unlikely]]
      return sparse_read_release(slot(i), y);
    if (y >= rrel_.rows()) [[unlikely]]
      rrel_.ensure_rows(size_t{y} + 1);
    join_clocks(rrel_.row(y), th(i), stride());
  }
  // send(i,o): C(o) = sync(C(o), Th(i))
  void send(ThreadId i, LockId o) {
    if (sparse_) [[unlikely]] {
      if (o >= sync_sparse_.size()) sync_sparse_.resize(size_t{o} + 1);
      return sparse_join_packed(sync_sparse_[o], slot(i));
    }
    if (o >= sync_.rows()) [[unlikely]]
      sync_.ensure_rows(size_t{o} + 1);
    join_clocks(sync_.row(o), th(i), stride());
  }
  // recv(i,o): Th(i) = sync(Th(i), C(o)); nothing before the first send on o
  void recv(ThreadId i, LockId o) {
    if (sparse_) [[unlikely]] {
      if (o >= sync_sparse_.size()) return;
      Clock* t = resident(slot(i));
      const uint32_t c = resident_[slot(i)];
      for (const Entry& x : sync_sparse_[o]) raise(c, t, x.slot, x.value);
      return;
    }
    if (o >= sync_.rows()) return;
    join_clocks(th(i), sync_.row(o), stride());
  }
  // rel(i,y): Rel(y) = Th(i)
  void release(ThreadId i, LockId y) {
    if (!lock_order_) return;
    ensure_lock(y);
    if (sparse_) [[unlikely]]
      return sparse_release(slot(i), y);
    copy_clock(rel_.row(y), th(i), stride());
  }
  // fork(i,j): Th(j) = sync(Th(j), Th(i)); for a thread that has not run this is the
  // "Happens-before and vector clocks" notes' Th(j) = Th(i), inc(Th(j), j). Returns add_thread(j).
  bool fork(ThreadId i, ThreadId j) {
    if (reuse_ && i != j && threads_ >= budget_) [[unlikely]] {
      if (!mapped_) start_mapping();
      if (slots_.find(j) == kNoSlot && take_free_slot(i, j)) return false;
    }
    const bool grew = add_thread(j);
    if (i != j) join_slots(slot(j), slot(i));
    return grew;
  }
  // join(i,j): Th(i) = sync(Th(i), Th(j)) (Sulzmann, "Happens-before and vector clocks" with the
  // erratum: a point-wise max). With slot reuse, j's slot becomes free. sync = false: only that
  // (for relations whose join edge needs an event of j, e.g. WCP-5: a thread that never ran orders
  // nothing before its join).
  bool join(ThreadId i, ThreadId j, bool sync = true) {
    const bool grew = add_thread(j);
    if (i != j) {
      if (sync) join_slots(slot(i), slot(j));
      if (reuse_) retire(j);  // (before the mapping starts: remembered for it)
    }
    return grew;
  }
  // inc(Th(i), i). A clock never wraps: the 2^32-th event of one thread is an error.
  void tick(ThreadId i) { tick_slot(slot(i), i); }
  // The event's synchronisation (acquire, release, fork, join; nothing for accesses), then
  // tick: the whole update of the papers' algorithm VC for one event. Returns true when the
  // stride grew.
  bool apply(const Event& e) {
    bool grew = add_thread(e.thread);
    switch (e.op) {
      case Op::Acquire:
        acquire(e.thread, e.target);
        break;
      case Op::Release:
        release(e.thread, e.target);
        break;
      case Op::ReadAcquire:
        read_acquire(e.thread, e.target);
        break;
      case Op::ReadRelease:
        read_release(e.thread, e.target);
        break;
      case Op::Send:
        send(e.thread, e.target);
        break;
      case Op::Recv:
        recv(e.thread, e.target);
        break;
      case Op::Fork:
        grew |= fork(e.thread, e.target);
        break;
      case Op::Join:
        grew |= join(e.thread, e.target);
        break;
      case Op::Read:
      case Op::Write:
      case Op::Request:  // takes and orders nothing
      case Op::ReadRequest:
        break;
    }
    tick(e.thread);
    return grew;
  }

 private:
  Clock* row(uint32_t s) const {
    if (sparse_) [[unlikely]]
      return resident(s);
    return const_cast<Clock*>(th_.row(s));
  }
  // Th(d) = sync(Th(d), Th(s)), d != s.
  void join_slots(uint32_t d, uint32_t s) {
    if (sparse_) [[unlikely]]
      return sparse_join(d, s);
    join_clocks(th_.row(d), th_.row(s), stride());
  }
  [[gnu::noinline]] bool grow(ThreadId t) {
    RACEPRED_DEBUG_ONLY(++generation_;)  // the rows may move (RowRef)
    const size_t n = size_t{t} + 1;
    if (sparse_ || n > sparse_beyond_) [[unlikely]]
      return sparse_grow(n);
    bool grew = false;
    if (n > th_.stride()) {
      const size_t stride = std::bit_ceil(n);
      th_.set_stride(stride);
      rel_.set_stride(stride);
      rrel_.set_stride(stride);
      sync_.set_stride(stride);
      grew = true;
    }
    th_.ensure_rows(n);
    for (size_t u = threads_; u < n; ++u) th_.row(u)[u] = start_;  // Th(u) = [0,…,1,…,0]
    threads_ = n;
    return grew;
  }
  void ensure_lock(LockId y) {
    if (sparse_) [[unlikely]] {
      if (y >= rel_sparse_.size()) rel_sparse_.resize(size_t{y} + 1);
      return;
    }
    if (y >= rel_.rows()) [[unlikely]]
      rel_.ensure_rows(size_t{y} + 1);
  }
  // Slot reuse: slots become mapped (identity so far, the joined threads' slots free).
  void start_mapping();

  // Sparse mode (see the top of the file).
  using Packed = std::vector<Entry>;
  static constexpr size_t kResident = 8;
  // Switches to sparse clocks (packing every row) if not yet, then makes slots [0, n) known.
  bool sparse_grow(size_t n);
  // The row of slot s, unpacking it (and packing the least recently used one) if needed.
  Clock* resident(uint32_t s) const {
    const uint32_t c = resident_[s];
    if (c == kNoSlot) [[unlikely]]
      return unpack(s);
    used_at_[c] = ++now_;
    return cache_.row(c);
  }
  Clock* unpack(uint32_t s) const;
  // Raises entry k of cache row c (holding `row`) to v.
  void raise(uint32_t c, Clock* row, uint32_t k, Clock v) const {
    if (v <= row[k]) return;
    if (row[k] == 0) touched_[c].push_back(k);
    row[k] = v;
  }
  void sparse_join(uint32_t d, uint32_t s);
  void sparse_join_into(uint32_t s, const Clock* src);
  void sparse_acquire(uint32_t s, LockId y, bool read_releases);
  void sparse_release(uint32_t s, LockId y);
  void sparse_read_release(uint32_t s, LockId y);
  // r ⊔= Th of slot s, r a packed clock (RelR(y), C(o)).
  void sparse_join_packed(Packed& r, uint32_t s);
  void sparse_join_from(uint32_t s, const ThreadClocks& other, uint32_t os);
  void clear_slot(uint32_t s);
  bool sparse_within_but_own(uint32_t s, const Clock* snap);
  bool sparse_knows_release(uint32_t s, LockId y);
  // Th(d) = Th(s), d != s.
  void sparse_copy(uint32_t d, uint32_t s);
  const Clock* unpacked_rel(LockId y);
  // Slot reuse: a fresh slot for thread t (Th = [0,…,1,…,0]).
  bool new_slot(ThreadId t);
  // Thread j, forked by i, takes a free slot whose last thread i knows fully; false if none.
  bool take_free_slot(ThreadId i, ThreadId j);
  // Thread j was joined: its slot becomes free.
  void retire(ThreadId j);

#ifdef RACEPRED_DEBUG_CHECKS
  // RowRef's checks: the clocks did not grow since, the row is where it was (in sparse mode:
  // still unpacked), and its slot has the same thread.
  size_t tenants_of(uint32_t s) const {
    return mapped_ ? slots_.tenant_count(s) : 1;
  }
  void check_row(const RowRef& r) const {
    RACEPRED_DCHECK(r.generation_ == generation_,
                    "a row of ThreadClocks is used after the clocks grew (its rows may move)");
    RACEPRED_DCHECK(
        sparse_ ? resident_[r.slot_] != kNoSlot && cache_.row(resident_[r.slot_]) == r.row_
                : th_.row(r.slot_) == r.row_,
        "a row of sparse ThreadClocks is used after it was packed (other slots' clocks asked "
        "for)");
    RACEPRED_DCHECK(tenants_of(r.slot_) == r.tenants_,
                    "a row of ThreadClocks is used after its slot passed to another thread");
  }
  uint64_t generation_ = 0;  // bumped whenever the rows may move
#endif

  static constexpr uint32_t kNoSlot = SlotMap::kNoSlot;
  bool reuse_ = false;
  bool mapped_ = false;  // slots go through slots_ (only with reuse_)
  size_t budget_ = SIZE_MAX;
  std::vector<ThreadId> joined_;  // before the mapping: the joined threads
  // Thread → slot, free slots with Th(j)(slot) of the thread joined last there, and each slot's
  // threads by first clock. A joined thread loses its slot at once (joined again: a fresh one).
  SlotMap slots_;

  bool lock_order_;
  ClockRows<Clock> th_;    // Th(i), one row per thread (dense mode; sparse: only the stride)
  ClockRows<Clock> rel_;   // Rel(y), one row per lock (dense mode)
  ClockRows<Clock> rrel_;  // RelR(y), rows only up to the last lock taken in read mode
  ClockRows<Clock> sync_;  // C(o), rows only up to the last sync object sent on
  size_t threads_ = 0;
  Clock start_ = 1;  // a new row's own entry (0: rows_start_empty)

  size_t sparse_beyond_ = kDefaultSparseThreshold;
  bool sparse_ = false;
  mutable std::vector<Packed> packed_;                  // per slot: its clock, unless unpacked
  std::vector<Packed> rel_sparse_;                      // per lock: Rel(y)
  std::vector<Packed> rrel_sparse_;                     // per lock: RelR(y), up to the last
  std::vector<Packed> sync_sparse_;                     // per sync object: C(o)
  std::vector<uint32_t> rrel_at_;                       // scratch: entry index + 1 per slot
  mutable ClockRows<Clock> cache_;                      // kResident unpacked rows
  mutable std::vector<std::vector<uint32_t>> touched_;  // per cache row: its non-zero entries
  mutable std::vector<uint32_t> owner_;                 // per cache row: its slot, kNoSlot: none
  mutable std::vector<uint64_t> used_at_;               // per cache row: last use
  mutable std::vector<uint32_t> resident_;              // per slot: its cache row, kNoSlot: packed
  mutable uint64_t now_ = 0;
  std::vector<Clock> rel_copy_;  // rel() in sparse mode
};

}  // namespace racepred
