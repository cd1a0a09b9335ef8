// The rule-(a) engines with every nested critical section deep (EngineOptions::po_deep_level
// 1 or 2: records on the lock and the settled test of engines/po/nesting.hpp instead of slots
// per variable) equal their definitions (the reference) and the engines at the default level,
// on random traces with nested sections released in any order, read locks and thread slot reuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include "racepred/driver/run.hpp"
#include "racepred/engines/options.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"
#include "support/po_reference.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

int iterations(int normal) {
  if (std::getenv("RACEPRED_SANITIZED")) return normal / 8;
  const char* scale = std::getenv("RACEPRED_PROPERTY_SCALE");
  const long k = scale != nullptr ? std::strtol(scale, nullptr, 10) : 1;
  return k > 1 ? static_cast<int>(std::min<long>(long{normal} * k, 1L << 30)) : normal;
}

testing::PoVerdict verdict_of(const RaceSink& sink) {
  testing::PoVerdict v;
  for (const Race& r : sink.races()) v.pairs.emplace(r.first.event, r.second.event);
  v.racy_events.insert(sink.racy_events().begin(), sink.racy_events().end());
  return v;
}

GeneratorOptions nested_options(uint64_t seed) {
  Rng rng(seed * 7919 + 3);
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 2 + static_cast<uint32_t>(rng.below(3));
  o.events = 10 + rng.below(40);
  o.variables = 1 + static_cast<uint32_t>(rng.below(3));
  o.locks = 1 + static_cast<uint32_t>(rng.below(5));
  o.nesting = 1 + static_cast<uint32_t>(rng.below(4));
  o.nest_chance = 0.4;
  o.release_chance = 0.15;
  o.nested_releases = rng.chance(0.5);  // else any held lock is released
  o.shape = seed % 3 == 0 ? ForkShape::ForkJoin : ForkShape::Fork;
  o.cs_share = 0.8;
  o.write_share = 0.5;
  o.local_share = 0.1;
  o.guarded_share = 0.6;
  o.switch_share = 0.5;
  o.read_lock_share = seed % 4 == 1 ? 0.4 : 0;
  return o;
}

TEST(PoNestingProperty, DeepSectionsEqualTheDefinitionsAndTheSlots) {
  const int count = iterations(3000);
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = 90000 + static_cast<uint64_t>(k);
    const Trace trace = generate_trace(nested_options(seed));
    for (const char* engine : {"wcp", "dc", "wdc", "dc-tp", "wdp"}) {
      EngineOptions deep;
      deep.po_deep_level = 1 + seed % 2;
      if (seed % 5 == 2) deep.clock_slot_budget = 2;  // slots of joined threads reused
      const testing::PoVerdict got = verdict_of(run_engine(engine, trace, deep));
      const testing::PoVerdict shallow = verdict_of(run_engine(engine, trace));
      ASSERT_EQ(got.pairs, shallow.pairs) << engine << " seed " << seed << "\n"
                                          << to_std_text(trace);
      ASSERT_EQ(got.racy_events, shallow.racy_events) << engine << " seed " << seed;
      if (k % 4 == 0) {  // the reference is slower
        const testing::PoVerdict expected = testing::po_reference(trace, engine);
        ASSERT_EQ(got.pairs, expected.pairs) << engine << " seed " << seed << "\n"
                                             << to_std_text(trace);
      }
    }
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
