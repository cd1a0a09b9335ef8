// The plain versions of the engines whose optimised version differs (readable, every clock a
// VectorClock): not registered; tests check them against the definitions like the engines.
#pragma once

#include <memory>

#include "racepred/engines/engine.hpp"

namespace racepred::po {

std::unique_ptr<Engine> make_shb_plain(EngineContext& context);
std::unique_ptr<Engine> make_wcp_plain(EngineContext& context);
std::unique_ptr<Engine> make_dc_plain(EngineContext& context);
std::unique_ptr<Engine> make_wdc_plain(EngineContext& context);
std::unique_ptr<Engine> make_wdp_plain(EngineContext& context);

}  // namespace racepred::po
