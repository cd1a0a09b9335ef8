// The dense reference forms of the HB engines whose registered form keeps sparse or adaptive
// state (tests/properties/representation_property_test.cpp proves them equal on random traces).
#pragma once

#include <memory>

#include "racepred/engines/engine.hpp"

namespace racepred {

// djit with Wv(x), Rv(x) as full rows of every thread (engines/hb/djit.cpp).
std::unique_ptr<Engine> make_djit_dense(EngineContext& context);
// hb-epochs with We(x), Re(x) in full rows of thread capacity (engines/hb/hb_epochs.cpp).
std::unique_ptr<Engine> make_hb_epochs_dense(EngineContext& context);

}  // namespace racepred
