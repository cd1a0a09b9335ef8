// The definition of sync-preserving races (Mathur, Pavlogiannis and Viswanathan, "Optimal
// prediction of synchronization-preserving races", POPL 2021), computed directly for each pair:
// the ideal I(e1, e2) as a set of events closed by iteration to a fixpoint. Slow (cubic per
// pair); the syncp engine (engines/syncp/) is checked against it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "racepred/trace/trace_index.hpp"

namespace racepred::testing {

// I(e1, e2): the least set with the thread-order predecessors of e1 and e2 (forks included),
// closed under thread order (fork -> child, child -> join), reads-from (a read brings the last
// write before it) and the lock rule (an acquire a' brings its release when a later acquire of
// the same lock is in the set and one of the two is in write mode). One flag per event.
std::vector<bool> syncp_ideal_set(const TraceIndex& t, uint32_t e1, uint32_t e2);

// The ideal as a prefix length per thread; empty when the set is not downward closed by thread
// (which would be a bug of the reference).
std::vector<uint32_t> syncp_ideal_prefixes(const TraceIndex& t, const std::vector<bool>& set);

// Every sync-preserving race (e1, e2), e1 <tr e2 conflicting and e1, e2 outside I(e1, e2),
// sorted.
std::vector<std::pair<uint32_t, uint32_t>> syncp_all_races(const TraceIndex& t);

// What the engine reports of `all`: for each e2, each other thread and each operation of e1,
// the earliest e1; sorted.
std::vector<std::pair<uint32_t, uint32_t>> syncp_earliest_partners(
    const TraceIndex& t, const std::vector<std::pair<uint32_t, uint32_t>>& all);

}  // namespace racepred::testing
