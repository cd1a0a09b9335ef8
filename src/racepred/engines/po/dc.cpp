// dc: the doesn't-commute relation of Roemer, Genç and Bond (PLDI 2018), as Sulzmann and Thiemann
// §2.3 recalls it: WCP's rules (a) and (b) with thread order (program order, fork, join),
// transitive, and without WCP's composition with HB. Neither sound nor complete: Sulzmann and
// Thiemann Fig. 2 (a false race through a cross-thread critical section) and DC-2 (Vindicator Fig.
// 4a) have DC races that are no predictable races. Algorithm and state: dc_family.hpp (rule (b)
// on).
#include "racepred/engines/po/dc_family.hpp"

namespace racepred {
std::unique_ptr<Engine> make_dc(EngineContext& context) {
  return std::make_unique<po::DcFlat<po::DcConfig{.rule_b = true}>>(context);
}
}  // namespace racepred
