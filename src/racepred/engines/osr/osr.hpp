// Optimistic synchronisation-reversal races (Shi, Mathur and Pavlogiannis, "Optimistic
// prediction of synchronization-reversal data races", ICSE 2024): races with a witness that may
// reverse critical sections, found by optimistically closing every critical section that can be
// closed and checking that the few left open can go last.
//
// TRF is thread order (fork -> first event of the child, last event -> join), reads-from (a read
// after the last write before it in the trace) and sync orders (a recv(o) after every send(o)
// before it in the trace). For conflicting accesses e1 <tr e2:
//   closable    a critical section whose release exists and whose release has neither e1 nor e2
//               among its TRF-predecessors;
//   S(e1, e2)   the optimistic lock closure: the least set of events that contains the thread
//               predecessors of e1 and e2, is TRF-closed and holds the release of every closable
//               section whose acquire it holds;
//   open        a section whose acquire is in S and whose release is not (it is not closable);
//   P           on S: thread order, fork/join, send -> later recv, the trace's order of every two
//               conflicting accesses (same variable, one a write) and release -> later acquire of
//               one lock (not between two read sections);
//   B           for each open section of lock l: the latest release in S of l (of a write
//               section, when the open one is a read section) -> its acquire, when that release
//               is later in the trace than the acquire (the section reversed).
// (e1, e2) is an OSR race iff e1 is not in S (e2 never is), a lock has at most one open section
// unless all its open ones are read sections, and P ∪ B is acyclic. Then any linearisation of
// S by P ∪ B is a correctly reordered prefix (conflicting accesses keep their order, so every
// read keeps its write; the closed sections of a lock keep theirs; the open ones run last)
// after which e1 and e2 are both enabled: the witness. With no B edge it is S in trace order.
//
// The analysis (engines/osr/osr.cpp): TRF clocks stored where they change (as in syncp); per
// access e2 of t, per other thread u and kind of e1, a forward-only cursor drops the candidates
// TRF-before e2 (S only grows with e2, and e1 is in S iff it is TRF-before e2); a candidate that
// holds a lock e2 holds (not both in read mode) leaves two open sections of that lock and is
// skipped with the rest of its run of such candidates in one step; the others get S computed
// from the TRF clocks by a fixpoint over the sections open at each thread's frontier, then the
// open-section count, B, and, only when B is not empty, the paper's abstract graph over the
// reversed sections: P only goes forward in the trace, so P ∪ B has a cycle iff the graph on the
// open sections, o -> o' when o's acquire reaches by P within S a release with a B edge into o',
// has one. Reach within S comes from successor queries precomputed per pair of threads (the
// earliest P-successor in one thread of a range of another's events, a minimum segment tree).
// A witness is a linearisation by P ∪ B, built only when asked. Worst case quadratic in the
// trace length (the paper's bound is Õ(N²)).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "racepred/trace/trace_index.hpp"

namespace racepred::osr {

// The races: for every access e2, every other thread u and every kind of e1 (read, write)
// conflicting with e2, the earliest e1 of that kind in u with (e1, e2) an OSR race. Index
// positions (first <tr second), in order of second, then first.
std::vector<std::pair<uint32_t, uint32_t>> races(const TraceIndex& index);

// Whether (first, second) is an OSR race (index positions of conflicting accesses, first <tr
// second).
bool is_race(const TraceIndex& index, uint32_t first, uint32_t second);

// S(first, second) as a prefix length per thread.
std::vector<uint32_t> closure(const TraceIndex& index, uint32_t first, uint32_t second);

// The witness of a race: a linearisation of S(first, second) by P ∪ B, then first and second;
// empty when (first, second) is not an OSR race. Each call builds the analysis' state once more:
// meant for the few races a user asks to see.
std::vector<uint32_t> witness(const TraceIndex& index, uint32_t first, uint32_t second);

// The witness prefixes (without the two accesses) of many pairs, the state built once: what
// `analyze --witness` needs for the races of a report (each as osr::witness without its last
// two events; empty for a pair that is not an OSR race).
std::vector<std::vector<uint32_t>> witnesses(const TraceIndex& index,
                                             std::span<const std::pair<uint32_t, uint32_t>> pairs);

// Why a pair is or is not an OSR race (for comparisons with other tools, bench/osr_explain).
struct Explanation {
  enum class Verdict {
    Race,     // an OSR race
    Ordered,  // first is in S (exactly when it is TRF-before second)
    TwoOpen,  // a lock has two open sections, not all read sections
    Cycle,    // P ∪ B has a cycle through reversed sections
  };
  Verdict verdict = Verdict::Race;
  std::vector<uint32_t> closure;   // S as a prefix length per thread
  std::vector<uint32_t> open;      // the acquires of the open sections (index positions)
  std::vector<uint32_t> reversed;  // the releases with a B edge (index positions)
  std::vector<uint32_t> cycle;     // for Cycle: the acquires of the open sections on a cycle
  LockId lock = 0;                 // for TwoOpen: the lock
};
Explanation explain(const TraceIndex& index, uint32_t first, uint32_t second);

// The OSR check of single pairs with the analysis' state built once (m2 tries it first: every
// OSR race is an m2 race).
class Checker {
 public:
  explicit Checker(const TraceIndex& index);
  ~Checker();
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;
  // Whether (first, second) is an OSR race; `order` (when not null) gets the witness prefix
  // (without the two accesses; empty when it is not a race).
  bool check(uint32_t first, uint32_t second, std::vector<uint32_t>* order);
  Explanation explain(uint32_t first, uint32_t second);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace racepred::osr
