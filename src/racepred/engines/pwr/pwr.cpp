// pwr: PWR_L, the single-pass vector-clock PWR race predictor (PWR paper Alg. 1–4; the
// relation of Def. 6.1 of the cross-thread paper). State and rules: pwr_core.hpp (Th, LSt, Acq,
// H, LW and the ROD sync w3) and pwr_engine.hpp (RW(x), the WRD race, the race checks).
// Reports read→write, write→read and write→write races: PWR-concurrent conflicting accesses
// with disjoint standard lock sets among the most recent accesses RW(x), and WRD pairs.
// pwr-unbounded keeps every critical section in the histories (tests compare it with the
// definitional reference).
#include "racepred/engines/pwr/pwr.hpp"

#include "racepred/engines/pwr/pwr_engine.hpp"

namespace racepred {

namespace pwr {
std::unique_ptr<Engine> make_pwr(EngineContext& context, const PwrOptions& options) {
  return std::make_unique<PwrEngine<NoEdges>>(context, options);
}
}  // namespace pwr

std::unique_ptr<Engine> make_pwr(EngineContext& context) {
  return pwr::make_pwr(context, pwr::bounded_options(context));
}
std::unique_ptr<Engine> make_pwr_unbounded(EngineContext& context) {
  return pwr::make_pwr(context, pwr::unbounded_options(context));
}

}  // namespace racepred
