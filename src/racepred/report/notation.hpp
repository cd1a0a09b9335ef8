// The papers' plain-text notation for events, used by annotated tables and engine annotations.
#pragma once

#include <string>
#include <vector>

#include "racepred/trace/event.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred {

// "w(x)", "acq(y)", "fork(T1)": the event as the papers write it in a thread's column.
std::string event_text(const Symbols& symbols, const Event& event);

// "j#e_k" (Sulzmann, "Dynamic data race prediction" Go framework, displayEvt): thread index j,
// event text e, event id k.
std::string event_ref_hash(const Symbols& symbols, EventId id, const Event& event);

// "j:e_k" (Sulzmann, "Happens-before and vector clocks" event sets): thread index j, event text e,
// event id k.
std::string event_ref_colon(const Symbols& symbols, EventId id, const Event& event);

// "(e1,e3)": a race pair by event ids.
std::string pair_text(EventId first, EventId second);
// "(e1,e3) (e2,e3)": the pairs (f, second) for f in firsts; "" when there are none.
std::string races_text(const std::vector<EventId>& firsts, EventId second);

}  // namespace racepred
