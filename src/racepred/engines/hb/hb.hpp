// The offline all-pairs happens-before engine `hb` with a tunable pruning period (tests).
#pragma once

#include <cstddef>
#include <memory>

#include "racepred/engines/engine.hpp"

namespace racepred {

// hb, dropping stored accesses every `prune_every` stored accesses at the earliest (the
// registered engine uses 2^14; tests use 1 to exercise pruning).
std::unique_ptr<Engine> make_hb_engine(EngineContext& context, size_t prune_every);

}  // namespace racepred
