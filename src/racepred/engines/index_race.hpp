// The race of two accesses given by their positions in the trace index: what the offline
// engines (exact, syncp, osr) report.
#pragma once

#include <cstdint>

#include "racepred/report/finding.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred {

inline Race race_at(const TraceIndex& index, uint32_t first, uint32_t second) {
  return Race{Access::of(index.id(first), index.event(first)),
              Access::of(index.id(second), index.event(second)), index.event(first).target};
}

}  // namespace racepred
