// The eager form of Goldilocks (Elmas and Qadeer, "A New Lockset Algorithm and Its
// Applications", §3 and §6): a reference for the lazy engine of engines/goldilocks/, used by
// tests and benchmarks only, so it lives in the test-support library, not in racepred.
#pragma once

#include <memory>

#include "racepred/engines/goldilocks/goldilocks.hpp"

namespace racepred {

// Which rules the eager reference follows.
enum class GoldilocksRules {
  // The rules as racepred implements them: §3 with rule 7 (join) adding LH(t), §6 applying
  // the §3 updates to LSW and to every LSR(q, t) independently; a race restarts the lock set.
  Corrected,
  // The rules exactly as printed in the paper (join adds only {t}; §6 rules 2-7 verbatim; a race
  // empties the lock sets for good). Used by tests to show where the printed rules lose order.
  AsPrinted,
};

// The eager reference (not registered): every acquire, fork and join updates every lock set.
// Memory O(variables × (threads + locks)); for tests only.
std::unique_ptr<Engine> make_goldilocks_eager(EngineContext& context,
                                              GoldilocksDiscipline discipline,
                                              GoldilocksRules rules = GoldilocksRules::Corrected);

}  // namespace racepred
