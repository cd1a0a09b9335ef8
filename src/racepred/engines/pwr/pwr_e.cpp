// pwr-e: PWR-E of Sulzmann and Thiemann App. G (Def. G.1): pwr-cs (enhancement E2, thread-indexed
// cross-thread lock sets) plus enhancement E1, rule PWRE-3 with cross-thread critical sections:
//   r1 <PWR-E f  if  e ∈ CS_C(x)^(a1,r1), f ∈ CS_C(x)^(a2,r2), a1 <tr a2, e <PWR-E f.
// State: pwr-cs's (pwr_cs_engine.hpp), and each candidate record keeps its clock V(f).
//
// f ∈ CS_C(x)^(a2,r2) for an f outside the holder's thread is known only at r2, when the guard
// x of f is confirmed (Algorithm 1, RELEASE line 7). At that moment PwrCsEngine::rod_cross
// applies PWRE-3 with e = a1 (App. F: the acquire suffices): every kept section (a1, r1) of x of
// another thread with a1 ⪯ V(f) gives V(f) ⊔= V(r1), and, as f's thread is past f, Th(u) ⊔=
// V(r1). Pairs that wait for f are then decided with the larger V(f). Inside the holder's own
// thread PWRE-3 is PWR-3, which the ROD sync of every PWR engine applies already (so Fig. 14 is
// ordered by pwr too, "E1 we effectively get for free").
//
// Like the paper's implementation it under-approximates PWR-E: events of f's thread between f
// and r2, and events that learned of them, do not get V(r1), and bounded histories forget
// sections. Every addition is a join with the clock of an event PWR-E-before the receiver, so
// pwr-e's clocks contain pwr-cs's, its RW(x) is a subset of pwr-cs's and its lock sets are
// supersets: pwr-e reports a subset of pwr-cs's races (tested).
#include "racepred/engines/pwr/pwr.hpp"
#include "racepred/engines/pwr/pwr_cs_engine.hpp"

namespace racepred::pwr {

std::unique_ptr<Engine> make_pwr_e(EngineContext& context, const PwrOptions& options) {
  return std::make_unique<PwrCsEngine<true>>(context, options);
}

}  // namespace racepred::pwr

namespace racepred {
std::unique_ptr<Engine> make_pwr_e(EngineContext& context) {
  return pwr::make_pwr_e(context, pwr::bounded_options(context));
}
std::unique_ptr<Engine> make_pwr_e_unbounded(EngineContext& context) {
  return pwr::make_pwr_e(context, pwr::unbounded_options(context));
}
}  // namespace racepred
