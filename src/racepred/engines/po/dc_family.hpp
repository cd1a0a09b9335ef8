// The "doesn't commute" family (Roemer, Genç, Bond, PLDI 2018; Sulzmann and Thiemann §2.3, appendix
// F): relations that contain thread order (program order, fork, join), are transitive, and do not
// compose with HB. One vector-clock algorithm, configured per engine (files dc.cpp, wdc.cpp,
// dc_tp.cpp, wdp.cpp):
//
//   rule (a)   access f of t inside a CS on l, e in an earlier CS on l conflicting with f:
//              r1 -> f                                   (dc, wdc, dc-tp: every conflict)
//              r1 -> the branch right after f            (wdp: e a write and f a read only)
//   rule (b)   r1 -> r2 if a1 -> r2, CSs on one lock     (dc only)
//
// State (paper notation):
//   D_t       time of t's current event in the relation (D_t(t) = 1 at start; +1 after each
//             release and fork); e -> current iff D(e)(thread(e)) <= D_t(thread(e))
//   D^r_{l,x}, D^w_{l,x}
//             join of D at the releases of CSs on l that read / wrote x (rule (a); the thread's
//             own releases are harmless here: thread order already has them)
//   CS_{l,u}  (dc) u's critical sections on l: D_u(u) at the acquire, D at the release;
//             cursor_{l,t,u}: the first one t's releases have not yet found before them
//   W_x, R_x  D_u(u) of the latest write / read of x per thread u (race check)
//
//   acq(t,l):   push (D_t(t), open) on CS_{l,t}
//   r/w(t,x):   for l held by t: D_t ⊔= D^w_{l,x} (and D^r_{l,x} for a write)      (a)
//               race check against D_t; W_x(t) / R_x(t) := D_t(t)
//               wdp: race check first, then D_t ⊔= D^w_{l,x} for reads only (the branch)
//   rel(t,l):   dc: for u != t, while the next CS of CS_{l,u} has D(a1)(u) <= D_t(u):
//               D_t ⊔= D(r1); repeat until nothing changes                          (b)
//               D^r_{l,x} ⊔= D_t for x read inside, D^w_{l,x} ⊔= D_t for x written;
//               close the CS with D_t;  D_t(t) += 1
//   fork(t,u):  D_u ⊔= D_t;  D_t(t) += 1          join(t,u): D_t ⊔= D_u
//   send(t,o):  S_o ⊔= D_t;  D_t(t) += 1          recv(t,o): D_t ⊔= S_o
//   (synchronisation orders, a hard edge like fork/join; docs/ENGINES.md)
//
// Read-write locks (DcFlat; docs/ENGINES.md "Read-write locks"): the standard reduction, where
// two CSs of l share a reduced lock unless both are read sections (of different threads). A
// read section is the open CS l | kReadMode (po_common.hpp); its releases go to the rule-(a)
// slot keyed l | kReadMode and to the lanes RCS_{l,u}, a write section's to the slot keyed l and
// CS_{l,u}. An access in a read section joins the write-section slot of (l, x) only, one in a
// write section both; a read release walks the CS_{l,u} of the other threads, a write release
// also RCS_{l,u}. The relation has no lock clocks (no HB composition), so nothing else changes.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "racepred/clock/thread_clocks.hpp"
#include "racepred/engines/clock_options.hpp"
#include "racepred/engines/po/lockset_history.hpp"
#include "racepred/engines/po/nesting.hpp"
#include "racepred/engines/po/po_common.hpp"

namespace racepred::po {

struct DcConfig {
  bool rule_b = false;      // DC's release-release rule
  bool write_read = false;  // WDP: rule (a) for write -> read only, to the branch after the read
  bool lockset = false;     // WDP: pairs only with disjoint standard lock sets
};

// The plain version (every clock a VectorClock); the engines run DcFlat below.
template <DcConfig Config>
class DcFamily final : public PoEngine<DcFamily<Config>> {
  using Base = PoEngine<DcFamily<Config>>;

 public:
  using Base::Base;

  void before(EventId, const Event& e) { ensure_thread(e.thread); }
  void read_acquire(EventId id, const Event& e) {
    read_locks_unsupported("dc/wdc/dc-tp/wdp", id, e);
  }
  void read_release(EventId id, const Event& e) {
    read_locks_unsupported("dc/wdc/dc-tp/wdp", id, e);
  }
  void acquire(EventId, const Event& e) {
    const ThreadId t = e.thread;
    uint64_t entry = 0;
    if constexpr (Config.rule_b) {
      auto& list = list_of(e.target, t);
      list.push_back(Section{t, d_[t].get(t), false, {}});
      entry = list.size() - 1;
    }
    open_.acquire(t, e.target, entry);
  }
  void release(EventId, const Event& e) { release_section(e.thread, e.target); }
  void read(EventId id, const Event& e) { access(id, e); }
  void write(EventId id, const Event& e) { access(id, e); }
  void fork(EventId, const Event& e) {
    ensure_thread(e.target);
    d_[e.target].join(d_[e.thread]);  // D_u := D_u ⊔ D_t
    d_[e.thread].increment(e.thread);
  }
  void join(EventId, const Event& e) {
    ensure_thread(e.target);
    d_[e.thread].join(d_[e.target]);  // D_t := D_t ⊔ D_u
  }
  void send(EventId, const Event& e) {
    grow_to(sent_, e.target);
    sent_[e.target].join(d_[e.thread]);  // S_o := S_o ⊔ D_t
    d_[e.thread].increment(e.thread);
  }
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event& e) {
    if (e.target < sent_.size()) d_[e.thread].join(sent_[e.target]);  // D_t := D_t ⊔ S_o
  }

 protected:
  void columns(const Event& e, Annotation& row) override {
    row.push_back({"D_t", show(d_[e.thread], this->width(e))});
    if constexpr (Config.lockset) {
      row.push_back(open_.lock_set_column(e.thread, this->symbols_));
    } else {
      row.push_back({"W_x", e.is_access() ? hist_.show(e.target, true) : ""});
      row.push_back({"R_x", e.is_access() ? hist_.show(e.target, false) : ""});
    }
  }

 private:
  [[gnu::always_inline]] void access(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    const VariableId x = e.target;
    if constexpr (!Config.write_read) {
      for (const OpenSections::Cs& cs : open_.of(t)) {  // rule (a) into f
        const uint32_t s = slots_.find(cs.lock, x);
        if (s == PairSlots::kNone) continue;
        d_[t].join(rule_a_[s][1]);
        if (e.op == Op::Write) d_[t].join(rule_a_[s][0]);
      }
    }
    if constexpr (Config.lockset) {
      filtered_.check(*this, id, e, d_[t], open_.locks(t));
      filtered_.record(id, e, d_[t].get(t), open_.locks(t));
    } else {
      hist_.check(*this, id, e, d_[t]);
      hist_.record(id, e, d_[t].get(t));
    }
    if constexpr (Config.write_read) {
      if (e.op == Op::Read)
        for (const OpenSections::Cs& cs : open_.of(t)) {  // rule (a) into the branch after f
          const uint32_t s = slots_.find(cs.lock, x);
          if (s != PairSlots::kNone) d_[t].join(rule_a_[s][1]);
        }
    }
    open_.access(e);
  }

  void release_section(ThreadId t, LockId l) {
    bool held = false;
    const OpenSections::Cs cs = open_.release(t, l, held);
    if (!held) return;
    if constexpr (Config.rule_b) {
      // (b): per acquiring thread u, u's CSs on l are in thread order, so those whose acquire
      // is before this release form a prefix; the last of them stands for all. Joining one
      // release may put acquires of other threads before us: repeat until nothing changes.
      auto& cursors = cursors_of(l, t);
      for (bool changed = true; changed;) {
        changed = false;
        for (ThreadId u = 0; u < d_.size(); ++u) {
          if (u == t || l >= lists_.size() || u >= lists_[l].size()) continue;
          const auto& list = lists_[l][u];
          size_t i = cursors[u], last = SIZE_MAX;
          while (i < list.size() && list[i].closed && list[i].acq <= d_[t].get(u)) last = i++;
          cursors[u] = i;
          if (last != SIZE_MAX) {
            d_[t].join(list[last].rel);
            changed = true;
          }
        }
      }
    }
    for (VariableId x : cs.reads) {
      if constexpr (!Config.write_read) rule_a_slot(l, x)[0].join(d_[t]);
    }
    for (VariableId x : cs.writes) rule_a_slot(l, x)[1].join(d_[t]);
    if constexpr (Config.rule_b) {
      Section& s = list_of(l, t)[cs.entry];
      s.closed = true;
      s.rel.assign(d_[t]);
    }
    d_[t].increment(t);
  }

  std::array<VectorClock, 2>& rule_a_slot(LockId l, VariableId x) {
    const uint32_t s = slots_.get_or_add(l, x);
    if (s >= rule_a_.size()) rule_a_.resize(size_t{s} + 1);
    return rule_a_[s];
  }
  std::vector<Section>& list_of(LockId l, ThreadId u) {
    grow_to(lists_, l);
    grow_to(lists_[l], u);
    return lists_[l][u];
  }
  std::vector<size_t>& cursors_of(LockId l, ThreadId t) {
    grow_to(cursors_, l);
    grow_to(cursors_[l], t);
    auto& c = cursors_[l][t];
    if (c.size() < d_.size()) c.resize(d_.size(), 0);
    return c;
  }
  void ensure_thread(ThreadId t) {
    while (d_.size() <= t) {
      d_.emplace_back();
      d_.back().set(static_cast<ThreadId>(d_.size() - 1), 1);
    }
  }

  std::vector<VectorClock> d_;     // D_t
  std::vector<VectorClock> sent_;  // S_o
  PairSlots slots_;
  std::vector<std::array<VectorClock, 2>> rule_a_;         // [0]: D^r_{l,x}, [1]: D^w_{l,x}
  std::vector<std::vector<std::vector<Section>>> lists_;   // CS_{l,u}
  std::vector<std::vector<std::vector<size_t>>> cursors_;  // cursor_{l,t,u}
  OpenSections open_;
  History hist_;
  FilteredHistory filtered_;
};

// The optimised version (the engines): the same rules with
//  - rule-(a) state per (l, x) as references to snapshots of D at releases (SnapshotPool) with
//    an O(1) test before each join: a release r of u is already before the current event of t
//    iff D(r)(u) <= D_t(u) (SmartTrack's epoch idea, Roemer, Genç, Bond, PLDI 2020). For dc, wdc
//    and dc-tp the write-releases of (l, x) are ordered by rule (a) itself (each later CS on l
//    writing x conflicts with the earlier ones), so the latest stands for all; a write-release also
//    orders every earlier read-release of (l, x) before it, so the read-releases kept are those
//    since the last write-release. Read-releases (and wdp's write-releases: write -> read only) of
//    different threads are not ordered by the rule; each kind keeps the list of the latest
//    release per slot that no later release of the kind is after (add): its join is the kind's.
//  - rule (b) (dc) in one pass with one cursor per (lock, releasing thread, acquiring thread):
//    CS_{l,u} holds only u's CSs with a release or fork inside (D_u(u) at the release > at the
//    acquire): for any other CS, a1 before the current event implies r1 before it (a1 and r1
//    have the same local time, and only releases, forks and finished threads pass times on).
//    For t's release and each u, the CSs of u whose r1 is already before it are skipped, and at
//    most one (the one with a1 <= D_t(u) < its r1 time) is joined; joining it cannot make
//    another thread's CS newly due (its release is already in D(r1) by rule (b) at r1), so no
//    repetition. Time per release: O(T) plus the joins; each CS is joined at most once per
//    thread.
//  - thread slots: D_t is the clock kit's ThreadClocks without lock order (fork and
//    join only), indexed by slot; a joined thread's slot is given to a thread forked by one whose
//    D knows all of the old thread, the new thread starting past the old one's last time there
//    (clock/thread_clocks.hpp). The relation contains fork and join edges and is transitive, so
//    every event after a new tenant's event is after all of the old tenant's: an old time s#k is
//    known to an event iff k <= its D(s), and one slot's events are totally ordered. Everything
//    stored is then by slot: rule-(a) contributors (a later tenant's release is after the earlier
//    tenants' ones, as a thread's own later release is), CS_{l,s} and the cursors of rule (b)
//    (a slot's lane is in the relation's order; the cursors of an old tenant are valid for the
//    new one, whose D contains the old one's), the race history (SparseHistory; wdp's lock-set
//    filtered one: SlotFilteredHistory, lockset_history.hpp).
template <DcConfig Config>
class DcFlat final : public PoEngine<DcFlat<Config>> {
  using Base = PoEngine<DcFlat<Config>>;

 public:
  explicit DcFlat(EngineContext& context)
      : Base(context),
        clocks_(false),
        snaps_(SnapshotPool::kShortChain, snapshot_options(context.options)),
        open_(Config.lockset, static_cast<uint32_t>(context.options.po_deep_level)),
        steps_probe_(context.options.rule_a_steps) {
    set_clock_options(clocks_, context.options, context.annotate);
    hist_.large_from(context.annotate ? UINT64_MAX : context.options.bulk_count_from);
    filtered_.large_from(context.annotate ? UINT64_MAX : context.options.bulk_count_from);
    // Sparse clocks past the kit's threshold (many threads alive): every write into D_t goes
    // through clocks_ (join_into_slot, raise_slot, tick); D_t is read directly.
  }

  void before(EventId, const Event& e) {
    if (clocks_.add_thread(e.thread)) [[unlikely]]
      restride();
  }
  void read_acquire(EventId id, const Event& e) {
    if (!read_locks_) first_read_lock();
    acquire(id, e);
  }
  void acquire(EventId, const Event& e) {
    const ThreadId t = e.thread;
    const uint32_t s = clocks_.slot(t);
    const LockId token = section_token(e);
    const bool active = open_.depth(t) < open_.deep_level() || !settled(t, s, token);
    open_.acquire(t, token, d(s)[s], active);  // entry: D_t(t) at the acquire
    if constexpr (Config.lockset) forget_held(t);
  }
  void release(EventId, const Event& e) {
    release_section(e.thread, clocks_.slot(e.thread), section_token(e));
  }
  void read_release(EventId id, const Event& e) { release(id, e); }
  void read(EventId id, const Event& e) { access<Op::Read>(id, e, clocks_.slot(e.thread)); }
  void write(EventId id, const Event& e) { access<Op::Write>(id, e, clocks_.slot(e.thread)); }
  void fork(EventId, const Event& e) {
    const uint32_t s = clocks_.slot(e.thread);
    if (clocks_.fork(e.thread, e.target)) restride();  // D_u := D_u ⊔ D_t
    clocks_.tick_slot(s, e.thread);
  }
  void join(EventId, const Event& e) {
    if (clocks_.join(e.thread, e.target)) restride();  // D_t := D_t ⊔ D_u; u's slot free
  }
  // A send passes D_t(t) on like a release (so CS_{l,u} keeps a CS with a send inside).
  void send(EventId, const Event& e) {
    clocks_.send(e.thread, e.target);  // S_o := S_o ⊔ D_t
    clocks_.tick_slot(clocks_.slot(e.thread), e.thread);
  }
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event& e) { clocks_.recv(e.thread, e.target); }  // D_t := D_t ⊔ S_o
  void finish() override {
    if (steps_probe_ != nullptr) *steps_probe_ += steps_;
  }

 protected:
  void columns(const Event& e, Annotation& row) override {
    row.push_back({"D_t", show_row(d(clocks_.slot(e.thread)), stride(), this->width(e))});
    if constexpr (Config.lockset) {
      row.push_back(open_.lock_set_column(e.thread, this->symbols_));
    } else {
      row.push_back({"W_x", e.is_access() ? hist_.show(e.target, true) : ""});
      row.push_back({"R_x", e.is_access() ? hist_.show(e.target, false) : ""});
    }
  }

 private:
  // Rule-(a) state of (l, x), per kind ([0]: read-releases, [1]: write-releases): the join of D
  // at those releases, represented by contributors: nobody, one slot (with D_u(u) at its latest
  // such release: the O(1) test, and a shared snapshot of D there) or several (a list of such
  // contributors, none before another: add). Stored per variable in one block: the locks that
  // guard it (scanned at every access), then their entries (VarSlots).
  static constexpr ThreadId kSeveral = kNoThread - 1;
  // CS_{l,u}: u's CSs on l with a release or fork inside, in thread order: D_u(u) at the acquire
  // and at the release, and the snapshot of D at the release.
  struct Sec {
    Clock acq, own;
    uint32_t snap;
  };
  using Lanes = std::vector<std::vector<std::vector<Sec>>>;       // [l][u]
  using Cursors = std::vector<std::vector<std::vector<size_t>>>;  // [l][t][u]
  struct Contributors {
    ThreadId thread = kNoThread;  // the slot, kNoThread (nobody) or kSeveral
    Clock own = 0;
    uint32_t clock = SnapshotPool::kNone;  // one slot: its snapshot; several: lists_of_[clock]
  };
  struct Entry {
    Contributors kind[2];
  };
  // One variable's (lock, entry) pairs: one heap block of capacity `cap` locks followed by `cap`
  // entries (16 bytes here instead of two vectors' 48, one allocation, growth by half;
  // 700,000 variables and 3.2 million pairs on tradebeans).
  class VarSlots {
   public:
    VarSlots() = default;
    VarSlots(VarSlots&& o) noexcept : block_(o.block_), n_(o.n_), cap_(o.cap_) {
      o.block_ = nullptr;
      o.n_ = o.cap_ = 0;
    }
    VarSlots& operator=(VarSlots&& o) noexcept {
      std::swap(block_, o.block_);
      std::swap(n_, o.n_);
      std::swap(cap_, o.cap_);
      return *this;
    }
    ~VarSlots() { ::operator delete(block_); }
    size_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    const LockId* locks() const {
      return static_cast<const LockId*>(block_);
    }  // entry k: locks()[k]
    Entry& entry(size_t k) { return entries()[k]; }
    const Entry& entry(size_t k) const { return entries()[k]; }
    // A new entry for lock l (nobody contributed yet); its index.
    size_t add(LockId l) {
      if (n_ == cap_) grow();
      static_cast<LockId*>(block_)[n_] = l;
      new (&entries()[n_]) Entry{};
      return n_++;
    }

   private:
    Entry* entries() const {
      return reinterpret_cast<Entry*>(static_cast<std::byte*>(block_) + cap_ * sizeof(LockId));
    }
    void grow() {
      const uint32_t cap = cap_ < 4 ? cap_ + 2 : cap_ + cap_ / 2;
      void* block = ::operator new(cap*(sizeof(LockId) + sizeof(Entry)));
      if (n_ != 0) {
        std::memcpy(block, block_, n_ * sizeof(LockId));
        std::memcpy(static_cast<std::byte*>(block) + cap * sizeof(LockId), entries(),
                    n_ * sizeof(Entry));
      }
      ::operator delete(block_);
      block_ = block;
      cap_ = cap;
    }
    void* block_ = nullptr;
    uint32_t n_ = 0, cap_ = 0;
  };
  static_assert(std::is_trivially_copyable_v<Entry> && alignof(Entry) <= alignof(LockId));

  // D of the thread in slot s.
  Clock* d(uint32_t s) { return clocks_.th_at_slot(s); }
  size_t stride() const { return clocks_.stride(); }
  size_t threads() const { return clocks_.threads(); }

  // D_t ⊔= the kind's join: of each contributor's snapshot, unless its release is already
  // before the current event (a release r of u is iff D(r)(u) <= D_t(u); contributors are slots).
  // (dt: D of slot s; joins go through ThreadClocks, which keeps sparse clocks' entry lists.)
  void join_kind(uint32_t s, const Clock* dt, const VarSlots& v, size_t k, int kind) {
    const Contributors& c = v.entry(k).kind[kind];
    if (c.thread == kNoThread || (c.thread != kSeveral && c.own <= dt[c.thread])) return;
    ++joins_;
    if (c.thread == kSeveral) {
      join_contributors(s, dt, c.clock);
      return;
    }
    clocks_.join_into_slot(s, snaps_.row(c.clock));  // the snapshot's own entry may be older
    clocks_.raise_slot(s, c.thread, c.own);          // (> dt[c.thread] here)
  }

  // kOp: e.op. Outside every critical section there is neither rule (a) nor anything to log.
  template <Op kOp>
  [[gnu::always_inline]] void access(EventId id, const Event& e, uint32_t s) {
    const ThreadId t = e.thread;
    const VariableId x = e.target;
    Clock* dt = d(s);
    SectionLog::Thread& th = open_.thread(t);
    const bool held = SectionLog::holds(th);
    if constexpr (!Config.write_read) {
      if (held && x < ra_.size() && (!ra_[x].empty() || nested_.any(x)))
        rule_a(s, dt, t, th, x, kOp);  // rule (a) into f
    }
    if constexpr (Config.lockset) {
      const uint32_t set = held_set(t);
      filtered_.check(*this, id, e, dt, set, clocks_, s);
      filtered_.record(id, e, s, dt[s], set);
    } else {
      hist_.check(*this, id, e, dt, clocks_, s);
      hist_.record(id, e, s, dt[s], kOp == Op::Write);
    }
    if (!held) return;
    if constexpr (Config.write_read) {
      if (kOp == Op::Read && x < ra_.size())
        rule_a(s, dt, t, th, x, Op::Read);  // rule (a) into the branch after f
    }
    constexpr int kind = kOp == Op::Write ? 1 : 0;
    const uint64_t pos = open_.access<kind>(th, x);
    if (pos != SectionLog::kNoPos) [[unlikely]]
      deep_access(t, x, kind, pos);
  }
  // An access inside a deep section, at position pos of t's log.
  [[gnu::noinline]] void deep_access(ThreadId t, VariableId x, int kind, uint64_t pos) {
    nested_.accessed(t, x, kind, pos);
    grow_to(ra_, x);  // rule_a() looks at ra_[x]
  }

  // Rule (a) for an access `op` of x by t from the earlier CSs of the locks t holds.
  [[gnu::always_inline]] void rule_a(uint32_t s, Clock* dt, ThreadId t,
                                     const SectionLog::Thread& th, VariableId x, Op op) {
    const PodVector<LockId>& active = SectionLog::active(th);
    const uint64_t joins = joins_;
    steps_ += active.size();
    if (read_locks_) [[unlikely]]
      rule_a_modes(s, dt, t, x, op);
    else
      for (LockId token : active) join_rule_a(s, dt, x, token, op);
    if (active.size() > open_.deep_level() && joins != joins_) [[unlikely]]
      settle(t, s);
  }
  // No rule-(a) join through l can add to D_t while t holds l (settled): every release of l is
  // known to it (only t releases l meanwhile).
  bool settled(ThreadId t, uint32_t s, LockId token) {
    return rel_times_.known(lock_of(token), d(s), s, t, steps_);
  }
  // D_t grew: drops t's active sections that are settled now.
  [[gnu::noinline]] void settle(ThreadId t, uint32_t s) {
    open_.settle(t, [&](LockId token) { return settled(t, s, token); });
  }
  // The same once a lock was taken in read mode: a read section meets the write sections of l,
  // a write section also the read sections.
  [[gnu::noinline]] void rule_a_modes(uint32_t s, Clock* dt, ThreadId t, VariableId x, Op op) {
    for (LockId token : open_.active(t)) {
      join_rule_a(s, dt, x, lock_of(token), op);
      if (!is_read_mode(token)) join_rule_a(s, dt, x, token | kReadMode, op);
    }
  }
  // D_t ⊔= the rule-(a) slot of (key, x) for an access `op` (key: l for the write sections of
  // l, l | kReadMode for its read sections).
  [[gnu::always_inline]] void join_rule_a(uint32_t s, Clock* dt, VariableId x, LockId key, Op op) {
    const size_t k = find_slot(x, key);
    if (k != kNotFound) {
      join_kind(s, dt, ra_[x], k, 1);
      if (op == Op::Write) join_kind(s, dt, ra_[x], k, 0);
    }
    if (nested_.any() && !is_read_mode(key)) [[unlikely]]
      join_deep(s, dt, x, key, op);
  }
  // D_t ⊔= the records of deep sections on l that hold a conflicting access to x (writes; reads
  // too for a write), unless already before the current event.
  [[gnu::noinline]] void join_deep(uint32_t s, Clock* dt, VariableId x, LockId l, Op op) {
    const std::span<const DeepSections::Release> records = nested_.releases(l);
    steps_ += records.size();
    for (const DeepSections::Release& r : records) {
      if (r.time <= dt[r.slot]) continue;
      if (!nested_.touched(r, x, 1) && (op != Op::Write || !nested_.touched(r, x, 0))) continue;
      ++joins_;
      clocks_.join_into_slot(s, snaps_.row(r.snap));
      clocks_.raise_slot(s, r.slot, r.time);  // a shared snapshot's own entry may be older
    }
  }

  // Rule (b) over the lanes `lanes` (CS_{l,u} or RCS_{l,u}) with t's cursors into them; true if
  // something was joined.
  // (By slot: t is the releasing thread's slot, u another slot.)
  [[gnu::always_inline]] bool walk_lanes(uint32_t t, const std::vector<std::vector<Sec>>& lanes,
                                         std::vector<size_t>& cursors) {
    Clock* dt = d(t);
    bool joined = false;
    const size_t us = std::min<size_t>(lanes.size(), threads());
    for (uint32_t u = 0; u < us; ++u) {
      if (u == t) continue;
      const std::vector<Sec>& lane = lanes[u];
      size_t i = cursors[u];
      while (i < lane.size() && lane[i].own <= dt[u]) ++i;  // r1 already before us
      if (i < lane.size() && lane[i].acq <= dt[u]) {        // a1 before us, r1 not yet
        clocks_.join_into_slot(t, snaps_.row(lane[i].snap));
        clocks_.raise_slot(t, u, lane[i].own);  // a shared snapshot's own entry may be older
        joined = true;
        ++i;
      }
      cursors[u] = i;
    }
    return joined;
  }

  // `token`: l, or l | kReadMode for a read section.
  void release_section(ThreadId thread, uint32_t t, LockId token) {
    if (!open_.release(thread, token, released_, steps_)) return;
    if constexpr (Config.lockset) forget_held(thread);
    Clock* dt = d(t);
    const LockId l = lock_of(token);
    if constexpr (Config.rule_b) {
      // A read release meets the write sections of l (one pass, as above); a write release
      // also the read sections, and joining one of those can make a CS of another thread due
      // that the read release of the joined one did not meet (two read sections): repeat.
      const bool readers = !is_read_mode(token) && l < rlists_.size();
      for (bool again = true; again;) {
        again = false;
        if (l < lists_.size()) again = walk_lanes(t, lists_[l], cursors_of(cursors_, l, t));
        if (readers) again = walk_lanes(t, rlists_[l], cursors_of(rcursors_, l, t)) || again;
        again = again && readers;
      }
    }
    const Clock own = dt[t];
    release_snap_ = SnapshotPool::kNone;  // D_t is final for this release from here on
    rel_times_.released(l, t, thread, own);
    if (released_.level >= open_.deep_level() && !is_read_mode(token)) [[unlikely]] {
      deep_release(thread, t, l, own, dt);
    } else if constexpr (!Config.write_read) {
      steps_ += released_.reads.size() + released_.writes.size();
      for (VariableId x : released_.reads) add(token, x, 0, t, own, dt);
      // A write-release is after every earlier read- and write-release of (l, x) (rule (a) at
      // the write inside): it alone stands for all of them. Not so for a read section (two
      // read sections share no reduced lock): its write-releases are joined like the reads.
      for (VariableId x : released_.writes) {
        if (is_read_mode(token)) [[unlikely]] {
          add(token, x, 1, t, own, dt);
          continue;
        }
        const size_t k = slot(l, x);
        Entry& en = ra_[x].entry(k);
        const uint32_t snap = release_snapshot(t, dt);
        if (en.kind[1].thread != t || en.kind[1].clock != snap) {
          forget(en.kind[1]);
          en.kind[1] = Contributors{t, own, snap};
          snaps_.ref(snap);
        } else {
          en.kind[1].own = own;
        }
        forget(en.kind[0]);
      }
    } else {
      steps_ += released_.writes.size();
      for (VariableId x : released_.writes) add(token, x, 1, t, own, dt);
    }
    if constexpr (Config.rule_b) {
      const Clock acq = static_cast<Clock>(released_.entry);
      if (own > acq) {  // a release or fork inside: the CS may be joined by rule (b)
        const uint32_t snap = release_snapshot(t, dt);
        snaps_.ref(snap);
        lane_of(is_read_mode(token) ? rlists_ : lists_, l, t).push_back(Sec{acq, own, snap});
      }
    }
    ++dt[t];
  }

  // A deep section's release: one record on l (wdp: of its writes only).
  [[gnu::noinline]] void deep_release(ThreadId thread, uint32_t t, LockId l, Clock own, Clock* dt) {
    DeepSections::Release r{thread, t, own, SnapshotPool::kNone, {}, {}};
    for (int k = 0; k < 2; ++k) r.from[k] = released_.from[k];
    r.to[0] = r.from[0] + (Config.write_read ? 0 : released_.reads.size());
    r.to[1] = r.from[1] + released_.writes.size();
    ++steps_;
    if (r.from[0] == r.to[0] && r.from[1] == r.to[1]) return;
    r.snap = release_snapshot(t, dt);
    snaps_.ref(r.snap);
    nested_.released(l, r);
  }
  // wdp: the interned lock set of t, kept until t acquires or releases.
  uint32_t held_set(ThreadId t) {
    if (t >= held_.size()) [[unlikely]]
      held_.resize(std::max<size_t>(size_t{t} + 1, held_.size() * 3 / 2), kUnknownSet);
    uint32_t& h = held_[t];
    if (h == kUnknownSet) h = filtered_.lock_sets().intern(open_.locks(t));
    return h;
  }
  void forget_held(ThreadId t) {
    if (t < held_.size()) held_[t] = kUnknownSet;
  }

  // The kind's join of (l, x) ⊔= D_t at a release of slot t (D_t(t) = own). The kind keeps
  // the latest release of each slot that is not before a later one of the kind: a release of t
  // drops the contributors its D_t knows (own <= D_t(u): that release is before t's, so D_t
  // contains its D) and t's own older one. The join of what is kept is the join of all the
  // kind's releases; one contributor is kept inline, several in a list (lists_of_).
  void add(LockId l, VariableId x, int kind, uint32_t t, Clock own, Clock* dt) {
    const size_t k = slot(l, x);
    Contributors& c = ra_[x].entry(k).kind[kind];
    const uint32_t snap = release_snapshot(t, dt);
    if (c.thread != kSeveral) {
      if (c.thread == t && c.clock == snap) {
        c.own = own;
        return;
      }
      if (c.thread == kNoThread || c.thread == t || c.own <= dt[c.thread]) {
        forget(c);  // nobody, or t's earlier release, or one that is before t's release
        c = Contributors{t, own, snap};
        snaps_.ref(snap);
        return;
      }
      const uint32_t id = list_ids_.take();
      if (id >= lists_of_.size()) lists_of_.resize(size_t{id} + 1);
      lists_of_[id].assign({c, Contributors{t, own, snap}});
      snaps_.ref(snap);
      c = Contributors{kSeveral, 0, id};
      return;
    }
    std::vector<Contributors>& list = lists_of_[c.clock];
    size_t kept = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      const Contributors& e = list[i];
      if (e.thread == t || e.own <= dt[e.thread]) {
        snaps_.unref(e.clock);
        continue;
      }
      list[kept++] = e;
    }
    if (kept == 0) {  // t's release alone stands for all: back to one inline contributor
      std::vector<Contributors>().swap(list);
      list_ids_.give_back(c.clock);
      c = Contributors{t, own, snap};
      snaps_.ref(snap);
      return;
    }
    list.resize(kept);
    list.push_back(Contributors{t, own, snap});
    snaps_.ref(snap);
  }
  // D_t ⊔= the releases of list `id` that are not yet before the current event.
  void join_contributors(uint32_t s, const Clock* dt, uint32_t id) {
    for (const Contributors& e : lists_of_[id]) {
      if (e.own <= dt[e.thread]) continue;
      clocks_.join_into_slot(s, snaps_.row(e.clock));
      clocks_.raise_slot(s, e.thread, e.own);
    }
  }
  // The kind's join becomes empty.
  void forget(Contributors& c) {
    if (c.thread == kSeveral) {
      std::vector<Contributors>& list = lists_of_[c.clock];
      for (const Contributors& e : list) snaps_.unref(e.clock);
      std::vector<Contributors>().swap(list);
      list_ids_.give_back(c.clock);
    } else if (c.thread != kNoThread) {
      snaps_.unref(c.clock);
    }
    c = Contributors{};
  }
  // The snapshot of D_t at the current release (looked up once per release).
  uint32_t release_snapshot(uint32_t t, Clock* dt) {
    if (release_snap_ == SnapshotPool::kNone) release_snap_ = current_snapshot(t, dt);
    return release_snap_;
  }
  // A snapshot of D_t (slot t) shared by t's releases while D_t's other entries stay the same:
  // its own entry may be older than D_t(t) (users keep the release's own time beside it).
  // D_t only grows (a slot's later tenant starts from a clock that contains the earlier one's),
  // so it is unchanged iff D_t <= the snapshot outside the own entry.
  uint32_t current_snapshot(uint32_t t, Clock* dt) {
    if (t >= current_.size()) [[unlikely]]
      current_.resize(std::max<size_t>(size_t{t} + 1, current_.size() * 3 / 2),
                      SnapshotPool::kNone);
    uint32_t& cur = current_[t];
    if (cur != SnapshotPool::kNone) {
      if (dominated_but_own(dt, snaps_.row(cur), t, stride())) return cur;
      snaps_.unref(cur);
    }
    if (clocks_.sparse() && !snaps_.sparse()) [[unlikely]]
      snaps_.make_sparse();
    cur = snaps_.take(dt, t);
    snaps_.ref(cur);  // the slot's own reference
    return cur;
  }

  static constexpr size_t kNotFound = SIZE_MAX;
  size_t find_slot(VariableId x, LockId l) const {
    const LockId* ls = ra_[x].locks();
    const size_t m = ra_[x].size();
    if (m > DeepSlotIndex::kShallow) [[unlikely]] {
      const uint32_t k = deep_.find(x, l);
      return k == DeepSlotIndex::kNone ? kNotFound : k;
    }
    for (size_t k = 0; k < m; ++k)
      if (ls[k] == l) return k;
    return kNotFound;
  }
  // The slot of (l, x), made if new: a scan of x's few locks inline, the rest out of line.
  [[gnu::always_inline]] size_t slot(LockId l, VariableId x) {
    if (x < ra_.size()) [[likely]] {
      const VarSlots& v = ra_[x];
      if (v.size() <= DeepSlotIndex::kShallow) [[likely]] {
        const LockId* ls = v.locks();
        for (size_t k = 0, m = v.size(); k < m; ++k)
          if (ls[k] == l) return k;
      }
    }
    return slot_slow(l, x);
  }
  [[gnu::noinline]] size_t slot_slow(LockId l, VariableId x) {
    grow_to(ra_, x);
    VarSlots& v = ra_[x];
    if (v.size() > DeepSlotIndex::kShallow) [[unlikely]] {
      const uint32_t k = deep_.find(x, l);
      if (k != DeepSlotIndex::kNone) return k;
    } else {
      const LockId* ls = v.locks();
      for (size_t k = 0, m = v.size(); k < m; ++k)
        if (ls[k] == l) return k;
    }
    const size_t k = v.add(l);
    deep_.added(x, v.size(), [&](size_t i) { return v.locks()[i]; });
    return k;
  }

  static std::vector<Sec>& lane_of(Lanes& lists, LockId l, ThreadId u) {
    grow_to(lists, l);
    grow_to(lists[l], u);
    return lists[l][u];
  }
  std::vector<size_t>& cursors_of(Cursors& cursors, LockId l, uint32_t t) {
    grow_to(cursors, l);
    grow_to(cursors[l], t);
    auto& c = cursors[l][t];
    if (c.size() < threads()) c.resize(threads(), 0);
    return c;
  }
  [[gnu::noinline, gnu::cold]] void first_read_lock() {
    read_locks_ = true;
    filtered_.allow_read_modes();
  }
  // The stride of the clocks grew: the snapshots follow.
  [[gnu::noinline]] void restride() { snaps_.set_stride(stride()); }

  ThreadClocks clocks_;                              // D_t, by slot (no lock order)
  std::vector<VarSlots> ra_;                         // rule (a), per variable
  DeepSlotIndex deep_;                               // ra_ of variables with many locks
  std::vector<std::vector<Contributors>> lists_of_;  // rule (a): several contributors (add)
  IdRecycler list_ids_;
  std::vector<uint32_t> current_;  // per slot: its current snapshot (current_snapshot)
  uint32_t release_snap_ = SnapshotPool::kNone;  // the current release's (release_snapshot)
  Lanes lists_;                                  // CS_{l,u}
  Cursors cursors_;                              // cursor_{l,t,u}
  Lanes rlists_;                                 // RCS_{l,u}: u's read sections
  Cursors rcursors_;                             // cursors into RCS_{l,u}
  bool read_locks_ = false;                      // a read lock was taken
  // D at releases: rule (a) and CS_{l,u} (short delta chains: old snapshots are read often)
  SnapshotPool snaps_;
  SectionLog open_;
  SectionLog::Released released_;
  DeepSections nested_;         // rule (a) of deep sections
  LockReleaseTimes rel_times_;  // the settled test
  uint64_t joins_ = 0;          // rule-(a) joins so far (settle after one)
  uint64_t steps_ = 0;          // rule-(a) work (EngineOptions::rule_a_steps)
  std::atomic<uint64_t>* steps_probe_;
  static constexpr uint32_t kUnknownSet = UINT32_MAX;
  std::vector<uint32_t> held_;  // wdp: per thread its lock set's id, or kUnknownSet
  SparseHistory hist_;
  SlotFilteredHistory filtered_;
};

}  // namespace racepred::po
