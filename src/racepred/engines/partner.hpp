// The access behind a clock entry, an epoch or a history entry of an engine: reported as the
// first event of a race pair once a later access is found unordered with it.
#pragma once

#include "racepred/trace/event.hpp"

namespace racepred {

struct Partner {
  EventId event = kNoEvent;
  LocationId location = 0;
};

}  // namespace racepred
