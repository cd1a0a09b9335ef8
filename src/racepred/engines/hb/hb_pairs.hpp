// The lecture's happens-before race-pair engines (seeds 001 and 004) and the lockset-style
// predictor with fork/join happens-before (seed 001, TSan v1 style). Registered by
// register_hb_pair_engines() as hb, hb-sets, hb-pairs and tsan1.
#pragma once

#include <memory>

#include "racepred/engines/engine.hpp"

namespace racepred {

// hb: every conflicting pair unordered by HB (VC_pre_post plus the pairwise check), offline.
std::unique_ptr<Engine> make_hb_engine(EngineContext& context);
// The same, dropping accesses every `prune_every` stored accesses at the earliest (tests use 1).
std::unique_ptr<Engine> make_hb_engine(EngineContext& context, size_t prune_every);
// hb-sets: seed 004's set-based race predictor (event sets D(t), Rel(y), W(x), R(x)).
std::unique_ptr<Engine> make_hb_sets_engine(EngineContext& context);
// hb-pairs: seed 001's VC_W_R_Races (online race pairs from the sets W(x), R(x)).
std::unique_ptr<Engine> make_hb_pairs_engine(EngineContext& context);
// tsan1: seed 001's lockset-style predictor with fork/join vector clocks.
std::unique_ptr<Engine> make_tsan1_engine(EngineContext& context);

}  // namespace racepred
