// wdp: weak-dependently-precedes (Genç, Roemer, Xu, Bond, OOPSLA 2019), Sulzmann and Thiemann §2.3:
// rule (a) only for a write in the earlier CS and a read in the later one, thread order (program
// order, fork, join), transitive, no rule (b), no composition with HB; a race also needs disjoint
// standard lock sets. WDP's edge goes from the release r1 to the next branch that depends on the
// read. racepred's traces have no branch events, so this engine assumes a branch right after every
// read that depends on it (the approximation of Genç et al.'s implementation): r1 is ordered
// before every later event of the reading thread, not before the read itself. Cost in precision:
// reads that no branch depends on still order what follows them, so races real WDP reports
// after such reads are missed; under Sulzmann and Thiemann's correctness notion (Def. 3.4 keeps the
// last write of every read, as if every read fed a branch) the approximation is the natural
// reading. Algorithm and state: dc_family.hpp (write -> read rule (a) after the read, lock-set
// filter).
#include "racepred/engines/po/dc_family.hpp"

namespace racepred {
std::unique_ptr<Engine> make_wdp(EngineContext& context) {
  return std::make_unique<po::DcFlat<po::DcConfig{.write_read = true, .lockset = true}>>(context);
}
}  // namespace racepred
