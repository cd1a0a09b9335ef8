// sdp: strong dependently precedes (Genç, Roemer, Xu, Bond, OOPSLA 2019, with the corrigendum)
// exactly as Def. E.1 of Sulzmann and Thiemann (appendix E) states it; the
// paper's definition is the reference here, not the SDP-WDP repository's code. HB is Def. B.2's
// (thread order and release -> later acquire; fork/join only through S6/S7, "treated as in WCP").
// A race needs, besides being unordered, disjoint standard lock sets (Sulzmann and Thiemann §2.3:
// SDP "does not report it because the lock sets of e5 and e8 are not disjoint").
//
// State (paper notation), as wcp.cpp plus:
//   F_{t,x}    S2: HB times of releases r1 that a later read of x by t must follow
//   S4 records one per (write e2, earlier CS s1 on a lock e2 holds, by another thread, that
//              wrote the same variable): thread and N of e2, s1's lock and index, and the
//              writes e1 of s1 to that variable
//
// Rules (Def. E.1) and where they are applied:
//   S1  access f of t in a CS on l: a read joins L^w_{l,x}, a write joins L^r_{l,x} (releases
//       of other threads' CSs with a conflict that involves a read)                 [access]
//   S2  write e2 of x by t in a CS on l: F_{t,x} ⊔= L^w_{l,x} (other threads);
//       read e3 of x by t: P_t ⊔= F_{t,x}                                           [access]
//   S3  = WCP-2 (release-release through the CS list of the lock)                   [release]
//   S4  at release r2 of l: for every record with e2 <hb r2, the latest CS (a1, r1) of l before
//       r2 with a1 <hb s1 gives r1 <sdp r2 (or the one before it when e1 in CS(r1) and e2 in
//       CS(r2) for every e1 of the record)                                          [release]
//   S5  composition with HB (P flows along HB; P values are joins of HB times)
//   S6, S7 fork/join as WCP-4/5
//
// Read-write locks (docs/ENGINES.md "Read-write locks"): the standard reduction, literally, as
// PlainWcpState (po_common.hpp) does it with reduced locks (l,*) and (l,u); a copy of (l,*) also
// copies its CS writers (the S4 records need no copy: S4 scans all of them at every release, and
// a record's lock only locates s1's release, which every reduced lock of s1 has alike; for the
// same reason a write records each (e2, s1) once, not once per reduced lock). The joins of an
// acquire commute; at a release S4 runs per reduced lock, S3 on all of them until nothing is
// joined, then every CS is closed and N_t ticks once. The lock sets of the filter hold real locks
// with their mode (l, or l | kReadMode: po_common.hpp), which decides "a reduced lock in common"
// also against accesses made before some (l,u) existed.
//
// Cost: the S4 records grow with the number of write-write conflicts under a common lock and
// every release scans them, so sdp is quadratic in that number and its memory grows with the
// trace. It is exact, for traces of moderate size; docs/ENGINES.md.
#include <algorithm>
#include <memory>
#include <vector>

#include "racepred/engines/po/po_common.hpp"

namespace racepred::po {
namespace {

struct SdpCs {
  ThreadId thread;
  Clock acq;          // N at the acquire
  EventId acq_event;  // to decide membership of an event in this CS
  bool closed = false;
  EventId rel_event = kNoEvent;
  VectorClock rel;                                     // H at the release
  std::vector<std::pair<VariableId, EventId>> writes;  // the writes inside (S4)
};

class Sdp final : public PoEngine<Sdp>, private PlainWcpState<SdpCs> {
 public:
  using PoEngine<Sdp>::PoEngine;

  void before(EventId, const Event& e) {
    ensure_thread(e.thread);
    ran_[e.thread] = true;
  }
  // H_t ⊔= H_l; P_t ⊔= P_l (S5), for each reduced lock
  void acquire(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    for (LockId l : reduced_locks(e, t))
      acquire_lock(t, l, Cs{t, n_[t], id, false, kNoEvent, {}, {}});
    auto& held = held_of(t);
    const LockId token = section_token(e);
    held.insert(std::upper_bound(held.begin(), held.end(), token), token);
  }
  void read_acquire(EventId id, const Event& e) { acquire(id, e); }
  void release(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    if (!release_locks(id, t, reduced_locks(e, t))) return;
    auto& held = held_of(t);
    const auto it = std::lower_bound(held.begin(), held.end(), section_token(e));
    if (it != held.end() && *it == section_token(e)) held.erase(it);
  }
  void read_release(EventId id, const Event& e) { release(id, e); }
  void read(EventId id, const Event& e) { access(id, e); }
  void write(EventId id, const Event& e) { access(id, e); }
  void fork(EventId, const Event& e) {
    const ThreadId t = e.thread, u = e.target;
    ensure_thread(u);
    p_[u].join(h_[t]);  // S6 (H_u unchanged: no fork in HB)
    tick(t);
  }
  void join(EventId, const Event& e) {
    const ThreadId t = e.thread, u = e.target;
    ensure_thread(u);
    if (ran_[u]) p_[t].join(h_[u]);  // S7 (needs an event of u); H_t unchanged
  }

 protected:
  void columns(const Event& e, Annotation& row) override { clock_columns(e.thread, width(e), row); }

 private:
  using Cs = SdpCs;
  struct Record {  // S4
    ThreadId t2;
    Clock n2;
    EventId e2;
    LockId m;
    size_t s1;
    ThreadId t1;              // s1's thread
    std::vector<EventId> e1;  // writes of s1 to e2's variable
  };

  [[gnu::always_inline]] void access(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    const VariableId x = e.target;
    if (e.op == Op::Read && t < pending_.size() && x < pending_[t].size())
      p_[t].join(pending_[t][x]);  // S2 (as e3)
    for (const OpenSections::Cs& cs : open_.of(t)) {
      const auto* slot = find_rule_a(cs.lock, x);
      if (slot == nullptr) continue;
      if (e.op == Op::Read) {
        if (const VectorClock* w = (*slot)[1].for_thread(t)) p_[t].join(*w);  // S1
      } else {
        if (const VectorClock* r = (*slot)[0].for_thread(t)) p_[t].join(*r);  // S1
        if (const VectorClock* w = (*slot)[1].for_thread(t)) {                // S2 (as e2)
          grow_to(pending_, t);
          grow_to(pending_[t], x);
          pending_[t][x].join(*w);
        }
      }
    }
    if (e.op == Op::Write) {
      seen_.clear();                                    // s1 by its acquire event
      for (const OpenSections::Cs& cs : open_.of(t)) {  // S4 records
        const uint32_t s = slots_.find(cs.lock, x);
        if (s != PairSlots::kNone && s < writers_.size())
          for (size_t s1 : writers_[s]) {
            const Cs& c1 = sections_[cs.lock][s1];
            if (c1.thread == t || !c1.closed) continue;
            if (read_locks_) [[unlikely]] {  // one record per (e2, s1), not per reduced lock
              if (std::find(seen_.begin(), seen_.end(), c1.acq_event) != seen_.end()) continue;
              seen_.push_back(c1.acq_event);
            }
            Record r{t, n_[t], id, cs.lock, s1, c1.thread, {}};
            for (const auto& [y, w] : c1.writes)
              if (y == x) r.e1.push_back(w);
            records_.push_back(std::move(r));
          }
        sections_[cs.lock][cs.entry].writes.emplace_back(x, id);
      }
    }
    filtered_.check(*this, id, e, p_[t], held_of(t));
    filtered_.record(id, e, n_[t], held_of(t));
    open_.access(e);
  }

  // The reduced locks of a lock event of t (PlainWcpState::reduced), the S4 state copied along.
  const std::vector<LockId>& reduced_locks(const Event& e, ThreadId t) {
    if (is_read_lock_op(e.op) && !read_locks_) [[unlikely]] {
      read_locks_ = true;
      filtered_.allow_read_modes();
    }
    return reduced(e, t, [&](LockId, LockId, const auto& slots) {
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
          for (VariableId x : cs.writes) {
            const uint32_t s = slots_.get_or_add(cs.lock, x);
            grow_to(writers_, s);
            if (writers_[s].empty() || writers_[s].back() != cs.entry)
              writers_[s].push_back(cs.entry);
          }
          sections_[cs.lock][cs.entry].rel_event = id;
        });
  }

  // S4 at the release of the CS c2 of l by t.
  void s4(ThreadId t, LockId l, size_t c2) {
    ensure_lock(l);
    auto& list = sections_[l];
    // S4: premises use HB and trace order only, so the edges are fixed at this release.
    for (const Record& r : records_) {
      if (r.n2 > h_[t].get(r.t2)) continue;  // e2 <hb r2
      const VectorClock& hs1 = sections_[r.m][r.s1].rel;
      // The CSs of l before r2 whose acquire is HB-before s1 form a prefix of [0, c2).
      size_t lo = 0, hi = c2;
      while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (list[mid].acq <= hs1.get(list[mid].thread))
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo == 0) continue;
      size_t k = lo - 1;
      const bool e2_inside = r.t2 == t && r.e2 > list[c2].acq_event;
      if (e2_inside) {
        bool all_inside = true;
        for (EventId e1 : r.e1) all_inside = all_inside && inside(list[k], r.t1, e1);
        if (all_inside) {
          if (k == 0) continue;
          --k;
        }
      }
      p_[t].join(list[k].rel);  // r1 <sdp r2
    }
  }

  // e (an event of the CS's thread, given by id) lies inside the closed CS c.
  static bool inside(const Cs& c, ThreadId thread, EventId e) {
    return thread == c.thread && e > c.acq_event && c.closed && e < c.rel_event;
  }

  std::vector<std::vector<size_t>> writers_;       // per (l,x) slot: CSs of l that wrote x
  std::vector<std::vector<VectorClock>> pending_;  // F_{t,x}
  std::vector<Record> records_;
  FilteredHistory filtered_;
  bool read_locks_ = false;
  std::vector<EventId> seen_;  // scratch: the s1 of the current write's records
  // Per thread: the held real locks with their mode, sorted (LH_S of the filter).
  std::vector<std::vector<LockId>> held_;
  std::vector<LockId>& held_of(ThreadId t) {
    grow_to(held_, t);
    return held_[t];
  }
};

}  // namespace

}  // namespace racepred::po

namespace racepred {
std::unique_ptr<Engine> make_sdp(EngineContext& context) {
  return std::make_unique<po::Sdp>(context);
}
}  // namespace racepred
