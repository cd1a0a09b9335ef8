// Debug statistics of sdp (engines/po/sdp.cpp), summed over every sdp engine of the process
// (tests bound the work per event with them; atomic: analyze runs engines on several threads):
// the steps its S4 rule took, the cells of its clocks and of its per-(lock, variable),
// per-(thread, variable) and race-history state allocated when the engine ended (counted only
// while sdp_count_cells() is set: the count walks every clock), and the clock nodes its joins
// visited (SharedClock::join_visits() while it ran).
#pragma once

#include <atomic>
#include <cstdint>

namespace racepred::po {

std::atomic<uint64_t>& sdp_s4_steps();
std::atomic<uint64_t>& sdp_state_cells();
std::atomic<bool>& sdp_count_cells();
std::atomic<uint64_t>& sdp_join_visits();

}  // namespace racepred::po
