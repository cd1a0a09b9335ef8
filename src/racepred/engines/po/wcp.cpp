// wcp: weak causal precedence (Kini, Mathur, Viswanathan, PLDI 2017), as Def. B.3 of Sulzmann and
// Thiemann (Sulzmann, Thiemann: "Cross-thread critical sections and efficient dynamic race
// prediction methods", appendix B) defines it, composed with HB including fork/join: Def. B.2
// leaves fork and join out of HB, which makes the relation intransitive across forks and joins and
// reports false first races on plain fork-join phases (examples/po/fork_join_phases.std); WCP's
// implementations treat fork/join as HB edges, and so does this engine (docs/ENGINES.md). The
// algorithm is the queue algorithm of the WCP paper with both precision pitfalls of public
// implementations fixed (rule (a) never imports the accessing thread's own releases: trace ownA;
// rule (b) needs a1 <wcp r2, not thread order: trace WCP-5).
//
// State (paper notation):
//   N_t        local time of thread t (1 at start; +1 after each release and fork)
//   H_t        HB time (with fork/join) of t's current event (H_t(t) = N_t)
//   P_t        WCP predecessors of t's current event: e <wcp current iff N(e) <= P_t(thread(e))
//   H_l, P_l   H and P of the last release of lock l
//   CS_l       the critical sections of l in trace order: (thread, N at the acquire, H at the
//              release); cursor_l(t): how far t's releases walked it (rule (b))
//   L^r_{l,x}, L^w_{l,x}
//              HB time of the latest release of a CS on l that read / wrote x, and the latest
//              one by another thread (rule (a))
//   W_x, R_x   N of the latest write / read of x per thread (race check)
//
// Rules (Def. B.3) and where they are applied:
//   WCP-1 (a)  access f of t inside a CS on l: P_t ⊔= L^w_{l,x} (and L^r_{l,x} if f writes),
//              from releases of other threads only                               [access]
//   WCP-2 (b)  at release r2 of l: every earlier CS (a1, r1) of l with a1 <wcp r2, i.e.
//              N(a1) <= P_t(thread(a1)), gives r1 <wcp r2: P_t ⊔= H(r1)         [release]
//   WCP-3 (c)  composition with HB: P values are joins of HB times, and P flows along
//              HB edges (P_t ⊔= P_l at acquires, P_u ⊔= H_t at forks)          [acq, fork]
//   WCP-4/5    fork/join: P_u ⊔= H_t at fork(t,u); P_t ⊔= H_u at join(t,u)   [fork, join]
//   sync       send/recv, a hard edge like fork/join (docs/ENGINES.md, "Synchronisation
//              orders"): H_o ⊔= H_t at send(t,o) (then N_t += 1); P_t ⊔= H_o and
//              H_t ⊔= H_o at recv(t,o)                                          [send, recv]
//   race       conflicting e1 (earlier, thread u != t) not <wcp e2: N(e1) > P_t(u)
//
// Read-write locks (engine `wcp`; docs/ENGINES.md "Read-write locks"): the standard reduction, a
// read section of l by t holding (l,t), a write section every (l,u), each acquire and release
// one event. In the state above H_l, P_l and CS_l are those of the write sections; besides:
//   HR_l, PR_l the join of H and P at the read releases of l. A read acquire joins H_l, P_l (the
//              last release of (l,t) is the last write release or t's own); a write acquire also
//              HR_l, PR_l (the last releases of every (l,u))
//   RCS_{l,u}  u's read sections of l, in trace order (with CS_l they make the CSs of (l,u))
//   L_{l,x,u}  HB time of u's latest read release of l whose section read / wrote x
// Rule (a) in a read section of l meets the write sections only (L^r, L^w above), in a write
// section also every other thread's read sections (L_{l,x,u}, u != t). Rule (b) at a read
// release of t walks CS_l and RCS_{l,t}, at a write release CS_l and every RCS_{l,u}; each lane
// is a subsequence of the CSs of one reduced lock, so the CSs due are a prefix of it. Joining a
// read section's release can make a CS of another lane due: repeat until nothing is joined.
#include <bit>
#include <memory>
#include <vector>

#include "racepred/clock/thread_clocks.hpp"
#include "racepred/engines/clock_options.hpp"
#include "racepred/engines/po/nesting.hpp"
#include "racepred/engines/po/po_common.hpp"

namespace racepred::po {
namespace {

// The optimised version (engine `wcp`): the same rules on flat clock rows (one contiguous array
// per kind of clock), with an O(1) test before each rule-(a) join (a release r1 is already WCP-
// before the current event iff N(r1) <= P_t(thread(r1))), the own entry of P_t set in place for
// the race check (C_t = P_t[t := N_t]), the CS sets reused, and one HB snapshot per release shared
// by the rule-(a) slots and the CS list instead of one copy per variable.
//
// Thread slots: H_t, H_l and HR_l are the clock kit's ThreadClocks (N_t = H_t(t)),
// P_t, P_l and PR_l rows of the same stride, all indexed by slot: a joined thread's slot is
// given to a thread forked by one whose H knows all of the old thread (reuse_slots_beyond;
// clock/thread_clocks.hpp), the new thread starting past the old one's last time in the slot.
// Every clock entry and every stored time (CS lanes, rule-(a) slots, release snapshots, the
// race history) is then by slot, and an old thread's time s#k is known to an event iff k <=
// its P(s): a later tenant's event e_new in P (e_new <=hb r1 <wcp e2, or e_new <=hb fork edge)
// implies the old thread's events, which are HB-before the fork of the new tenant, are
// WCP-before too (WCP composes with HB). "Another thread" tests (rule (a)) compare threads.
//
// P_t, P_l and PR_l are a second ThreadClocks (pclocks_) whose rows start empty, indexed by H's
// slots (its "threads" are those slots; no reuse of its own): its acquire and release rules are
// exactly P's (P_t ⊔= P_l ⊔ PR_l, P_l := P_t, PR_l ⊔= P_t). Many threads alive at once:
// past the kit's sparse threshold both ThreadClocks keep sparse clocks and the release
// snapshots are packed (SnapshotPool::make_sparse); every write into H or P goes through the
// kit (join_into_slot, raise_slot, join_slot_from, lower_slot), which keeps each unpacked row's
// list of non-zero entries, and the engine only reads the rows (the race check's C_t writes
// P_t's own entry and restores it before any other call).
class Wcp final : public PoEngine<Wcp> {
 public:
  explicit Wcp(EngineContext& context)
      : PoEngine<Wcp>(context),
        snaps_(SnapshotPool::kChain, snapshot_options(context.options)),
        open_(false, static_cast<uint32_t>(context.options.po_deep_level)),
        steps_probe_(context.options.rule_a_steps) {
    set_clock_options(clocks_, context.options, context.annotate);
    set_sparse_threshold(pclocks_, context.options);  // P by H's slots: sparse with H
    pclocks_.rows_start_empty();
    hist_.large_from(context.annotate ? UINT64_MAX : context.options.bulk_count_from);
  }

  void before(EventId, const Event& e) {
    const ThreadId t = e.thread;
    if (clocks_.add_thread(t)) [[unlikely]]
      restride();
    if (t >= ran_.size()) [[unlikely]]
      add_thread(t);
    ensure_p_rows();
    ran_[t] = true;
  }
  void read_acquire(EventId, const Event& e) {
    read_acquire_section(e.thread, clocks_.slot(e.thread), e.target);
  }
  void acquire(EventId, const Event& e) {
    const ThreadId t = e.thread;
    const uint32_t s = clocks_.slot(t);
    const LockId l = e.target;
    if (l >= sections_.size()) [[unlikely]]
      add_lock(l);
    clocks_.acquire(t, l);   // H_t := H_t ⊔ H_l (⊔ HR_l)
    pclocks_.acquire(s, l);  // P_t := P_t ⊔ P_l (⊔ PR_l)                                 (WCP-3)
    Lane& lane = sections_[l];
    lane.v.push_back(Sec{s, now(s), kNoSnap});
    open_.acquire(t, l, lane.base + lane.v.size() - 1, active_at_acquire(t, s, l));
  }
  void release(EventId, const Event& e) {
    release_section(e.thread, clocks_.slot(e.thread), e.target);
  }
  void read_release(EventId, const Event& e) {
    read_release_section(e.thread, clocks_.slot(e.thread), e.target);
  }
  void read(EventId id, const Event& e) { access(id, e, clocks_.slot(e.thread)); }
  void write(EventId id, const Event& e) { access(id, e, clocks_.slot(e.thread)); }
  void fork(EventId, const Event& e) {
    const ThreadId t = e.thread, u = e.target;
    const uint32_t s = clocks_.slot(t);
    if (u >= ran_.size()) add_thread(u);
    // A thread without a slot gets a fresh one or a reused one: its P starts empty.
    const bool fresh = !clocks_.has_slot(u);
    if (clocks_.fork(t, u)) restride();  // H_u := H_u ⊔ H_t
    const uint32_t su = clocks_.slot(u);
    ensure_p_rows();
    if (fresh)
      pclocks_.assign_slot_from(su, clocks_, s);  // P_u := P_u ⊔ H_t                    (WCP-4)
    else
      pclocks_.join_slot_from(su, clocks_, s);
    clocks_.tick_slot(s, t);
  }
  void join(EventId, const Event& e) {
    const ThreadId t = e.thread, u = e.target;
    const uint32_t s = clocks_.slot(t);
    if (u >= ran_.size()) add_thread(u);
    if (clocks_.add_thread(u)) restride();
    ensure_p_rows();
    const uint32_t su = clocks_.slot(u);
    if (ran_[u])
      pclocks_.join_slot_from(s, clocks_, su);  // P_t := P_t ⊔ H_u                     (WCP-5)
    else if (h(su)[su] > 0)
      // No event of u, and its own entry (its forker's + 1) went nowhere: the slot is free for
      // a thread forked by one that knows the forker's time (u's "last" time).
      clocks_.lower_slot(su, su, h(su)[su] - 1);
    if (clocks_.join(t, u, ran_[u])) restride();  // H_t := H_t ⊔ H_u; u's slot free
  }
  void send(EventId, const Event& e) {
    const uint32_t s = clocks_.slot(e.thread);
    clocks_.send(e.thread, e.target);  // H_o := H_o ⊔ H_t
    clocks_.tick_slot(s, e.thread);
  }
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event& e) {
    const uint32_t s = clocks_.slot(e.thread);
    if (const Clock* ho = clocks_.sent(e.target)) pclocks_.join_into_slot(s, ho);  // P_t ⊔= H_o
    clocks_.recv(e.thread, e.target);  // H_t := H_t ⊔ H_o
  }
  void finish() override {
    if (steps_probe_ != nullptr) *steps_probe_ += steps_;
  }

 protected:
  void columns(const Event& e, Annotation& row) override {
    const size_t w = width(e);
    const uint32_t s = clocks_.slot(e.thread);
    row.push_back({"N_t", std::to_string(now(s))});
    row.push_back({"H_t", show_row(h(s), stride(), w)});
    row.push_back({"P_t", show_row(p(s), stride(), w)});
    row.push_back({"W_x", e.is_access() ? hist_.show(e.target, true) : ""});
    row.push_back({"R_x", e.is_access() ? hist_.show(e.target, false) : ""});
  }

 private:
  static constexpr uint32_t kNoSnap = SnapshotPool::kNone;
  static constexpr uint32_t kNoRel = UINT32_MAX;
  // A CS of CS_l: slot of its thread, N at the acquire, snapshot of H at the release and N
  // there (a shared snapshot's own entry may be older: current_snapshot).
  struct Sec {
    uint32_t slot;
    Clock acq;
    uint32_t rel;  // kNoSnap while open
    Clock rel_time = 0;
  };
  // Rule-(a) slot of (l, x, kind): the latest qualifying release and the latest by another
  // thread than that one's, as records of releases shared by every (l, x) of the release.
  struct Latest {
    uint32_t h = kNoRel, other = kNoRel;  // release records (rels_)
  };
  struct LatestPair {  // rule-(a) slots of (l, x): [0] read-releases, [1] write-releases
    Latest kind[2];
  };

  // H and P of the thread in slot s; N of that thread (H_t(t) = N_t).
  Clock* h(uint32_t s) { return clocks_.th_at_slot(s); }
  Clock* p(uint32_t s) { return pclocks_.th_at_slot(s); }
  Clock now(uint32_t s) { return h(s)[s]; }
  size_t stride() const { return clocks_.stride(); }

  // P_t := P_t ⊔ snapshot, unless the snapshot's release is already WCP-before (O(1) test);
  // true if joined. (The pool's "thread" of a snapshot is the slot of the releasing thread.)
  [[gnu::always_inline]] bool join_release(uint32_t s, const Sec& cs) {
    const uint32_t u = cs.slot;
    if (cs.rel_time <= p(s)[u]) return false;
    join_snapshot(s, cs.rel, u, cs.rel_time);
    return true;
  }
  // P of slot s ⊔= the H of a release of the thread in slot u at N = time: its snapshot, whose
  // own entry may be older (> P(u) or not, time is). Pointers from p(s) stay valid.
  [[gnu::always_inline]] void join_snapshot(uint32_t s, uint32_t snap, uint32_t u, Clock time) {
    const Clock* h = snaps_.row(snap);
    if (snaps_.sparse()) [[unlikely]]  // over the snapshot's non-zero entries
      pclocks_.join_into_slot(s, h, snaps_.row_nonzeros());
    else
      pclocks_.join_into_slot(s, h);
    pclocks_.raise_slot(s, u, time);
  }
  // A snapshot of H_t (slot s) shared by t's releases while H_t's other entries stay the same
  // (often: a thread re-acquiring a lock it released last learns nothing). H only grows in a
  // slot (a later tenant starts from a clock that knows the earlier one's), so it is unchanged
  // iff H_t <= the snapshot outside the own entry.
  uint32_t current_snapshot(uint32_t s) {
    if (s >= current_.size()) [[unlikely]]
      current_.resize(std::max<size_t>(size_t{s} + 1, current_.size() * 3 / 2), kNoSnap);
    uint32_t& cur = current_[s];
    if (cur != kNoSnap) {
      if (clocks_.slot_within_but_own(s, snaps_.row(cur))) return cur;
      snaps_.unref(cur);
    }
    if (clocks_.sparse() && !snaps_.sparse()) [[unlikely]]
      snaps_.make_sparse();
    cur = snaps_.take(h(s), s);
    snaps_.ref(cur);  // the slot's own reference
    return cur;
  }

  [[gnu::always_inline]] void access(EventId id, const Event& e, uint32_t s) {
    const ThreadId t = e.thread;
    const VariableId x = e.target;
    Clock* pt = p(s);
    if (x < latest_.size() && (latest_[x].size != 0 || nested_.any(x))) rule_a(t, s, x, e.op);
    if (read_locks_ && x < rlatest_.size() && !rlatest_[x].empty()) [[unlikely]]
      reader_rule_a(t, s, x, e.op == Op::Write);
    const Clock own = pt[s];
    const Clock n = now(s);
    pt[s] = n;  // C_t = P_t[t := N_t]; own entries never race
    hist_.check(*this, id, e, pt, pclocks_, s);
    pt[s] = own;
    hist_.record(id, e, s, n);
    const uint64_t pos = open_.access(e);
    if (pos != SectionLog::kNoPos) [[unlikely]]
      deep_access(t, x, e.op == Op::Write ? 1 : 0, pos);
  }

  // WCP-1 for an access of x by t (slot s) from the earlier CSs of the locks of t's active
  // sections (nesting.hpp), other threads' releases only.
  [[gnu::always_inline]] void rule_a(ThreadId t, uint32_t s, VariableId x, Op op) {
    Clock* pt = p(s);
    const PodVector<LockId>& active = open_.active(t);
    const uint64_t joins = joins_;
    steps_ += active.size();
    for (const LockId token : active) {
      const LockId l = lock_of(token);
      if (nested_.any()) [[unlikely]]
        join_deep(t, s, x, l, op);
      const LatestPair* found = find_slot(x, l);
      if (found == nullptr) continue;
      const LatestPair& slot = *found;
      for (int kind = 1; kind >= (op == Op::Write ? 0 : 1); --kind) {
        const Latest& a = slot.kind[kind];
        if (a.h == kNoRel) continue;
        // The release is already WCP-before the current event iff N(r1) <= P_t(thread(r1)).
        const Rel* r = &rels_[a.h];
        if (r->thread == t) {
          if (a.other == kNoRel) continue;
          r = &rels_[a.other];
        }
        if (r->time > pt[r->slot]) {
          ++joins_;
          join_snapshot(s, r->snap, r->slot, r->time);
        }
      }
    }
    if (active.size() > open_.deep_level() && joins != joins_) [[unlikely]]
      settle(t, s);
  }
  // P_t ⊔= the records of other threads' deep sections on l that hold a conflicting access to
  // x, unless already WCP-before the current event.
  [[gnu::noinline]] void join_deep(ThreadId t, uint32_t s, VariableId x, LockId l, Op op) {
    const std::span<const DeepSections::Release> records = nested_.releases(l);
    steps_ += records.size();
    for (const DeepSections::Release& r : records) {
      if (r.thread == t || r.time <= p(s)[r.slot]) continue;
      if (!nested_.touched(r, x, 1) && (op != Op::Write || !nested_.touched(r, x, 0))) continue;
      ++joins_;
      join_snapshot(s, r.snap, r.slot, r.time);
    }
  }
  // An access inside a deep section, at position pos of t's log.
  [[gnu::noinline]] void deep_access(ThreadId t, VariableId x, int kind, uint64_t pos) {
    nested_.accessed(t, x, kind, pos);
    grow_to(latest_, x);  // rule_a() looks at latest_[x]
  }
  // The section t (slot s) opens on lock l is active unless opened deep and settled.
  bool active_at_acquire(ThreadId t, uint32_t s, LockId l) {
    return open_.depth(t) < open_.deep_level() || !settled(t, s, l);
  }
  // No WCP-1 join through l can add to P_t while t holds l: every release of l by another
  // thread is known to P_t (only t releases l meanwhile).
  bool settled(ThreadId t, uint32_t s, LockId token) {
    return rel_times_.known(lock_of(token), p(s), s, t, steps_);
  }
  // P_t grew: drops t's active sections that are settled now.
  [[gnu::noinline]] void settle(ThreadId t, uint32_t s) {
    open_.settle(t, [&](LockId token) { return settled(t, s, token); });
  }

  // Lanes of CSs (CS_l, RCS_{l,u}) from a cursor on: v[head..] (absolute index of v[i]: base + i).
  struct Lane {
    std::vector<Sec> v;
    size_t head = 0;
    uint64_t base = 0;
  };

  // WCP-2 on one lane from the absolute index `from`: walks the closed CSs whose acquire is
  // WCP-before the current release (N(a1) <= P_t(thread(a1))) and joins the last one; returns
  // the absolute index of the first CS not walked. `joined` is set if P_t grew.
  [[gnu::always_inline]] uint64_t walk(uint32_t s, const Lane& lane, uint64_t from, bool& joined) {
    const Clock* pt = p(s);
    const auto& list = lane.v;
    size_t i = static_cast<size_t>(from - lane.base), last = SIZE_MAX;
    while (i < list.size() && list[i].rel != kNoSnap && list[i].acq <= pt[list[i].slot]) last = i++;
    if (last != SIZE_MAX && join_release(s, list[last])) joined = true;
    return lane.base + i;
  }
  // Drops the CSs before the absolute index `to` (their releases are WCP-before every later
  // release that walks the lane).
  [[gnu::always_inline]] void drop(Lane& lane, uint64_t to) {
    auto& list = lane.v;
    const size_t i = static_cast<size_t>(to - lane.base);
    for (size_t k = lane.head; k < i; ++k) snaps_.unref(list[k].rel);
    lane.head = std::max(lane.head, i);
    if (lane.head >= 4 && 2 * lane.head >= list.size()) {
      list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(lane.head));
      lane.base += lane.head;
      lane.head = 0;
    }
  }

  // A write release (the read releases: read_release_section).
  void release_section(ThreadId t, uint32_t s, LockId l) {
    if (!open_.release(t, l, released_, steps_)) return;
    if (l >= sections_.size()) add_lock(l);
    Lane& lane = sections_[l];
    // WCP-2: the CSs whose acquire is WCP-before this release are a prefix of CS_l (acquires of
    // l are HB-ordered and WCP composes with HB); join the last one. The prefix is dropped: every
    // later release of l follows an acquire of l, which joins P_l ⊒ P_t ⊒ H(r) of every dropped
    // CS, so no later walk needs them (the list holds only CSs not yet WCP-before the last
    // release of l; one cursor per lock suffices).
    if (l < readers_.size() && !readers_[l].lanes.empty()) [[unlikely]] {
      write_rule_b_with_readers(s, l);
    } else {
      bool joined = false;
      drop(lane, walk(s, lane, lane.base + lane.head, joined));
    }
    const uint32_t snap = current_snapshot(s);  // H at this release
    rel_times_.released(l, s, t, now(s));
    if (released_.level >= open_.deep_level()) [[unlikely]] {
      deep_release(t, s, l, snap);
    } else if (!released_.reads.empty() || !released_.writes.empty()) {
      steps_ += released_.reads.size() + released_.writes.size();
      const uint32_t rec = new_rel(Rel{t, s, now(s), snap});
      for (VariableId x : released_.reads) update(slot(l, x, 0), t, rec);
      for (VariableId x : released_.writes) update(slot(l, x, 1), t, rec);
      drop_rel_if_unused(rec);
    }
    Sec& closed = lane.v[released_.entry - lane.base];
    closed.rel = snap;
    closed.rel_time = now(s);
    snaps_.ref(snap);
    clocks_.release(t, l);   // H_l := H_t
    pclocks_.release(s, l);  // P_l := P_t
    clocks_.tick_slot(s, t);
  }

  // ---- Read-write locks (see the top of the file) ----
  struct Readers {                // per lock taken in read mode
    std::vector<Lane> lanes;      // RCS_{l,u}
    std::vector<uint64_t> in_cs;  // per thread: how far its read releases walked CS_l
    std::vector<uint64_t> at;     // scratch: a cursor per lane during a write release
  };
  // racq(t, l): H_t ⊔= H_l, P_t ⊔= P_l (the last write release), a new CS on RCS_{l,t}.
  [[gnu::noinline]] void read_acquire_section(ThreadId t, uint32_t s, LockId l) {
    read_locks_ = true;
    const LockId token = read_mode(l);  // lock ids beyond 2^31 cannot be told from tokens
    if (l >= sections_.size()) add_lock(l);
    clocks_.read_acquire(t, l);   // H_t := H_t ⊔ H_l
    pclocks_.read_acquire(s, l);  // P_t := P_t ⊔ P_l
    grow_to(readers_, l);
    Readers& r = readers_[l];
    grow_to(r.lanes, t);
    grow_to(r.in_cs, t);
    r.at.resize(r.lanes.size());
    Lane& lane = r.lanes[t];
    lane.v.push_back(Sec{s, now(s), kNoSnap});
    open_.acquire(t, token, lane.base + lane.v.size() - 1, active_at_acquire(t, s, token));
  }
  // rrel(t, l): WCP-2, the rule-(a) state of t's read section, HR_l ⊔= H_t, PR_l ⊔= P_t.
  [[gnu::noinline]] void read_release_section(ThreadId t, uint32_t s, LockId l) {
    if (!open_.release(t, read_mode(l), released_, steps_)) return;
    read_rule_b(t, s, l);
    const uint32_t snap = current_snapshot(s);  // H at this release
    snaps_.ref(snap);
    rel_times_.released(l, s, t, now(s));
    steps_ += released_.reads.size() + released_.writes.size();
    for (VariableId x : released_.reads) update_reader(l, x, 0, t, s, snap);
    for (VariableId x : released_.writes) update_reader(l, x, 1, t, s, snap);
    Lane& own = readers_[l].lanes[t];
    Sec& closed = own.v[released_.entry - own.base];
    closed.rel = snap;
    closed.rel_time = now(s);
    clocks_.read_release(t, l);   // HR_l := HR_l ⊔ H_t
    pclocks_.read_release(s, l);  // PR_l := PR_l ⊔ P_t
    clocks_.tick_slot(s, t);
  }
  // A read release of t meets CS_l (from t's own cursor: the write acquires of other threads do
  // not join t's P) and RCS_{l,t}; the walked prefix of RCS_{l,t} is dropped (a later write
  // acquire joins PR_l).
  [[gnu::noinline]] void read_rule_b(ThreadId t, uint32_t s, LockId l) {
    Readers& r = readers_[l];
    Lane& cs = sections_[l];
    Lane& own = r.lanes[t];
    uint64_t i = std::max<uint64_t>(r.in_cs[t], cs.base + cs.head), j = own.base + own.head;
    for (bool again = true; again;) {
      again = false;
      i = walk(s, cs, i, again);
      j = walk(s, own, j, again);
    }
    r.in_cs[t] = i;
    drop(own, j);
  }
  // A write release meets CS_l and every RCS_{l,u}; the walked prefixes are dropped (every later
  // acquire of l joins P_l).
  [[gnu::noinline]] void write_rule_b_with_readers(uint32_t s, LockId l) {
    Readers& r = readers_[l];
    Lane& cs = sections_[l];
    uint64_t i = cs.base + cs.head;
    for (size_t u = 0; u < r.lanes.size(); ++u) r.at[u] = r.lanes[u].base + r.lanes[u].head;
    for (bool again = true; again;) {
      again = false;
      i = walk(s, cs, i, again);
      for (size_t u = 0; u < r.lanes.size(); ++u) r.at[u] = walk(s, r.lanes[u], r.at[u], again);
    }
    drop(cs, i);
    for (size_t u = 0; u < r.lanes.size(); ++u) drop(r.lanes[u], r.at[u]);
  }
  // Rule (a) in t's write sections from the read sections of other threads (L_{l,x,u}).
  struct ReaderLatest {  // u's latest read release of l whose section read ([0]) / wrote ([1]) x
    LockId lock;
    ThreadId thread;
    uint32_t slot;  // of the thread
    uint32_t snap[2] = {kNoSnap, kNoSnap};
    Clock time[2] = {0, 0};  // N of those releases
  };
  [[gnu::noinline]] void reader_rule_a(ThreadId t, uint32_t s, VariableId x, bool write) {
    const Clock* pt = p(s);
    open_.for_each(t, [&](LockId token) {
      if (is_read_mode(token)) return;
      for (const ReaderLatest& a : rlatest_[x]) {
        if (a.lock != token || a.thread == t) continue;
        for (int kind = 1; kind >= (write ? 0 : 1); --kind)
          if (a.snap[kind] != kNoSnap && a.time[kind] > pt[a.slot])
            join_snapshot(s, a.snap[kind], a.slot, a.time[kind]);
      }
    });
  }
  // A deep section's release (write mode): one record on l.
  [[gnu::noinline]] void deep_release(ThreadId t, uint32_t s, LockId l, uint32_t snap) {
    DeepSections::Release r{t, s, now(s), snap, {}, {}};
    for (int k = 0; k < 2; ++k) r.from[k] = released_.from[k];
    r.to[0] = r.from[0] + released_.reads.size();
    r.to[1] = r.from[1] + released_.writes.size();
    ++steps_;
    if (r.from[0] == r.to[0] && r.from[1] == r.to[1]) return;
    snaps_.ref(snap);
    nested_.released(l, r);
  }
  void update_reader(LockId l, VariableId x, int kind, ThreadId t, uint32_t s, uint32_t snap) {
    grow_to(rlatest_, x);
    ReaderLatest* a = nullptr;
    for (ReaderLatest& b : rlatest_[x])
      if (b.lock == l && b.thread == t) a = &b;
    if (a == nullptr) a = &rlatest_[x].emplace_back(ReaderLatest{l, t, s});
    if (a->snap[kind] == snap && a->time[kind] == now(s)) return;  // x twice in the CS's set
    snaps_.ref(snap);
    snaps_.unref(a->snap[kind]);
    a->snap[kind] = snap;
    a->time[kind] = now(s);
  }

  // Rule-(a) slots stored per variable: (lock, slots of (l, x)) pairs in one array of their own,
  // scanned for the lock (16 bytes per variable and one allocation, grown by a quarter: xalan
  // and tradebeans have 0.7 million variables and 3.2–3.4 million (l, x) pairs).
  struct LockSlots {
    LockId lock;
    LatestPair pair;
  };
  struct VarSlots {
    std::unique_ptr<LockSlots[]> at;
    uint32_t size = 0, capacity = 0;
  };
  const LatestPair* find_slot(VariableId x, LockId l) const {
    const VarSlots& v = latest_[x];
    if (v.size > DeepSlotIndex::kShallow) [[unlikely]] {
      const uint32_t k = deep_.find(x, l);
      return k == DeepSlotIndex::kNone ? nullptr : &v.at[k].pair;
    }
    for (const LockSlots *k = v.at.get(), *end = k + v.size; k != end; ++k)
      if (k->lock == l) return &k->pair;
    return nullptr;
  }
  // The slot of (l, x, kind), made if new: a scan of x's few locks inline, the rest out of line.
  [[gnu::always_inline]] Latest& slot(LockId l, VariableId x, int kind) {
    if (x < latest_.size()) [[likely]] {
      VarSlots& v = latest_[x];
      if (v.size <= DeepSlotIndex::kShallow) [[likely]]
        for (LockSlots *k = v.at.get(), *end = k + v.size; k != end; ++k)
          if (k->lock == l) return k->pair.kind[kind];
    }
    return slot_slow(l, x, kind);
  }
  [[gnu::noinline]] Latest& slot_slow(LockId l, VariableId x, int kind) {
    grow_to(latest_, x);
    VarSlots& v = latest_[x];
    if (v.size > DeepSlotIndex::kShallow) [[unlikely]] {
      const uint32_t k = deep_.find(x, l);
      if (k != DeepSlotIndex::kNone) return v.at[k].pair.kind[kind];
    } else {
      for (LockSlots *k = v.at.get(), *end = k + v.size; k != end; ++k)
        if (k->lock == l) return k->pair.kind[kind];
    }
    if (v.size == v.capacity) {
      v.capacity += v.capacity / 4 + 1;
      auto grown = std::make_unique_for_overwrite<LockSlots[]>(v.capacity);
      std::copy(v.at.get(), v.at.get() + v.size, grown.get());
      v.at = std::move(grown);
    }
    LockSlots& added = v.at[v.size++];
    added = LockSlots{l, {}};
    deep_.added(x, v.size, [&](size_t k) { return v.at[k].lock; });
    return added.pair.kind[kind];
  }
  void update(Latest& a, ThreadId t, uint32_t rec) {
    if (a.h == rec) return;  // the variable appeared twice in the CS's set
    ++rels_refs_[rec];
    if (a.h != kNoRel && rels_[a.h].thread != t) {
      unref_rel(a.other);
      a.other = a.h;
    } else {
      unref_rel(a.h);
    }
    a.h = rec;
  }
  // Release records: a release's thread, slot, N and H snapshot, shared by the rule-(a) slots
  // of its (l, x) pairs (one snapshot reference per record), reference-counted.
  struct Rel {
    ThreadId thread;
    uint32_t slot;
    Clock time;
    uint32_t snap;
  };
  uint32_t new_rel(const Rel& r) {
    uint32_t k;
    if (!rels_free_.empty()) {
      k = rels_free_.back();
      rels_free_.pop_back();
      rels_[k] = r;
    } else {
      k = static_cast<uint32_t>(rels_.size());
      rels_.push_back(r);
      rels_refs_.push_back(0);
    }
    snaps_.ref(r.snap);
    return k;
  }
  void unref_rel(uint32_t k) {
    if (k != kNoRel && --rels_refs_[k] == 0) free_rel(k);
  }
  void drop_rel_if_unused(uint32_t k) {
    if (rels_refs_[k] == 0) free_rel(k);
  }
  void free_rel(uint32_t k) {
    snaps_.unref(rels_[k].snap);
    rels_free_.push_back(k);
  }

  // The stride of ThreadClocks grew: P and the snapshots follow.
  [[gnu::noinline]] void restride() {
    ensure_p_rows();
    snaps_.set_stride(stride());
  }
  // P has a row for every slot of H (then the same stride, and sparse when H is).
  void ensure_p_rows() {
    if (pclocks_.threads() < clocks_.threads()) [[unlikely]]
      pclocks_.add_thread(static_cast<ThreadId>(clocks_.threads() - 1));
  }
  [[gnu::noinline]] void add_thread(ThreadId t) {
    if (t >= ran_.size()) ran_.resize(std::max<size_t>(size_t{t} + 1, ran_.size() * 3 / 2));
    ensure_p_rows();
  }
  [[gnu::noinline]] void add_lock(LockId l) {
    sections_.resize(std::max(size_t{l} + 1, sections_.size()));
  }

  ThreadClocks clocks_;                             // H_t (by slot), H_l, HR_l
  std::vector<bool> ran_;                           // per thread: it had an event
  ThreadClocks pclocks_;                            // P_t (by H's slot), P_l, PR_l
  std::vector<Lane> sections_;                      // CS_l
  bool read_locks_ = false;                         // a lock was taken in read mode
  std::vector<Readers> readers_;                    // per lock: RCS_{l,u} and cursors
  std::vector<std::vector<ReaderLatest>> rlatest_;  // per variable: L_{l,x,u}
  std::vector<VarSlots> latest_;                    // per variable
  DeepSlotIndex deep_;                              // latest_ of variables with many locks
  SnapshotPool snaps_;             // H at releases (rule-(a) slots and CS_l refer to them)
  std::vector<uint32_t> current_;  // per slot: its current snapshot (current_snapshot)
  std::vector<Rel> rels_;          // release records (rule (a))
  std::vector<uint32_t> rels_refs_, rels_free_;
  SectionLog open_;
  SectionLog::Released released_;
  DeepSections nested_;         // WCP-1 of deep sections
  LockReleaseTimes rel_times_;  // the settled test
  uint64_t joins_ = 0;          // WCP-1 joins so far (settle after one)
  uint64_t steps_ = 0;          // WCP-1 work (EngineOptions::rule_a_steps)
  std::atomic<uint64_t>* steps_probe_;
  SparseHistory hist_;
};

}  // namespace

}  // namespace racepred::po

namespace racepred {
std::unique_ptr<Engine> make_wcp(EngineContext& context) {
  return std::make_unique<po::Wcp>(context);
}
}  // namespace racepred
