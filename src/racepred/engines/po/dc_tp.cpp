// dc-tp: DC for task-parallel programs (Ogles et al. 2019) as Def. F.1 of Sulzmann and Thiemann
// states it: the smallest strict partial order with
//   (D1) thread order (program order),
//   (D2) r1 < f for CSs (a1, r1), (a2, r2) on one lock, a1 before a2, e in the first CS
//        conflicting with f in the second,
//   (D3) fork(t, s) < every event of s,   (D4) every event of s < join(t, s).
// Def. F.1 assumes a single lock, as task-parallel programs have; its rules are well defined for
// any number of locks ("for some lock x"), and that is what this engine computes on any trace.
// As written, Def. F.1 has no release-release rule, so the relation coincides with wdc's; the
// engine shares wdc's algorithm (dc_family.hpp, rule (b) off). Sulzmann and Thiemann, "Cross-thread
// critical sections and efficient dynamic race prediction methods" Fig. 2 and Fig. 6 show DC_tp
// races that are no predictable races.
#include "racepred/engines/po/dc_family.hpp"

namespace racepred {
std::unique_ptr<Engine> make_dc_tp(EngineContext& context) {
  return std::make_unique<po::DcFlat<po::DcConfig{}>>(context);
}
}  // namespace racepred
