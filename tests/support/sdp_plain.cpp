// The first version of sdp (engines/po/sdp.cpp), kept as a test reference: every S4 record
// (write e2, earlier CS s1 that wrote the same variable) is kept and scanned at every release,
// as Def. E.1 of Sulzmann and Thiemann (appendix E) states the rule. Quadratic, exact; the
// engine sdp keeps only what can still matter and is checked against this on random traces
// (tests/properties/po_property_test.cpp).
#include <algorithm>
#include <memory>
#include <vector>

#include "racepred/engines/po/po_common.hpp"
#include "support/po_plain.hpp"

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

class SdpPlain final : public PoEngine<SdpPlain>, private PlainWcpState<SdpCs> {
 public:
  using PoEngine<SdpPlain>::PoEngine;

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
  void send(EventId, const Event& e) { send_on(e.thread, e.target); }
  void request(EventId, const Event&) {}  // takes and orders nothing
  void recv(EventId, const Event& e) { recv_on(e.thread, e.target); }

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

std::unique_ptr<Engine> make_sdp_plain(EngineContext& context) {
  return std::make_unique<SdpPlain>(context);
}

}  // namespace racepred::po
