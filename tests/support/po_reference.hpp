// Definitional references for the predictive partial orders of engines/po (Sulzmann and Thiemann
// §2.3 and appendices B, E, F; docs/ENGINES.md "Predictive partial orders"): each relation is
// computed as the smallest relation closed under its rules, by a fixpoint over event pairs (bit
// matrices), with no vector clock anywhere. Cubic or worse; for small random traces in tests only.
//
// Conventions shared with the engines (docs/ENGINES.md):
// - HB is TO (same thread, trace order) plus rel(l) -> later acq(l) plus fork/join edges, closed
//   transitively (shb, wcp). SDP composes with the critical-sections happens-before of Def. B.2
//   instead, as the paper defines it: the same without fork/join edges (docs/ENGINES.md).
// - A critical section (CS) is a matching acq/rel pair of one thread; its members are that
//   thread's events strictly between the two. An acquire without a release (a trace may end
//   holding locks) opens a CS that lasts to the end of its thread and has no release event, so
//   it is never the source of an edge (rules need the release r1) nor the target of a
//   release-release edge.
// - Pairs: for a racy event e2 and a thread u, the pair (e1, e2) with e1 the latest earlier
//   access of u of each conflicting kind (read, write) that is unordered with e2 (and, for sdp
//   and wdp, whose standard lock set is disjoint from e2's). Racy events: every e2 with a pair.
// - Read-write locks (docs/ENGINES.md "Read-write locks"): the standard reduction, with each
//   acquire and release one event. A read section of l by t holds the lock (l,t), a write
//   section of l holds (l,u) for every u; two CSs "share a lock" when they hold a common reduced
//   lock: same l, and not two read sections of different threads. Every rule that speaks of
//   "the same lock" (HB's rel -> acq, rule (a), rule (b), S4, the lock-set filter) reads "share
//   a lock".
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "racepred/trace/trace.hpp"

namespace racepred::testing {

// A square bit matrix over event indices.
class BitMatrix {
 public:
  explicit BitMatrix(size_t n = 0) : n_(n), words_((n + 63) / 64), bits_(n * words_, 0) {}
  bool get(size_t i, size_t j) const { return (row(i)[j / 64] >> (j % 64)) & 1; }
  // Returns true if the bit was new.
  bool set(size_t i, size_t j) {
    uint64_t& w = row(i)[j / 64];
    const uint64_t m = uint64_t{1} << (j % 64);
    if (w & m) return false;
    w |= m;
    return true;
  }
  // row(i) |= other.row(j); true if something changed.
  bool or_row(size_t i, const BitMatrix& other, size_t j) {
    bool changed = false;
    uint64_t* dst = row(i);
    const uint64_t* src = other.row(j);
    for (size_t k = 0; k < words_; ++k) {
      const uint64_t v = dst[k] | src[k];
      changed = changed || v != dst[k];
      dst[k] = v;
    }
    return changed;
  }
  size_t size() const { return n_; }
  uint64_t* row(size_t i) { return bits_.data() + i * words_; }
  const uint64_t* row(size_t i) const { return bits_.data() + i * words_; }

 private:
  size_t n_, words_;
  std::vector<uint64_t> bits_;
};

// Transitive closure in place (Warshall).
inline void close_transitively(BitMatrix& m) {
  const size_t n = m.size();
  for (size_t k = 0; k < n; ++k)
    for (size_t i = 0; i < n; ++i)
      if (m.get(i, k)) m.or_row(i, m, k);
}

// The static facts of a trace that every relation uses.
struct PoFacts {
  const Trace& trace;
  size_t n;
  struct Cs {
    LockId lock;
    ThreadId thread;
    size_t acq;
    size_t rel;  // n if the CS is still open at the end
    std::vector<size_t> members;
    bool read = false;  // a read section (racq/rrel)
  };
  std::vector<Cs> cs;                        // in trace order of their acquires
  std::vector<std::vector<size_t>> cs_of;    // per event: the CSs it is a member of
  std::vector<std::set<LockId>> locks_held;  // LH_S(e)
  std::vector<std::set<LockId>> read_held;   // the locks of LH_S(e) held in read mode
  std::vector<size_t> lw;                    // last write of a read, or n
  BitMatrix to;                              // thread order (same thread, earlier)
  BitMatrix hb;                              // HB with fork/join, strict
  BitMatrix hbcs;                            // Def. B.2: TO and rel -> acq only, strict
  std::vector<size_t> fork_of;               // per thread: its fork event, or n

  explicit PoFacts(const Trace& t)
      : trace(t), n(t.size()), to(t.size()), hb(t.size()), hbcs(t.size()) {
    cs_of.resize(n);
    locks_held.resize(n);
    read_held.resize(n);
    lw.assign(n, n);
    std::vector<std::vector<size_t>> open;  // per thread: indices into cs of open CSs
    std::vector<size_t> last_write;
    std::vector<std::vector<size_t>> by_thread;
    auto grow = [](auto& v, size_t k, auto init) {
      if (v.size() <= k) v.resize(k + 1, init);
    };
    for (size_t i = 0; i < n; ++i) {
      const Event& e = t.events[i];
      grow(open, e.thread, std::vector<size_t>{});
      grow(by_thread, e.thread, std::vector<size_t>{});
      if (e.op == Op::Fork || e.op == Op::Join) grow(by_thread, e.target, std::vector<size_t>{});
      for (size_t c : open[e.thread]) {
        if (is_release_op(e.op) && cs[c].lock == e.target) continue;
        cs[c].members.push_back(i);
        cs_of[i].push_back(c);
        locks_held[i].insert(cs[c].lock);
        if (cs[c].read) read_held[i].insert(cs[c].lock);
      }
      for (size_t j : by_thread[e.thread]) {
        to.set(j, i);
        hb.set(j, i);
        hbcs.set(j, i);
      }
      by_thread[e.thread].push_back(i);
      switch (e.op) {
        case Op::Acquire:
        case Op::ReadAcquire: {
          // rel -> acq from every earlier release of a CS sharing a lock (the closure is the
          // same as from the last release of each reduced lock).
          cs.push_back(Cs{e.target, e.thread, i, n, {}, e.op == Op::ReadAcquire});
          for (size_t c = 0; c + 1 < cs.size(); ++c)
            if (cs[c].rel < i && shares(c, cs.size() - 1)) {
              hb.set(cs[c].rel, i);
              hbcs.set(cs[c].rel, i);
            }
          open[e.thread].push_back(cs.size() - 1);
          break;
        }
        case Op::Release:
        case Op::ReadRelease: {
          auto& o = open[e.thread];
          for (size_t k = 0; k < o.size(); ++k)
            if (cs[o[k]].lock == e.target) {
              cs[o[k]].rel = i;
              o.erase(o.begin() + static_cast<std::ptrdiff_t>(k));
              break;
            }
          break;
        }
        case Op::Read:
          grow(last_write, e.target, n);
          lw[i] = last_write[e.target];
          break;
        case Op::Write:
          grow(last_write, e.target, n);
          last_write[e.target] = i;
          break;
        case Op::Fork:
          grow(fork_of, e.target, n);
          fork_of[e.target] = i;
          break;
        case Op::Join:
          for (size_t j : by_thread[e.target]) hb.set(j, i);
          break;
        case Op::Recv:  // every earlier send on the object (a hard edge, like fork/join)
          for (size_t j = 0; j < i; ++j)
            if (t.events[j].op == Op::Send && t.events[j].target == e.target) {
              hb.set(j, i);
              hbcs.set(j, i);
            }
          break;
        case Op::Send:
        case Op::Request:
        case Op::ReadRequest:
          break;
      }
    }
    // Fork edges: the fork is before every event of the child.
    for (size_t i = 0; i < n; ++i) {
      const Event& e = t.events[i];
      if (e.thread < fork_of.size() && fork_of[e.thread] != n) hb.set(fork_of[e.thread], i);
    }
    close_transitively(hb);
    close_transitively(hbcs);
  }

  // CSs c1, c2 hold a common reduced lock.
  bool shares(size_t c1, size_t c2) const {
    return cs[c1].lock == cs[c2].lock &&
           (!cs[c1].read || !cs[c2].read || cs[c1].thread == cs[c2].thread);
  }
  const Event& ev(size_t i) const { return trace.events[i]; }
  bool hb_or_eq(size_t a, size_t b) const { return a == b || hb.get(a, b); }
  bool is(size_t i, Op op) const { return ev(i).op == op; }
  bool conflict(size_t a, size_t b) const { return conflicting(ev(a), ev(b)); }
  bool disjoint_locks(size_t a, size_t b) const {
    for (LockId l : locks_held[a])
      if (locks_held[b].count(l) && !(read_held[a].count(l) && read_held[b].count(l))) return false;
    return true;
  }
  // The fork and join edges (WCP-4/5, S6/S7, D3/D4): fork(t, s) before every event of s; every
  // event of s before join(t, s).
  void add_fork_join(BitMatrix& m) const {
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        if (is(i, Op::Fork) && ev(i).target == ev(j).thread) m.set(i, j);
        if (is(j, Op::Join) && ev(j).target == ev(i).thread) m.set(i, j);
        if (is(i, Op::Send) && is(j, Op::Recv) && ev(i).target == ev(j).target) m.set(i, j);
      }
  }
  // Rule (a) (WCP-1, D2, S1 with `need_read`, WDP with `write_to_read`): for CSs c1 before c2
  // on the same lock, e in c1 conflicting with f in c2: r1 -> f (or -> the events of f's thread
  // after f, for WDP's branch after every read).
  template <class Fn>
  void for_rule_a(Fn&& fn) const {
    for (size_t c1 = 0; c1 < cs.size(); ++c1) {
      if (cs[c1].rel == n) continue;
      for (size_t c2 = c1 + 1; c2 < cs.size(); ++c2) {
        if (!shares(c1, c2)) continue;
        for (size_t e : cs[c1].members)
          for (size_t f : cs[c2].members)
            if (conflict(e, f)) fn(cs[c1].rel, e, f, c1, c2);
      }
    }
  }
  bool member(size_t e, size_t c) const {
    return std::find(cs[c].members.begin(), cs[c].members.end(), e) != cs[c].members.end();
  }
};

// R := HB* ∘ R ∘ HB* (composition with Def. B.2's HB on both sides, reflexive); true if R grew.
inline bool compose_with_hb(BitMatrix& r, const PoFacts& f, const BitMatrix& hb) {
  const size_t n = f.n;
  BitMatrix right(n);  // right(x) = ∪_{y ∈ R(x)} HB*(y)
  for (size_t x = 0; x < n; ++x)
    for (size_t y = 0; y < n; ++y)
      if (r.get(x, y)) {
        right.set(x, y);
        right.or_row(x, hb, y);
      }
  bool changed = false;
  for (size_t e = 0; e < n; ++e) {
    changed = r.or_row(e, right, e) || changed;
    for (size_t x = 0; x < n; ++x)
      if (hb.get(e, x)) changed = r.or_row(e, right, x) || changed;
  }
  return changed;
}

// Release-release rule (WCP-2, S3, DC (b)): r1 -> r2 if a1 -> r2, for closed CSs c1 before c2 on
// the same lock (also of one thread, as Def. B.3 and E.1 read, unless `same_thread` is false).
// True if R grew.
inline bool release_release(BitMatrix& r, const PoFacts& f, bool same_thread = true) {
  bool changed = false;
  for (size_t c1 = 0; c1 < f.cs.size(); ++c1) {
    if (f.cs[c1].rel == f.n) continue;
    for (size_t c2 = c1 + 1; c2 < f.cs.size(); ++c2)
      if (f.shares(c1, c2) && f.cs[c2].rel != f.n &&
          (same_thread || f.cs[c1].thread != f.cs[c2].thread) && r.get(f.cs[c1].acq, f.cs[c2].rel))
        changed = r.set(f.cs[c1].rel, f.cs[c2].rel) || changed;
  }
  return changed;
}

// Rule switches, to check in tests that each rule matters.
struct Rules {
  bool b = true;             // WCP-2 / S3 / DC (b) at all
  bool own_thread_b = true;  // WCP-2 / S3 between two CSs of one thread
  bool s2 = true;
  bool s4 = true;
};

// WCP (Def. B.3, composed with HB including fork/join).
inline BitMatrix wcp_relation(const PoFacts& f, Rules rules = {}) {
  BitMatrix r(f.n);
  f.for_rule_a([&](size_t r1, size_t, size_t e2, size_t, size_t) { r.set(r1, e2); });  // WCP-1
  f.add_fork_join(r);                                                                  // 4, 5
  bool changed = true;
  while (changed)  // WCP-3, WCP-2
    changed = compose_with_hb(r, f, f.hb) | (rules.b && release_release(r, f, rules.own_thread_b));
  return r;
}

// SDP (Def. E.1; HB of Def. B.2; S4 with r1 before r2).
inline BitMatrix sdp_relation(const PoFacts& f, Rules rules = {}) {
  BitMatrix r(f.n);
  const size_t n = f.n;
  f.for_rule_a([&](size_t r1, size_t e1, size_t e2, size_t, size_t) {  // S1
    if (f.is(e1, Op::Read) || f.is(e2, Op::Read)) r.set(r1, e2);
  });
  f.for_rule_a([&](size_t r1, size_t e1, size_t e2, size_t, size_t) {  // S2
    if (!rules.s2 || !f.is(e1, Op::Write) || !f.is(e2, Op::Write)) return;
    for (size_t e3 = e2 + 1; e3 < n; ++e3)
      if (f.is(e3, Op::Read) && f.to.get(e2, e3) && f.conflict(e1, e3)) r.set(r1, e3);
  });
  // S4: writes e1 ≍ e2, CSs s1 (e1 ∈ s1) and s2 (e2 ∈ s2) on one lock, releases r1 < r2 of one
  // lock, A(r1) <hb s1 <tr e2 <hb r2, and (e1 ∉ CS(r1) or e2 ∉ CS(r2)).
  for (size_t s1 = 0; s1 < f.cs.size() && rules.s4; ++s1) {
    if (f.cs[s1].rel == n) continue;
    for (size_t s2 = s1 + 1; s2 < f.cs.size(); ++s2) {
      if (!f.shares(s1, s2)) continue;
      for (size_t e1 : f.cs[s1].members)
        for (size_t e2 : f.cs[s2].members) {
          if (!f.is(e1, Op::Write) || !f.is(e2, Op::Write) || !f.conflict(e1, e2)) continue;
          if (!(f.cs[s1].rel < e2)) continue;
          for (size_t c1 = 0; c1 < f.cs.size(); ++c1) {
            if (f.cs[c1].rel == n || !f.hbcs.get(f.cs[c1].acq, f.cs[s1].rel)) continue;
            for (size_t c2 = 0; c2 < f.cs.size(); ++c2) {
              if (!f.shares(c1, c2) || f.cs[c2].rel == n) continue;
              if (!(f.cs[c1].rel < f.cs[c2].rel) || !f.hbcs.get(e2, f.cs[c2].rel)) continue;
              if (!f.member(e1, c1) || !f.member(e2, c2)) r.set(f.cs[c1].rel, f.cs[c2].rel);
            }
          }
        }
    }
  }
  f.add_fork_join(r);  // S6, S7
  bool changed = true;
  while (changed)  // S5, S3
    changed = compose_with_hb(r, f, f.hbcs) | release_release(r, f, rules.own_thread_b);
  return r;
}

// DC (rules (a), (b), thread order with fork/join, transitive; no HB composition), WDC and DC_tp
// (Def. F.1: D1-D4; the same rules as WDC), WDP (write -> read rule (a) to the branch after the
// read, thread order, transitive).
enum class DcKind { Dc, Wdc, DcTp, Wdp };
inline BitMatrix dc_relation(const PoFacts& f, DcKind kind) {
  BitMatrix r(f.n);
  for (size_t i = 0; i < f.n; ++i)
    for (size_t j = i + 1; j < f.n; ++j)
      if (f.to.get(i, j)) r.set(i, j);
  f.add_fork_join(r);
  f.for_rule_a([&](size_t r1, size_t e1, size_t e2, size_t, size_t) {
    if (kind != DcKind::Wdp) {
      r.set(r1, e2);
    } else if (f.is(e1, Op::Write) && f.is(e2, Op::Read)) {
      for (size_t g = e2 + 1; g < f.n; ++g)
        if (f.to.get(e2, g)) r.set(r1, g);
    }
  });
  close_transitively(r);
  if (kind == DcKind::Dc)
    while (release_release(r, f)) close_transitively(r);
  return r;
}

// SHB: HB plus last write -> read, transitive.
inline BitMatrix shb_relation(const PoFacts& f) {
  BitMatrix r = f.hb;
  for (size_t i = 0; i < f.n; ++i)
    if (f.lw[i] != f.n) r.set(f.lw[i], i);
  close_transitively(r);
  return r;
}

struct PoVerdict {
  std::set<std::pair<EventId, EventId>> pairs;
  std::set<EventId> racy_events;
};

// `ordered(e1, e2)`: e1 (earlier, other thread) is ordered before the access e2.
template <class Ordered>
PoVerdict po_races(const PoFacts& f, Ordered&& ordered, bool lockset_filter) {
  PoVerdict v;
  for (size_t e2 = 0; e2 < f.n; ++e2) {
    if (!f.ev(e2).is_access()) continue;
    std::vector<std::pair<ThreadId, Op>> done;
    for (size_t e1 = e2; e1-- > 0;) {
      if (!f.conflict(e1, e2)) continue;
      const std::pair<ThreadId, Op> key{f.ev(e1).thread, f.ev(e1).op};
      if (std::find(done.begin(), done.end(), key) != done.end()) continue;
      if (ordered(e1, e2) || (lockset_filter && !f.disjoint_locks(e1, e2))) continue;
      done.push_back(key);
      v.pairs.emplace(f.trace.ids[e1], f.trace.ids[e2]);
      v.racy_events.insert(f.trace.ids[e2]);
    }
  }
  return v;
}

// The verdict of engine `name` ("shb", "wcp", "sdp", "dc-tp", "dc", "wdc", "wdp") by definition.
inline PoVerdict po_reference(const Trace& trace, const std::string& name, Rules rules = {}) {
  const PoFacts f(trace);
  if (name == "shb") {
    const BitMatrix r = shb_relation(f);
    // The race check of a read does not use the read's own last-write edge: e1 must be ordered
    // before a direct non-last-write predecessor of e2 (its thread predecessor or its fork).
    return po_races(
        f,
        [&](size_t e1, size_t e2) {
          for (size_t p = 0; p < e2; ++p) {
            const bool direct =
                f.to.get(p, e2) || (f.is(p, Op::Fork) && f.ev(p).target == f.ev(e2).thread);
            if (direct && (p == e1 || r.get(e1, p))) return true;
          }
          return false;
        },
        false);
  }
  if (name == "wcp") {
    const BitMatrix r = wcp_relation(f, rules);
    return po_races(
        f, [&](size_t a, size_t b) { return r.get(a, b); }, false);
  }
  if (name == "sdp") {
    const BitMatrix r = sdp_relation(f, rules);
    return po_races(
        f, [&](size_t a, size_t b) { return r.get(a, b); }, true);
  }
  const DcKind kind = name == "dc"    ? DcKind::Dc
                      : name == "wdc" ? DcKind::Wdc
                      : name == "wdp" ? DcKind::Wdp
                                      : DcKind::DcTp;
  const BitMatrix r = dc_relation(f, kind);
  return po_races(
      f, [&](size_t a, size_t b) { return r.get(a, b); }, kind == DcKind::Wdp);
}

}  // namespace racepred::testing
