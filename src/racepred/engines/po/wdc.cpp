// wdc: weak-doesn't-commute (Roemer, Genç, Bond, SmartTrack, PLDI 2020): DC without rule (b), i.e.
// thread order (program order, fork, join) plus rule (a), transitive. Orders less than dc, so
// it reports every dc race and more (trace WCP-4 / DC-3: a false race dc does not report).
// Algorithm and state: dc_family.hpp (rule (b) off).
#include "racepred/engines/po/dc_family.hpp"

namespace racepred {
std::unique_ptr<Engine> make_wdc(EngineContext& context) {
  return std::make_unique<po::DcFlat<po::DcConfig{}>>(context);
}
}  // namespace racepred
