// pwr-cs: PWR^CS, Algorithm 1 of Sulzmann and Thiemann (§6.3): PWR race prediction with the race
// check on the thread-indexed PWR lock sets LH_pwr (Def. 4.3 with <PWR, Def. 5.9), which remove
// races whose accesses are guarded by a cross-thread critical section (Fig. 2) while staying
// complete (Cor. 6.4). State and the marked lines of Algorithm 1: pwr_cs_engine.hpp.
//
// As the paper's implementation does, candidates are registered with the guard locks z? they
// wait for (W(z)), so a release looks only at its own waiting list instead of every RC(a), and
// candidates are evicted like pwr's RW(x) entries: a candidate leaves RC(a) once a later access
// of a is known to happen after it (reads keep the writes before them, Alg. 3). The cost of the
// eviction is the paper's Fig. 10: (e2, e7) is a predictable race, but e4 evicts e2 before e7
// arrives, so pwr-cs (like pwr) does not report it; pwr-edges does.
//
// Per race it reports the confirmed guard locks of both accesses (none intersect ∩'); a PWR
// race whose lock sets intersect only through a guard lock is counted as cs-guarded (Fig. 12),
// and every confirmation (line 7 true) is counted.
#include "racepred/engines/pwr/pwr.hpp"
#include "racepred/engines/pwr/pwr_cs_engine.hpp"

namespace racepred::pwr {

std::unique_ptr<Engine> make_pwr_cs(EngineContext& context, const PwrOptions& options) {
  return std::make_unique<PwrCsEngine<false>>(context, options);
}

}  // namespace racepred::pwr

namespace racepred {
std::unique_ptr<Engine> make_pwr_cs(EngineContext& context) {
  return pwr::make_pwr_cs(context, pwr::bounded_options(context));
}
std::unique_ptr<Engine> make_pwr_cs_unbounded(EngineContext& context) {
  return pwr::make_pwr_cs(context, pwr::unbounded_options(context));
}
}  // namespace racepred
