// Registration of the lecture's race-pair engines (docs/ENGINES.md, "Happens-before: race pairs").
#include "racepred/engines/hb_pairs.hpp"

namespace racepred {

void register_hb_pair_engines(std::vector<EngineInfo>& out) {
  out.push_back(EngineInfo{
      "hb",
      "all happens-before race pairs: VC_pre_post, then each access against the earlier "
      "accesses it is not ordered after",
      "race pairs: exactly the conflicting pairs unordered by HB (program order, release->acquire, "
      "fork/join); the first race is predictable, later ones may be false; incomplete",
      "001 \"Vector clock based data race predictor algorithm - Offline Approach\" (VC_pre_post)",
      EngineMode::Offline, [](EngineContext& c) { return make_hb_engine(c); }});
  out.push_back(EngineInfo{
      "hb-sets",
      "set-based HB race predictor: event sets D(t), Rel(y), most recent write W(x), concurrent "
      "reads R(x); quadratic reference",
      "race pairs, a subset of hb's: only the most recent write is compared (misses earlier ones)",
      "004 \"Set-based race predictor\"", EngineMode::Offline, make_hb_sets_engine});
  out.push_back(EngineInfo{
      "hb-pairs",
      "VC_W_R_Races: online HB race pairs from the sets W(x), R(x) of mutually concurrent "
      "accesses",
      "race pairs, a subset of hb's: accesses ordered before a later access are forgotten",
      "001 \"Vector clock based data race predictor algorithms - Online Approach\" (VC_W_R_Races)",
      EngineMode::Online, make_hb_pairs_engine});
  out.push_back(EngineInfo{
      "tsan1",
      "lock sets with fork/join happens-before (TSan v1 style): concurrent accesses with disjoint "
      "lock sets",
      "race pairs, neither sound nor complete; a subset of the lockset pairs (latest concurrent "
      "accesses only, ordered by program order and fork/join)",
      "001 \"Implementation in Go\": Lockset style data race predictor (similar to TSan V1)",
      EngineMode::Online, make_tsan1_engine});
}

}  // namespace racepred
