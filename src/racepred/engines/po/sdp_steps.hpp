// A debug statistic of sdp (engines/po/sdp.cpp): the steps its S4 rule took, summed over every
// sdp engine of the process (tests bound the work per event with it; atomic: analyze runs
// engines on several threads).
#pragma once

#include <atomic>
#include <cstdint>

namespace racepred::po {

std::atomic<uint64_t>& sdp_s4_steps();

}  // namespace racepred::po
