// Large sets of mutually concurrent accesses, one member per clock slot (the flood shape: thousands
// of threads on one variable). An access removes the members that happen before it; scanning
// the set for them would make the flood quadratic, so they are found from the access's clock.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "racepred/clock/vector_clock.hpp"

namespace racepred {

// Calls visit(q) for every member q of `set` that happens before C (set[q].clock <= C at
// set[q].slot; a member with clock 0 is a hole). `at` maps a slot to its member's position.
// With fewer non-zero entries of C than members, only those slots are looked up: O(|nonzeros|)
// instead of O(|set|). visit may erase the member's slot from `at`.
template <class Member, class Visit>
void visit_members_before(std::vector<Member>& set,
                          const std::unordered_map<uint32_t, uint32_t>& at, ClockRef C,
                          std::span<const uint32_t> nonzeros, Visit&& visit) {
  if (nonzeros.size() < set.size()) {
    for (const uint32_t j : nonzeros) {
      const auto it = at.find(j);
      if (it == at.end()) continue;
      const uint32_t q = it->second;
      if (set[q].clock <= C.get(j)) visit(q);
    }
    return;
  }
  for (uint32_t q = 0; q < set.size(); ++q)
    if (set[q].clock != 0 && set[q].clock <= C.get(set[q].slot)) visit(q);
}

}  // namespace racepred
