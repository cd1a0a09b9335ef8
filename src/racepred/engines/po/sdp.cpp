// sdp: strong dependently precedes (Genç, Roemer, Xu, Bond, OOPSLA 2019, with the corrigendum)
// exactly as Def. E.1 of Sulzmann and Thiemann (appendix E) states it; the
// paper's definition is the reference here, not the SDP-WDP repository's code. HB is Def. B.2's
// (thread order and release -> later acquire; fork/join only through S6/S7, "treated as in WCP").
// A race needs, besides being unordered, disjoint standard lock sets (Sulzmann and Thiemann §2.3:
// SDP "does not report it because the lock sets of e5 and e8 are not disjoint").
//
// State (paper notation), as wcp.cpp plus:
//   F_{t,x}    S2: HB times of releases r1 that a later read of x by t must follow
//   W_{m,x}    the CSs of m that wrote x (closed), each with its first and last write of x
//
// Rules (Def. E.1) and where they are applied:
//   S1  access f of t in a CS on l: a read joins L^w_{l,x}, a write joins L^r_{l,x} (releases
//       of other threads' CSs with a conflict that involves a read)                 [access]
//   S2  write e2 of x by t in a CS on l: F_{t,x} ⊔= L^w_{l,x} (other threads);
//       read e3 of x by t: P_t ⊔= F_{t,x}                                           [access]
//   S3  = WCP-2 (release-release through the CS list of the lock)                   [release]
//   S4  at release r2 of l: r1 <sdp r2 for the latest CS (a1, r1) of l before r2 with
//       a1 <hb s1, over every write e2 <hb r2 of x in a CS on m and every earlier CS s1 of m by
//       another thread that wrote x (or the CS before it when e2 in CS(r2) and every write e1
//       of x in s1 lies in CS(r1))                                                  [release]
//   S5  composition with HB (P flows along HB; P values are joins of HB times)
//   S6, S7 fork/join as WCP-4/5
//   send/recv  a hard edge in HB and P (docs/ENGINES.md, "Synchronisation orders"):
//       H_o ⊔= H_t at send(t,o), then N_t += 1; P_t ⊔= H_o, H_t ⊔= H_o at recv(t,o)
//
// S4 without keeping the pairs (e2, s1). Releases of one lock are HB-ordered (the CS list of a
// lock has non-decreasing release times), so joining the release of the latest qualifying r1
// covers every earlier one, and "a1 <hb s1" holds for a prefix of l's CSs that grows with
// H(s1). Two cases for a pair (e2, s1) at r2:
//   A. e2 not in CS(r2) (every pair of another thread, and the own ones before the acquire):
//      no exception, so r1 is the last CS of l whose acquire H(s1) knows; over many pairs the
//      last one their join knows. And over the s1 of one e2 and m the join is H of the latest
//      s1 (again monotone along m's list). So each write e2 adds one clock to its thread's
//      cumulative list J_t (entries (N at e2, e2, join so far), only when it grows); a release
//      of t imports, for every other thread u, the last entry of J_u with N <= H_t(u) (e2 <hb
//      r2), once (an entry imported stays joined), and its own last entry before the acquire.
//   B. e2 in CS(r2): the exception needs every write of x in s1 inside CS(r1). For one (e2, m)
//      the candidates s1 form a prefix of W_{m,x} (the other threads' entries); a longer prefix
//      gives at least as late an r1, so a later write e2' of x under m in the same CSs
//      dominates e2 and replaces its entry in the thread's log (one entry per (m,x) live).
//      At r2 only the latest candidate s* decides r1 = CS k; the answer is k unless every
//      candidate that also reaches k is inside CS k, which the walk back over W_{m,x} checks
//      (it stops at the first that is not, or does not reach k: those inside CS k are CSs of
//      its thread nested in it). The log keeps only writes in the thread's open CSs.
// So S4's work at a release is the import (one look per thread with entries), two binary
// searches in l's CS list, and the thread's live log entries inside the released CS.
//
// Read-write locks (docs/ENGINES.md "Read-write locks"): the standard reduction, literally, as
// PlainWcpState (po_common.hpp) does it with reduced locks (l,*) and (l,u); a copy of (l,*) also
// copies its CS writers (and with them W_{l,x}; S4's other state holds HB times and event ids,
// which every reduced lock of a CS has alike). The joins of an acquire commute; at a release S4
// runs per reduced lock, S3 on all of them until nothing is joined, then every CS is closed and N_t
// ticks once. The lock sets of the filter hold real locks with their mode (l, or l | kReadMode:
// po_common.hpp), which decides "a reduced lock in common" also against accesses made before some
// (l,u) existed.
//
// Cost: near-linear (above); memory grows with the trace: each CS keeps its release time and
// its writes (as wcp's CS lists), each write that grows J_t one clock. The clocks are
// SharedClocks (clock/shared_clock.hpp): with many short-lived threads that take locks every
// release time knows all the threads before it, and as vectors those copies were quadratic in
// the threads; as trees whose copies share their nodes a release costs what its joins change.
// A forked thread's P takes its parent's HB time as a seed (SharedClock::seed: kept aside until
// P holds its own entry), so its first acquire does not walk the parent's old clock against the
// lock's; docs/ENGINES.md.
#include <algorithm>
#include <atomic>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "racepred/clock/shared_clock.hpp"
#include "racepred/engines/po/lockset_history.hpp"
#include "racepred/engines/po/po_common.hpp"
#include "racepred/engines/po/sdp_steps.hpp"

namespace racepred::po {
namespace {

struct SdpCs {
  static constexpr uint32_t kNoWrites = UINT32_MAX;
  ThreadId thread;
  Clock acq;          // N at the acquire
  EventId acq_event;  // to decide membership of an event in this CS
  EventId rel_event = kNoEvent;
  SharedClock rel;  // H at the release
  bool closed = false;
  // While the CS is open: its buffer of writes (W_{m,x}) in the engine's pool; at the release
  // they go to the (lock, variable) slots and the buffer back to the pool (no allocation per CS
  // once warm, and a closed CS keeps no list).
  uint32_t writes = kNoWrites;
};

static_assert(std::is_nothrow_move_constructible_v<SdpCs>);

// The (lock, variable) slots of PairSlots' interface, by variable: a variable's first (lock,
// slot) in one flat array (no allocation for a variable under one lock, the common case), the
// others in a short list (DeepSlotIndex past kShallow locks). Memory is the pairs that occur;
// PairSlots' dense row per lock over every variable id grew with locks × variables (gigabytes
// on the scale presets at 100K events). The slots by lock (for_each, needed only where a read
// lock copies a lock's state) are indexed from the first call on.
class SparsePairSlots {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t find(LockId l, VariableId x) const {
    if (x >= first_.size()) return kNone;
    const Pair p = first_[x];
    if (p.lock == l && p.slot != kNone) return p.slot;
    if (x >= more_of_.size() || more_of_[x] == 0) return kNone;
    const std::vector<Pair>& v = more_[more_of_[x] - 1];
    if (v.size() + 1 > DeepSlotIndex::kShallow) [[unlikely]] {
      const uint32_t k = deep_.find(x, l);
      return k == DeepSlotIndex::kNone ? kNone : at(x, k).slot;
    }
    for (const Pair& q : v)
      if (q.lock == l) return q.slot;
    return kNone;
  }
  uint32_t get_or_add(LockId l, VariableId x) {
    if (const uint32_t s = find(l, x); s != kNone) return s;
    const uint32_t s = count_++;
    if (x >= first_.size()) first_.resize(std::max(size_t{x} + 1, first_.size() * 3 / 2));
    if (first_[x].slot == kNone) {
      first_[x] = {l, s};
    } else {
      grow_to(more_of_, x);
      if (more_of_[x] == 0) {
        more_.emplace_back();
        more_of_[x] = static_cast<uint32_t>(more_.size());
      }
      std::vector<Pair>& v = more_[more_of_[x] - 1];
      v.push_back({l, s});
      deep_.added(x, v.size() + 1, [&](size_t k) { return at(x, k).lock; });
    }
    if (by_lock_) {
      grow_to(locks_, l);
      locks_[l].push_back({x, s});
    }
    return s;
  }
  uint32_t count() const { return count_; }
  // The cells allocated (for sdp_state_cells()).
  size_t cells() const {
    size_t n = first_.capacity() + more_of_.capacity() + more_.capacity() + locks_.capacity();
    for (const auto& v : more_) n += v.capacity();
    for (const auto& l : locks_) n += l.capacity();
    return n;
  }
  // fn(x, slot) for every slot of lock l, in the order they were made.
  template <class Fn>
  void for_each(LockId l, Fn&& fn) {
    if (!by_lock_) index_by_lock();
    if (l >= locks_.size()) return;
    for (const auto& [x, s] : locks_[l]) fn(x, s);
  }

 private:
  struct Pair {
    LockId lock;
    uint32_t slot = kNone;
  };
  // Entry k of x's pairs: the first, then the list.
  const Pair& at(VariableId x, size_t k) const {
    return k == 0 ? first_[x] : more_[more_of_[x] - 1][k - 1];
  }
  [[gnu::noinline]] void index_by_lock() {
    by_lock_ = true;
    const auto add = [&](VariableId x, const Pair& p) {
      grow_to(locks_, p.lock);
      locks_[p.lock].push_back({x, p.slot});
    };
    for (VariableId x = 0; x < first_.size(); ++x) {
      if (first_[x].slot == kNone) continue;
      add(x, first_[x]);
      if (x < more_of_.size() && more_of_[x] != 0)
        for (const Pair& p : more_[more_of_[x] - 1]) add(x, p);
    }
    for (auto& list : locks_)
      std::sort(list.begin(), list.end(),
                [](const auto& a, const auto& b) { return a.second < b.second; });
  }
  std::vector<Pair> first_;              // per variable: its first pair (slot kNone: none)
  std::vector<uint32_t> more_of_;        // per variable: 1 + its index in more_, or 0
  std::vector<std::vector<Pair>> more_;  // the other pairs of variables under several locks
  bool by_lock_ = false;
  std::vector<std::vector<std::pair<VariableId, uint32_t>>> locks_;  // once by_lock_
  DeepSlotIndex deep_;
  uint32_t count_ = 0;
};

// LatestRelease's rule-(a) state as shared copies of the closed sections' release times (a
// reference each), not a copy of a clock per (lock, variable).
struct LatestView {
  ThreadId last = kNoThread, before = kNoThread;  // the threads of h and other
  SharedClock h, other;
  void update(ThreadId t, const SharedClock& time) {
    if (t != last) {
      other = std::move(h);
      before = last;
      last = t;
    }
    h = time;
  }
  // The thread of for_thread(t).
  ThreadId thread_for(ThreadId t) const { return last != t ? last : before; }
  const SharedClock* for_thread(ThreadId t) const {
    if (last == kNoThread) return nullptr;
    return last != t ? &h : &other;
  }
};

class Sdp final : public PoEngine<Sdp>,
                  private PlainWcpState<SdpCs, SparsePairSlots, LatestView, true, SharedClock> {
 public:
  using PoEngine<Sdp>::PoEngine;
  ~Sdp() override {
    sdp_s4_steps().fetch_add(steps_, std::memory_order_relaxed);
    sdp_join_visits().fetch_add(SharedClock::join_visits() - visits_before_,
                                std::memory_order_relaxed);
    if (!sdp_count_cells().load(std::memory_order_relaxed)) return;
    size_t cells = slots_.cells() + rule_a_.capacity() + writers_.capacity() +
                   pending_of_.capacity() + pending_.capacity() + filtered_.entries();
    // The clocks (per thread H, P and S4's import state, per lock H_l, P_l, per section H at its
    // release, J_t, F_{t,x}, the rule-(a) views): one cell per clock and the cells of the nodes
    // they hold, each shared node once.
    const uint32_t mark = SharedClock::new_mark();
    const auto add = [&](const SharedClock& c) { cells += 1 + c.cells(mark); };
    for (const auto& list : pending_)
      for (const Pending& f : list) add(f.f);
    for (const auto* clocks : {&h_, &p_, &imp_, &impl_, &imps_, &hl_, &pl_, &hs_})
      for (const SharedClock& c : *clocks) add(c);
    for (const auto& list : sections_)
      for (const Cs& cs : list) add(cs.rel);
    for (const auto& slot : rule_a_)
      for (const LatestView& v : slot) {
        add(v.h);
        add(v.other);
      }
    for (const Cum& c : cum_)
      for (const Cum::Entry& en : c.entries) add(en.clock);
    sdp_state_cells().fetch_add(cells, std::memory_order_relaxed);
  }

  void before(EventId, const Event& e) {
    ensure_thread(e.thread);
    ran_[e.thread] = true;
  }
  // H_t ⊔= H_l; P_t ⊔= P_l (S5), for each reduced lock
  void acquire(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    for (LockId l : reduced_locks(e, t)) {
      // H_t knowing H_l already: no H join and no import (Imp(H_l) ⊑ the import of what t
      // joined, but for t's own term, which the import leaves out where it matters).
      const bool known = knows_release(t, l);
      if (!known) {  // before H_t ⊔= H_l (import_from looks at H_t as it was)
        ensure_lock(l);
        grow_to(impl_, l);
        import_from(t, impl_[l], hl_[l]);
      }
      acquire_lock(t, l, Cs{t, n_[t], id, kNoEvent, {}, false, take_writes()}, known);
    }
    auto& held = held_of(t);
    const LockId token = section_token(e);
    held.insert(std::upper_bound(held.begin(), held.end(), token), token);
    grow_to(held_id_, t);
    held_id_[t] = 0;
  }
  void read_acquire(EventId id, const Event& e) { acquire(id, e); }
  void release(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    if (!release_locks(id, t, reduced_locks(e, t))) return;
    auto& held = held_of(t);
    const auto it = std::lower_bound(held.begin(), held.end(), section_token(e));
    if (it != held.end() && *it == section_token(e)) held.erase(it);
    grow_to(held_id_, t);
    held_id_[t] = 0;
    trim_log(t);
  }
  void read_release(EventId id, const Event& e) { release(id, e); }
  void read(EventId id, const Event& e) { access(id, e); }
  void write(EventId id, const Event& e) { access(id, e); }
  void fork(EventId, const Event& e) {
    const ThreadId t = e.thread, u = e.target;
    ensure_thread(u);
    p_[u].seed(h_full(t), t);  // S6 (H_u unchanged: no fork in HB), as a seed
    tick(t);
  }
  void join(EventId, const Event& e) {
    const ThreadId t = e.thread, u = e.target;
    ensure_thread(u);
    if (ran_[u]) {  // S7 (needs an event of u); H_t unchanged
      p_[t].join(h_[u]);
      if (p_[t].get(u) < n_[u]) p_[t].set(u, n_[u]);  // H_u(u) = N_u
    }
    // u has no event after its join (Def. 3.2): P_u and imp_u are never read again (H_u is, by
    // a repeated join; the clocks others keep of u, J_u and u's history entries stay).
    p_[u] = SharedClock{};
    if (u < imp_.size()) imp_[u] = SharedClock{};
  }
  void send(EventId, const Event& e) {
    grow_to(imps_, e.target);
    imps_[e.target].join(imp_all(e.thread));
    send_on(e.thread, e.target);
  }
  void recv(EventId, const Event& e) {
    if (e.target < imps_.size() && e.target < hs_.size())  // before H_t ⊔= H_o
      import_from(e.thread, imps_[e.target], hs_[e.target]);
    recv_on(e.thread, e.target);
  }
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}

 protected:
  void columns(const Event& e, Annotation& row) override { clock_columns(e.thread, width(e), row); }

 private:
  using Cs = SdpCs;
  static constexpr uint32_t kNone = UINT32_MAX;

  // W_{m,x}: the CSs of m that wrote x, in order, and the latest one by some thread and by any
  // other thread (the latest candidate s1 of a write, in O(1)); the log entry of this slot.
  struct Writer {
    uint32_t cs;          // index in m's CS list
    EventId first, last;  // its first and last write of x
  };
  struct Writers {
    std::vector<Writer> list;
    ThreadId last = kNoThread;
    uint32_t last_pos = kNone, other_pos = kNone;
    ThreadId log_thread = kNoThread;  // the last log entry made for this slot
    EventId log_event = kNoEvent;
    uint32_t log_pos = kNone;
    void push(Writer w, ThreadId u) {
      const auto p = static_cast<uint32_t>(list.size());
      list.push_back(w);
      if (u != last) {
        other_pos = last_pos;
        last = u;
      }
      last_pos = p;
    }
    // The latest CS of another thread than t (the s* of a write of t), or kNone.
    uint32_t star(ThreadId t) const { return last != t ? last_pos : other_pos; }
  };
  // Case A: J_t, the join of H(s1) over t's writes e2 so far, as entries where it grew (each a
  // SharedClock: it shares the nodes of the release times it joined).
  struct Cum {
    struct Entry {
      Clock n;  // N_t at e2
      EventId e2;
      SharedClock clock;
    };
    std::vector<Entry> entries;
    const SharedClock& at(size_t k) const { return entries[k].clock; }
  };
  // F_{t,x}, and whether P_t holds it already (P_t only grows; a join that may grow F clears it):
  // a read of x by t joins it only after it grew.
  struct Pending {
    ThreadId thread;
    bool in_p;
    SharedClock f;
  };
  // Case B: a write e2 of t under m whose W_{m,x} had candidates: s* at its position.
  struct LogEntry {
    EventId e2;
    uint32_t slot;  // kNone: replaced by a later write of the same slot
    LockId m;
    uint32_t star;
  };

  [[gnu::always_inline]] void access(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    const VariableId x = e.target;
    if (e.op == Op::Read && x < pending_of_.size() && pending_of_[x] != 0)
      if (Pending* f = find_pending(x, t); f != nullptr && !f->in_p) {  // S2 (as e3)
        p_[t].join(f->f);
        f->in_p = true;
      }
    // One slot lookup per open CS serves S1, S2 and S4's W_{m,x}.
    for (const OpenSections::Cs& cs : open_.of(t)) {
      const uint32_t s = slots_.find(cs.lock, x);
      if (s == SparsePairSlots::kNone) continue;
      if (s < rule_a_.size()) {
        const auto& slot = rule_a_[s];
        if (e.op == Op::Read) {
          if (const SharedClock* w = slot[1].for_thread(t))
            join_release(p_[t], *w, slot[1].thread_for(t));  // S1
        } else {
          if (const SharedClock* r = slot[0].for_thread(t))
            join_release(p_[t], *r, slot[0].thread_for(t));  // S1
          if (const SharedClock* w = slot[1].for_thread(t); w != nullptr && !w->empty()) {
            Pending& f = pending(x, t);  // S2 (as e2)
            if (join_release(f.f, *w, slot[1].thread_for(t))) f.in_p = false;
          }
        }
      }
      if (e.op == Op::Write && s < writers_.size()) {
        const uint32_t star = writers_[s].star(t);
        if (star != kNone) {
          from_.push_back(&sections_[cs.lock][writers_[s].list[star].cs].rel);
          log(t, id, s, cs.lock, star);
        }
      }
    }
    if (e.op == Op::Write) {
      for (const OpenSections::Cs& cs : open_.of(t))
        write_bufs_[sections_[cs.lock][cs.entry].writes].emplace_back(x, id);
      if (!from_.empty()) {
        grow_cum(t, id);
        from_.clear();
      }
    }
    const uint32_t held = held_set(t);
    // P_t, as wide as the threads it knows, read in thread order
    filtered_.check(*this, id, e, p_[t].reader(), held);
    filtered_.record(id, e, t, n_[t], held);
    open_.access(e);
  }

  // c ⊔= H(r1), r1 a release of thread r: nothing to do when c knows r1 already. P_t and F_{t,x}
  // are joins of HB times, and an HB time that knows r1 knows all of H(r1), so c(r) >= H(r1)(r)
  // implies H(r1) ⊑ c (as wcp's test before each rule-(a) join); the test is O(1), the join
  // walks the nodes where the two clocks differ.
  // True if c may have grown.
  static bool join_release(SharedClock& c, const SharedClock& rel, ThreadId r) {
    return rel.get(r) > c.get(r) && c.join(rel);
  }

  // F_{t,x}, kept per variable for the threads that have one (sorted by thread): a row per
  // (thread, variable) grew with threads × variables.
  Pending* find_pending(VariableId x, ThreadId t) {
    auto& list = pending_[pending_of_[x] - 1];
    const auto it = std::lower_bound(list.begin(), list.end(), t,
                                     [](const Pending& a, ThreadId u) { return a.thread < u; });
    return it != list.end() && it->thread == t ? &*it : nullptr;
  }
  Pending& pending(VariableId x, ThreadId t) {
    grow_to(pending_of_, x);
    if (pending_of_[x] == 0) {
      pending_.emplace_back();
      pending_of_[x] = static_cast<uint32_t>(pending_.size());
    }
    auto& list = pending_[pending_of_[x] - 1];
    auto it = std::lower_bound(list.begin(), list.end(), t,
                               [](const Pending& a, ThreadId u) { return a.thread < u; });
    if (it == list.end() || it->thread != t) it = list.insert(it, Pending{t, false, {}});
    return *it;
  }
  // The interned lock set of t (LH_S of the filter), kept until t acquires or releases.
  uint32_t held_set(ThreadId t) {
    grow_to(held_id_, t);
    uint32_t& h = held_id_[t];
    if (h == 0 && !held_of(t).empty()) h = filtered_.lock_sets().intern(held_of(t));
    return h;
  }

  // Case A: J_t ⊔= H(s*) of each open CS; a new entry if that grew it.
  void grow_cum(ThreadId t, EventId id) {
    grow_to(cum_, t);
    Cum& c = cum_[t];
    SharedClock next = c.entries.empty() ? SharedClock{} : c.entries.back().clock;
    bool grows = false;
    for (const SharedClock* w : from_) grows = next.join(*w) || grows;
    if (!grows) return;
    c.entries.push_back({n_[t], id, std::move(next)});
  }

  // J_u(k): t's cumulative S4 clock over its writes at local times <= k (empty if none).
  const SharedClock& cum_upto(ThreadId u, Clock k) const {
    if (u >= cum_.size()) return none_;
    const Cum& c = cum_[u];
    const auto it = std::upper_bound(c.entries.begin(), c.entries.end(), k,
                                     [](Clock v, const Cum::Entry& en) { return v < en.n; });
    return it == c.entries.begin() ? none_ : c.at(static_cast<size_t>(it - c.entries.begin()) - 1);
  }
  // Case A's import, kept as a join homomorphism. Imp(C) = ⊔_u J_u(C(u)) for an HB clock C:
  // J_u(k) is final once some clock holds k for u (a clock learns k from u's release, send or
  // fork, after which N_u ticks, and J_u's later entries carry larger N), and J_u is monotone, so
  // Imp(C ⊔ D) = Imp(C) ⊔ Imp(D). Each lock and send object keeps Imp of its H beside it
  // (impl_, imps_), and a thread joins Imp(C) into imp_t where H_t ⊔= C, instead of looking at
  // every thread's J at each release (that was cubic in the threads: each new thread imported the
  // clock of every older one). Imp(C) also holds J_t(C(t)), which the first version left out
  // (u != t). It is harmless when C(t) is below the acquire time of every open CS of t: those
  // writes precede the acquire of every CS t will release from now on, so J_t(C(t)) lies below
  // that release's own case-A clock (J_t before the acquire), and the known prefix of a join of
  // HB-closed clocks is the larger of their prefixes (an acquire of l known implies the earlier
  // ones known). Otherwise (t learns back a release of its own made inside an open CS) the
  // terms of the other threads are imported one by one, as the first version did, but only for
  // the threads u with C(u) > H_t(u) (found by walking where the two clocks differ): imp_t holds
  // J_u(H_t(u)) already (every clock H_t joined had its import joined into imp_t). Called
  // before H_t ⊔= C.
  void import_from(ThreadId t, const SharedClock& imp_c, const SharedClock& c) {
    grow_to(imp_, t);
    ++steps_;
    const Clock own = c.get(t);
    bool harmless = true;
    for (const OpenSections::Cs& cs : open_.of(t))
      harmless = harmless && own < sections_[cs.lock][cs.entry].acq;
    if (harmless) {
      imp_[t].join(imp_c);
      return;
    }
    c.for_each_above(h_[t], [&](ThreadId u, Clock k) {
      ++steps_;
      if (u != t) imp_[t].join(cum_upto(u, k));
    });
  }
  // Imp(H_t) at a release or send of t: imp_t ⊔ J_t (H_t(t) = N_t covers every entry of J_t).
  const SharedClock& imp_all(ThreadId t) {
    grow_to(imp_, t);
    all_.assign(imp_[t]);
    if (t < cum_.size() && !cum_[t].entries.empty())
      all_.join(cum_[t].at(cum_[t].entries.size() - 1));
    return all_;
  }

  // Case B: the entry of (t, e2, slot), replacing t's earlier live entry of the slot.
  void log(ThreadId t, EventId id, uint32_t s, LockId m, uint32_t star) {
    grow_to(log_, t);
    auto& lg = log_[t];
    Writers& w = writers_[s];
    if (!lg.empty() && lg.back().slot == s) {
      lg.back() = {id, s, m, star};
    } else {
      if (w.log_thread == t && w.log_pos < lg.size() && lg[w.log_pos].slot == s &&
          lg[w.log_pos].e2 == w.log_event)
        lg[w.log_pos].slot = kNone;
      lg.push_back({id, s, m, star});
    }
    w.log_thread = t;
    w.log_event = id;
    w.log_pos = static_cast<uint32_t>(lg.size() - 1);
  }
  // After a release of t: log entries before every open CS's acquire serve no release.
  void trim_log(ThreadId t) {
    if (t >= log_.size() || log_[t].empty()) return;
    auto& lg = log_[t];
    const auto& open = open_.of(t);
    if (open.empty()) {
      lg.clear();
      return;
    }
    if (lg.size() < 64) return;
    EventId first = kNoEvent;
    for (const OpenSections::Cs& cs : open)
      first = std::min(first, sections_[cs.lock][cs.entry].acq_event);
    const auto it = std::upper_bound(lg.begin(), lg.end(), first,
                                     [](EventId a, const LogEntry& en) { return a < en.e2; });
    if (2 * static_cast<size_t>(it - lg.begin()) >= lg.size()) lg.erase(lg.begin(), it);
  }

  // The reduced locks of a lock event of t (PlainWcpState::reduced), the S4 state copied along.
  const std::vector<LockId>& reduced_locks(const Event& e, ThreadId t) {
    if (is_read_lock_op(e.op) && !read_locks_) [[unlikely]] {
      read_locks_ = true;
      filtered_.allow_read_modes();
    }
    return reduced(e, t, [&](LockId from, LockId to, const auto& slots) {
      grow_to(impl_, std::max(from, to));
      impl_[to] = impl_[from];
      for (Cs& cs : sections_[to])  // an open CS copied gets a buffer of its own
        if (cs.writes != Cs::kNoWrites) {
          const uint32_t k = take_writes();
          write_bufs_[k] = write_bufs_[cs.writes];
          cs.writes = k;
        }
      for (const auto& [s, c] : slots)
        if (s < writers_.size()) {
          grow_to(writers_, c);
          writers_[c] = writers_[s];
        }
    });
  }

  // The release of the CSs of `locks` (reduced locks) by one event; false if t held none.
  bool release_locks(EventId id, ThreadId t, const std::vector<LockId>& locks) {
    return release_all(
        t, locks, [&](const OpenSections::Cs& cs) { s4(t, cs.lock, cs.entry); },
        [&](const OpenSections::Cs& cs) {
          Cs& closing = sections_[cs.lock][cs.entry];
          auto& writes = write_bufs_[closing.writes];
          for (const auto& [y, w] : writes) {
            const uint32_t s = slots_.get_or_add(cs.lock, y);
            grow_to(writers_, s);
            Writers& ws = writers_[s];
            if (!ws.list.empty() && ws.list.back().cs == cs.entry)
              ws.list.back().last = w;
            else
              ws.push({static_cast<uint32_t>(cs.entry), w, w}, t);
          }
          writes.clear();
          free_writes_.push_back(closing.writes);
          closing.writes = Cs::kNoWrites;
          closing.rel_event = id;
          grow_to(impl_, cs.lock);
          impl_[cs.lock].assign(imp_all(t));  // H_l := H_t
        });
  }

  // A write buffer for a new CS (a released CS's, once there is one).
  uint32_t take_writes() {
    if (free_writes_.empty()) {
      write_bufs_.emplace_back();
      return static_cast<uint32_t>(write_bufs_.size() - 1);
    }
    const uint32_t k = free_writes_.back();
    free_writes_.pop_back();
    return k;
  }

  // The clock knows the acquire of the CS.
  bool knows(const Cs& cs, const SharedClock& clock) {
    ++steps_;
    return cs.acq <= clock.get(cs.thread);
  }
  // The number of CSs of l before c2 whose acquire `clock` knows (a prefix: acquires of a lock
  // are HB-ordered), or `from` (<= c2) if that is more. Galloping down from c2 (the prefix
  // mostly ends at one of the last CSs): O(log) of the distance to c2.
  size_t known_from(const std::vector<Cs>& list, size_t from, size_t c2, const SharedClock& clock) {
    if (from >= c2 || !knows(list[from], clock)) return from;
    size_t lo = from + 1, hi = c2;  // the answer lies in [lo, hi]
    for (size_t step = 1; hi > lo; step *= 2) {
      const size_t i = hi - std::min(step, hi - lo);
      if (knows(list[i], clock)) {
        lo = i + 1;
        break;
      }
      hi = i;
    }
    while (lo < hi) {  // CSs before lo known, hi not known (or c2)
      const size_t mid = lo + (hi - lo) / 2;
      if (knows(list[mid], clock))
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }

  // S4 at the release of the CS c2 of l by t: r1 = the CS `best` of l (-1: none).
  void s4(ThreadId t, LockId l, size_t c2) {
    ensure_lock(l);
    const auto& list = sections_[l];
    const EventId a2 = list[c2].acq_event;
    // Case A: the latest CS of l known to imp_t or to J_t before the acquire.
    // Other threads: imp_t, kept up to date at the acquires and recvs (import_from).
    grow_to(imp_, t);
    size_t known = known_from(list, 0, c2, imp_[t]);
    // Own writes before the acquire.
    if (t < cum_.size() && !cum_[t].entries.empty()) {
      const auto& en = cum_[t].entries;
      const auto it = std::lower_bound(en.begin(), en.end(), a2,
                                       [](const Cum::Entry& x, EventId a) { return x.e2 < a; });
      if (it != en.begin())
        known = known_from(list, known, c2, cum_[t].at(static_cast<size_t>(it - en.begin()) - 1));
    }
    ptrdiff_t best = static_cast<ptrdiff_t>(known) - 1;
    // Case B: own writes inside this CS.
    if (t < log_.size()) {
      const auto& lg = log_[t];
      auto it = std::upper_bound(lg.begin(), lg.end(), a2,
                                 [](EventId a, const LogEntry& en) { return a < en.e2; });
      for (; it != lg.end(); ++it) {
        ++steps_;
        if (it->slot == kNone) continue;
        const Writers& ws = writers_[it->slot];
        const auto& mlist = sections_[it->m];
        const Cs& star = mlist[ws.list[it->star].cs];
        // r1 = the CS k: only a k past best matters, and star.rel knows CS best + 1 then.
        const auto past = static_cast<size_t>(best + 1);
        if (past >= c2 || !knows(list[past], star.rel)) continue;
        const ptrdiff_t k = static_cast<ptrdiff_t>(known_from(list, past, c2, star.rel)) - 1;
        const Cs& ck = list[static_cast<size_t>(k)];
        ptrdiff_t got = k - 1;
        for (size_t pos = it->star + 1; pos-- > 0;) {
          ++steps_;
          const Writer& w = ws.list[pos];
          const Cs& c1 = mlist[w.cs];
          if (c1.thread == t) continue;
          if (ck.acq > c1.rel.get(ck.thread)) break;  // s1 reaches an earlier CS only
          if (!(inside(ck, c1.thread, w.first) && inside(ck, c1.thread, w.last))) {
            got = k;
            break;
          }
        }
        best = std::max(best, got);
      }
    }
    if (best >= 0) {  // r1 <sdp r2
      const Cs& r1 = list[static_cast<size_t>(best)];
      join_release(p_[t], r1.rel, r1.thread);
    }
  }

  // e (an event of the CS's thread, given by id) lies inside the closed CS c.
  static bool inside(const Cs& c, ThreadId thread, EventId e) {
    return thread == c.thread && e > c.acq_event && c.closed && e < c.rel_event;
  }

  std::vector<Writers> writers_;  // per (l,x) slot: W_{l,x}
  // F_{t,x} by t, for the variables that have one: pending_of_[x] is 1 + the index of x's list.
  std::vector<std::vector<Pending>> pending_;
  std::vector<uint32_t> pending_of_;
  std::vector<Cum> cum_;           // J_t
  std::vector<SharedClock> imp_;   // per t: ⊔ J_u(H_t(u)) over u != t (and harmless own terms)
  std::vector<SharedClock> impl_;  // per (reduced) lock: Imp(H_l) = ⊔ J_u(H_l(u)) over every u
  std::vector<SharedClock> imps_;  // per send object: Imp(H_o)
  SharedClock all_;                // scratch: Imp(H_t) of a release or send
  const SharedClock none_{};       // J_u before its first entry
  std::vector<std::vector<LogEntry>> log_;  // per t: case B entries, by e2
  std::vector<const SharedClock*> from_;    // scratch: H(s*) of the current write
  std::vector<std::vector<std::pair<VariableId, EventId>>> write_bufs_;  // of the open CSs
  std::vector<uint32_t> free_writes_;  // the buffers of write_bufs_ no open CS has
  SlotFilteredHistory filtered_;       // slot = thread (no slot reuse)
  std::vector<uint32_t> held_id_;      // per t: the interned LH_t, 0 (the empty set) until needed
  bool read_locks_ = false;
  uint64_t steps_ = 0;                                   // S4's steps, for sdp_s4_steps()
  uint64_t visits_before_ = SharedClock::join_visits();  // for sdp_join_visits()
  // Per thread: the held real locks with their mode, sorted (LH_S of the filter).
  std::vector<std::vector<LockId>> held_;
  std::vector<LockId>& held_of(ThreadId t) {
    grow_to(held_, t);
    return held_[t];
  }
};

}  // namespace

std::atomic<uint64_t>& sdp_s4_steps() {
  static std::atomic<uint64_t> steps{0};
  return steps;
}
std::atomic<uint64_t>& sdp_state_cells() {
  static std::atomic<uint64_t> cells{0};
  return cells;
}
std::atomic<bool>& sdp_count_cells() {
  static std::atomic<bool> on{false};
  return on;
}
std::atomic<uint64_t>& sdp_join_visits() {
  static std::atomic<uint64_t> visits{0};
  return visits;
}

}  // namespace racepred::po

namespace racepred {
std::unique_ptr<Engine> make_sdp(EngineContext& context) {
  return std::make_unique<po::Sdp>(context);
}
}  // namespace racepred
