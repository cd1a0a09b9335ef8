// The definition of optimistic synchronisation-reversal races (Shi, Mathur and Pavlogiannis,
// "Optimistic prediction of synchronization-reversal data races", ICSE 2024), computed directly
// for each pair: the optimistic lock closure S(e1, e2) as a set of events closed by iteration,
// then a search through every interleaving of S for one that is a correct reordering keeping
// the constraints of the paper's witnesses (conflicting accesses and the critical sections
// closed in S in their trace order; the sections left open run to the end). Exponential; the
// osr engine (engines/osr/) is checked against it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "racepred/trace/trace_index.hpp"

namespace racepred::testing {

// S(e1, e2): the least set with the thread-order predecessors of e1 and e2 (forks included),
// closed under thread order (fork -> child, child -> join), reads-from, send -> later recv, and
// holding the release of each of its acquires whose release has neither e1 nor e2 among its
// predecessors by those orders. One flag per event.
std::vector<bool> osr_closure_set(const TraceIndex& t, uint32_t e1, uint32_t e2);

// (e1, e2) is an OSR race: neither is in S(e1, e2) and some interleaving of S keeps the
// constraints above (searched exhaustively). `order`, when not null, gets that interleaving.
bool osr_race(const TraceIndex& t, uint32_t e1, uint32_t e2,
              std::vector<uint32_t>* order = nullptr);

// Every OSR race (e1, e2), e1 <tr e2 conflicting, sorted.
std::vector<std::pair<uint32_t, uint32_t>> osr_all_races(const TraceIndex& t);

}  // namespace racepred::testing
