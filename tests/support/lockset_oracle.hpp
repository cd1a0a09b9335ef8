// The lock-set race pairs straight from the definition (Sulzmann, "Lock sets"): every pair of
// conflicting events whose lock sets are disjoint. Quadratic; the judge of the `lockset` engine's
// tests.
#pragma once

#include <set>
#include <vector>

#include "racepred/trace/trace.hpp"

namespace racepred::testing_support {

struct Pair {
  EventId first, second;
  friend bool operator==(const Pair&, const Pair&) = default;
};

// In detection order: by second, then first.
inline std::vector<Pair> lockset_pairs_brute_force(const Trace& trace) {
  std::vector<std::set<LockId>> held;
  std::vector<std::set<LockId>> ls(trace.size());
  for (size_t i = 0; i < trace.size(); ++i) {
    const Event& e = trace.events[i];
    if (e.thread >= held.size()) held.resize(e.thread + 1);
    if (e.op == Op::Acquire) held[e.thread].insert(e.target);
    if (e.op == Op::Release) held[e.thread].erase(e.target);
    ls[i] = held[e.thread];
  }
  std::vector<Pair> pairs;
  for (size_t j = 0; j < trace.size(); ++j)
    for (size_t i = 0; i < j; ++i) {
      if (!conflicting(trace.events[i], trace.events[j])) continue;
      bool disjoint = true;
      for (LockId l : ls[i]) disjoint = disjoint && !ls[j].count(l);
      if (disjoint) pairs.push_back({trace.ids[i], trace.ids[j]});
    }
  return pairs;
}

}  // namespace racepred::testing_support
