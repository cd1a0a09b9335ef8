// A definitional reference of PWR for small traces (Sulzmann and Thiemann Def. 6.1; PWR lock sets
// LH_pwr of §6.2), independent of the vector-clock engines: the relation as the least fixpoint of
// its rules over explicit event sets, the PWR and WRD race pairs, and the thread-indexed lock sets.
// Read-write locks follow the standard reduction (a read section of y by t holds (y,t), a write
// section every (y,u)) with each block of reduced acquires or releases taken as the one event it
// stands for: PWR-3 relates two sections of y unless both are read sections, and LH_pwr keeps
// the mode of each hold (exact::disjoint / disjoint_indexed ignore a lock read-held on both
// sides).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "racepred/exact/locksets.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred::testing {

// PWR-3 as printed (Literal): e strictly inside (a1, r1) and f strictly inside (a2, r2), both
// standard sections (same thread as their acquire). Closed: PWR-3 with a1 <pwr f for f in
// (a2, r2] (the PWR paper's App. F: testing the acquire suffices), which is what the vector
// clocks compute. Literal ⊆ Closed; both are ⊆ must-happen-before (tested).
enum class Rod { Literal, Closed };

class PwrRelation {
 public:
  PwrRelation(const TraceIndex& t, Rod rod) : t_(t), below_(t.size()) {
    const auto sections = t.critical_sections();
    for (uint32_t f = 0; f < t.size(); ++f) {
      std::vector<char>& b = below_[f];
      b.assign(t.size(), 0);
      auto add = [&](uint32_t p) {
        b[p] = 1;
        for (uint32_t k = 0; k < f; ++k) b[k] |= below_[p][k];
      };
      const Event& e = t.event(f);
      const auto& mine = t.thread_events(e.thread);
      const uint32_t pos = t.index_in_thread(f);
      if (pos > 0)
        add(mine[pos - 1]);  // PWR-1
      else if (t.fork_of(e.thread) != kNoIndex)
        add(t.fork_of(e.thread));  // PWR-4
      pre_.push_back(b);           // what precedes f's thread position: the WRD test looks here
      if (e.op == Op::Read && t.last_write(f) != kNoIndex) add(t.last_write(f));  // PWR-2
      if (e.op == Op::Join && e.target != e.thread && e.target < t.thread_count() &&
          !t.thread_events(e.target).empty())
        add(t.thread_events(e.target).back());  // PWR-5
      if (e.op == Op::Recv)
        for (const uint32_t s : t.sends_before(f)) add(s);  // the hard edge send -> recv
      // PWR-3, to a fixpoint at f (every rule points forward in the trace, so the sets of
      // earlier events are final).
      for (bool changed = true; changed;) {
        changed = false;
        for (const auto& cs2 : sections) {
          if (cs2.thread != e.thread) continue;
          const uint32_t lo = t.index_in_thread(cs2.acquire);
          const uint32_t hi = cs2.release == kNoIndex ? UINT32_MAX : t.index_in_thread(cs2.release);
          const bool inside =
              rod == Rod::Literal ? (lo < pos && pos < hi) : (lo < pos && pos <= hi);
          if (!inside) continue;
          for (const auto& cs1 : sections) {
            if (cs1.lock != cs2.lock || (cs1.read && cs2.read) || cs1.release == kNoIndex ||
                cs1.acquire >= cs2.acquire || b[cs1.release])
              continue;
            bool before = false;
            if (rod == Rod::Closed) {
              before = b[cs1.acquire] != 0;
            } else {
              const auto& th1 = t.thread_events(cs1.thread);
              for (uint32_t k = t.index_in_thread(cs1.acquire) + 1;
                   k < t.index_in_thread(cs1.release) && !before; ++k)
                before = b[th1[k]] != 0;
            }
            if (before) {
              add(cs1.release);
              changed = true;
            }
          }
        }
      }
    }
  }

  // e <pwr f
  bool before(uint32_t e, uint32_t f) const { return below_[f][e] != 0; }
  bool concurrent(uint32_t e, uint32_t f) const { return !before(e, f) && !before(f, e); }
  // The read's last write w is not PWR-before the read's program-order predecessor (or the
  // fork that started its thread): nothing lies between w and the read (the WRD race test).
  bool wrd_unordered(uint32_t w, uint32_t r) const { return pre_[r][w] == 0; }

  // LH_pwr(e): (x, t) for every matching pair (a, r) of x in thread t with a <pwr e <pwr r; an
  // open section ends with a virtual release after the last event of its thread.
  std::vector<exact::LockSet> lock_sets() const {
    std::vector<exact::LockSet> out(t_.size());
    for (const auto& cs : t_.critical_sections()) {
      const auto& th = t_.thread_events(cs.thread);
      for (uint32_t e = 0; e < t_.size(); ++e) {
        if (!before(cs.acquire, e)) continue;
        const bool below_release = cs.release != kNoIndex
                                       ? before(e, cs.release)
                                       : (e == th.back() || before(e, th.back()));
        if (below_release) out[e].push_back(exact::HeldLock{cs.lock, cs.thread, cs.read});
      }
    }
    for (auto& s : out) {
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
    }
    return out;
  }

 private:
  const TraceIndex& t_;
  std::vector<std::vector<char>> below_;
  std::vector<std::vector<char>> pre_;
};

// The PWR race pairs (i < j, sorted): conflicting, PWR-concurrent, and WRD pairs (a read and its
// last write of another thread, wrd_unordered), whose lock sets are disjoint under `sets` and
// the intersection (∩ for LH_S, ∩' for thread-indexed sets such as LH_pwr).
inline std::vector<std::pair<uint32_t, uint32_t>> pwr_races(const TraceIndex& t,
                                                            const PwrRelation& rel,
                                                            const std::vector<exact::LockSet>& sets,
                                                            exact::Intersection intersection) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (auto [a, b] : t.conflicting_pairs()) {
    const bool wrd = t.event(b).op == Op::Read && t.last_write(b) == a;
    const bool candidate = wrd ? rel.wrd_unordered(a, b) : rel.concurrent(a, b);
    if (!candidate) continue;
    const bool disjoint = intersection == exact::Intersection::Plain
                              ? exact::disjoint(sets[a], sets[b])
                              : exact::disjoint_indexed(sets[a], sets[b]);
    if (disjoint) out.emplace_back(a, b);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace racepred::testing
