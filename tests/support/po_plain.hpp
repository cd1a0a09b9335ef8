// The plain versions of the partial-order engines whose registered version is optimised
// (readable, every clock a VectorClock): test references in the test-support library; tests
// check them against the definitions like the engines.
#pragma once

#include <memory>

#include "racepred/engines/engine.hpp"

namespace racepred::po {

std::unique_ptr<Engine> make_shb_plain(EngineContext& context);
std::unique_ptr<Engine> make_wcp_plain(EngineContext& context);
std::unique_ptr<Engine> make_dc_plain(EngineContext& context);
std::unique_ptr<Engine> make_wdc_plain(EngineContext& context);
std::unique_ptr<Engine> make_wdp_plain(EngineContext& context);
// sdp as first written (every S4 record kept and scanned): tests/support/sdp_plain.cpp.
std::unique_ptr<Engine> make_sdp_plain(EngineContext& context);

}  // namespace racepred::po
