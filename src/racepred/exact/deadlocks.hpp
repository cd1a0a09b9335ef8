// Deadlocks of the exact search as findings, and the Critical-1/Critical-2 cases of Sulzmann and
// Thiemann, "Cross-thread critical sections and efficient dynamic race prediction methods",
// App. B (Def. B.4, B.7, B.8).
#pragma once

#include <cstdint>
#include <vector>

#include "racepred/exact/search.hpp"
#include "racepred/report/finding.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred::exact {

// The finding of one deadlock: a step per acquire (its thread, the locks the thread holds after
// the prefix with where each was acquired, the lock requested) and the prefix as the witness.
Finding deadlock_finding(const TraceIndex& trace, const DeadlockWitness& deadlock);

// Def. B.8 for a partial order P, over the whole trace: P reports a race, the trace has no
// predictable race (Def. 3.8), and
//   Critical-1: no cross-thread predictable deadlock (Def. B.7);
//   Critical-2: no predictable deadlock (Def. B.4).
// A trace can be both (no deadlock of either kind).
struct CriticalCase {
  bool critical1 = false;
  bool critical2 = false;
};
// `result` from search() with RaceNotion::Adjacent, Reorderings::Prefixes and deadlocks on.
CriticalCase classify(bool p_race, const SearchResult& result);

}  // namespace racepred::exact
