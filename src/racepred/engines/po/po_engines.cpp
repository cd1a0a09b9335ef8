// Registration of the predictive partial-order engines (seed 003 §2.3, §8, appendices B-F).
#include <memory>
#include <vector>

#include "racepred/engines/engine.hpp"

namespace racepred {
namespace po {
std::unique_ptr<Engine> make_shb(EngineContext& context);
std::unique_ptr<Engine> make_wcp(EngineContext& context);
std::unique_ptr<Engine> make_sdp(EngineContext& context);
std::unique_ptr<Engine> make_dc_tp(EngineContext& context);
std::unique_ptr<Engine> make_dc(EngineContext& context);
std::unique_ptr<Engine> make_wdc(EngineContext& context);
std::unique_ptr<Engine> make_wdp(EngineContext& context);
}  // namespace po

void register_po_engines(std::vector<EngineInfo>& out) {
  const char* pairs =
      " Reports, for every racy access, the latest unordered conflicting access of each other "
      "thread (per kind).";
  out.push_back(EngineInfo{
      "shb",
      "schedulable happens-before: HB (with fork/join) plus last write -> read; vector clocks",
      std::string("sound for every reported pair, not only the first: each pair is a race "
                  "under the enabled notion (both accesses enabled after one correct "
                  "reordering; `exact --enabled`); not complete (misses races that need "
                  "critical sections reordered).") +
          pairs,
      "003: §8 (SHB); Mathur, Kini, Viswanathan, OOPSLA 2018", EngineMode::Online, po::make_shb});
  out.push_back(EngineInfo{
      "wcp",
      "weak causal precedence (Def. B.3): rules (a), (b), composition with HB, fork/join; "
      "linear-time queue algorithm, both known pitfalls fixed",
      std::string("weakly sound: if the first reported race is not a predictable race, some "
                  "correct reordering gets stuck on locks (a predictable deadlock in the "
                  "cross-thread sense of Def. B.7, not always in the classic sense: seed 003 "
                  "Fig. 5); later races may be false; not complete.") +
          pairs,
      "003: §2.3, appendices B-D (Def. B.3); Kini, Mathur, Viswanathan, PLDI 2017",
      EngineMode::Online, po::make_wcp});
  out.push_back(EngineInfo{
      "sdp", "strong dependently precedes (Def. E.1, S1-S7) with the standard lock-set filter",
      std::string("unsound even for the first race: seed 003 Fig. 13 (appendix A, E) has an "
                  "SDP race that is neither a predictable race nor stuck; not complete. Exact "
                  "but quadratic in the write-write conflicts under common locks.") +
          pairs,
      "003: §2.3, appendices A and E (Def. E.1); Genç, Roemer, Xu, Bond, OOPSLA 2019",
      EngineMode::Online, po::make_sdp});
  out.push_back(EngineInfo{
      "dc-tp",
      "DC for task-parallel programs (Def. F.1: D1-D4 for every lock; same relation as wdc)",
      std::string("races may be false, even the first (seed 003 Fig. 2, Fig. 6); not "
                  "complete.") +
          pairs,
      "003: §2.3, appendix F (Def. F.1); Ogles et al. 2019", EngineMode::Online, po::make_dc_tp});
  out.push_back(EngineInfo{
      "dc",
      "doesn't commute: rules (a), (b), thread order with fork/join, transitive, no HB "
      "composition; vector clocks with per-thread CS queues",
      std::string("races may be false, even the first (seed 003 Fig. 2; Vindicator Fig. 4a); "
                  "not complete. Reports every wcp race.") +
          pairs,
      "003: §2.3; Roemer, Genç, Bond, PLDI 2018", EngineMode::Online, po::make_dc});
  out.push_back(EngineInfo{
      "wdc", "weak doesn't commute: dc without rule (b); vector clocks, no queues",
      std::string("races may be false, even the first (more than dc: trace WCP-4); not "
                  "complete. Reports every dc race.") +
          pairs,
      "ALGORITHMS: Roemer, Genç, Bond, SmartTrack, PLDI 2020", EngineMode::Online, po::make_wdc});
  out.push_back(EngineInfo{
      "wdp",
      "weak dependently precedes: write -> read rule (a) to an assumed branch after every read, "
      "thread order, transitive; standard lock-set filter",
      std::string("races may be false; not complete here either: with a branch assumed after "
                  "every read it orders more than WDP with real branch events, and rule (a) "
                  "orders releases before reads that do not read from them.") +
          pairs,
      "003: §2.3 (WDP); Genç, Roemer, Xu, Bond, OOPSLA 2019", EngineMode::Online, po::make_wdp});
}

}  // namespace racepred
