// pwr: PWR_L, the single-pass vector-clock PWR race predictor (PWR paper Alg. 1–4; the
// relation of Def. 6.1 of the cross-thread paper). State and rules: pwr_core.hpp (Th, LSt, Acq,
// H, LW and the ROD sync w3) and pwr_engine.hpp (RW(x), the WRD race, the race checks).
// Reports read→write, write→read and write→write races: PWR-concurrent conflicting accesses
// with disjoint standard lock sets among the most recent accesses RW(x), and WRD pairs.
// This file also registers the PWR family.
#include "racepred/engines/pwr/pwr.hpp"

#include <string>

#include "racepred/engines/pwr/pwr_engine.hpp"

namespace racepred {

namespace pwr {
std::unique_ptr<Engine> make_pwr(EngineContext& context, const PwrOptions& options) {
  return std::make_unique<PwrEngine<NoEdges>>(context, options);
}
}  // namespace pwr

void register_pwr_engines(std::vector<EngineInfo>& out) {
  using pwr::PwrOptions;
  const std::string seed_pwr =
      "seed 003 §6.1 (Def. 6.1); PWR paper (Sulzmann & Stadtmüller 2020) Alg. 1-4";
  const std::string complete_note =
      "complete only with every edge kept (pwr-edges-unbounded); unsound; race pairs";
  auto add = [&](std::string name, std::string description, std::string guarantee, std::string seed,
                 auto make, PwrOptions options) {
    out.push_back(EngineInfo{std::move(name), std::move(description), std::move(guarantee),
                             std::move(seed), EngineMode::Online,
                             [make, options](EngineContext& c) { return make(c, options); }});
  };
  const PwrOptions bounded;
  add("pwr", "PWR_L: PWR vector clocks, recent accesses RW(x), WRD races; 5 sections per lock",
      "unsound (complete up to RW(x) eviction, Fig. 10 of seed 003); race pairs", seed_pwr,
      pwr::make_pwr, PwrOptions{bounded.history, 0});
  add("pwr-unbounded", "pwr with every critical section kept in the lock histories",
      "unsound (complete up to RW(x) eviction); race pairs", seed_pwr, pwr::make_pwr,
      PwrOptions{pwr::kUnbounded, 0});
  add("pwr-edges", "PWR_L^{E+E}: pwr plus edge constraints (25 per variable, 5 sections per lock)",
      "unsound; finds the races RW(x) eviction hides, up to the edge bound; race pairs",
      seed_pwr + " + §4 edge constraints", pwr::make_pwr_edges, bounded);
  add("pwr-edges-unbounded", "PWR^{E+E}: every edge and critical section kept (exact PWR races)",
      "complete (seed 003 Cor. 6.4 with LH_S), unsound; race pairs",
      seed_pwr + " + §4 edge constraints", pwr::make_pwr_edges, pwr::kUnboundedOptions);
  const std::string seed_cs = "seed 003 §6.3 Algorithm 1 (LH_pwr, Def. 5.9)";
  add("pwr-cs", "PWR^CS: pwr with thread-indexed cross-thread lock sets LH_pwr (guard locks)",
      "unsound, reports a subset of pwr; race pairs, guard locks, Fig. 12 counts", seed_cs,
      pwr::make_pwr_cs, PwrOptions{bounded.history, 0});
  add("pwr-cs-unbounded", "pwr-cs with every critical section kept in the lock histories",
      "unsound, subset of pwr-unbounded; race pairs, guard locks", seed_cs, pwr::make_pwr_cs,
      PwrOptions{pwr::kUnbounded, 0});
  const std::string seed_e = "seed 003 App. G (Def. G.1, PWRE-3)";
  add("pwr-e", "PWR-E: pwr-cs plus release order through cross-thread critical sections",
      "unsound, reports a subset of pwr-cs; race pairs, guard locks", seed_e, pwr::make_pwr_e,
      PwrOptions{bounded.history, 0});
  add("pwr-e-unbounded", "pwr-e with every critical section kept in the lock histories",
      "unsound, subset of pwr-cs-unbounded; race pairs, guard locks", seed_e, pwr::make_pwr_e,
      PwrOptions{pwr::kUnbounded, 0});
}

}  // namespace racepred
