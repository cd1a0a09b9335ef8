// lockset on the project's random well-formed traces (trace/generator.hpp): its pairs are
// exactly the definition's (Sulzmann, "Lock sets": conflicting, disjoint lock sets), whatever the
// thread shape, nesting and sharing; and the analyze pipeline gives the same results as the engine
// run directly. Prints the failing seed and its trace in STD.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "racepred/driver/pipeline.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/trace/generator.hpp"
#include "support/lockset_oracle.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

std::string to_std(const Trace& trace) {
  std::string s;
  for (const Event& e : trace.events) s += trace.to_std(e) + "\n";
  return s;
}

using testing_support::Pair;

TEST(LocksetProperty, PairsAreExactlyTheDefinitionsOnGeneratedTraces) {
  const int runs = std::getenv("RACEPRED_SANITIZED") ? 300 : 3000;
  const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                              ForkShape::Nested};
  for (int run = 0; run < runs; ++run) {
    GeneratorOptions o;
    o.seed = 5000 + static_cast<uint64_t>(run);
    Rng rng(o.seed);
    o.threads = 1 + static_cast<uint32_t>(rng.below(5));
    o.events = 1 + rng.below(80);
    o.variables = 1 + static_cast<uint32_t>(rng.below(4));
    o.locks = 1 + static_cast<uint32_t>(rng.below(run % 7 == 0 ? 90 : 4));
    o.nesting = static_cast<uint32_t>(rng.below(4));
    o.shape = shapes[run % 4];
    o.cs_share = 0.2 * static_cast<double>(rng.below(5));
    o.local_share = 0.3;
    o.guarded_share = 0.5;
    const Trace trace = generate_trace(o);
    const std::vector<Pair> pairs = testing_support::lockset_pairs_brute_force(trace);
    const size_t max_kept = run % 3 == 0 ? 2 : 1000;
    const RaceSink sink = run_engine("lockset", trace, max_kept);

    std::vector<EventId> racy;
    for (const Pair& p : pairs)
      if (racy.empty() || racy.back() != p.second) racy.push_back(p.second);
    std::set<std::pair<EventId, EventId>> kept;
    for (size_t i = 0; i < pairs.size() && i < max_kept; ++i)
      kept.insert({pairs[i].first, pairs[i].second});
    std::set<std::pair<EventId, EventId>> got;
    for (const Race& r : sink.races()) got.insert({r.first.event, r.second.event});
    const bool ok = sink.race_count() == pairs.size() && sink.racy_events() == racy && got == kept;
    ASSERT_TRUE(ok) << "seed " << o.seed << ": lockset counted " << sink.race_count()
                    << " races, the definition gives " << pairs.size() << "; trace:\n"
                    << to_std(trace);
  }
}

TEST(LocksetProperty, AnalyzePipelineAgreesWithTheEngine) {
  const int runs = std::getenv("RACEPRED_SANITIZED") ? 100 : 500;
  const auto engines = resolve_engines({"lockset"});
  for (int run = 0; run < runs; ++run) {
    GeneratorOptions o;
    o.seed = 9000 + static_cast<uint64_t>(run);
    o.threads = 2 + static_cast<uint32_t>(run % 5);
    o.events = 200 + static_cast<uint64_t>(run % 13) * 37;
    o.variables = 20;
    o.locks = 6;
    o.shape = run % 2 ? ForkShape::Nested : ForkShape::ForkJoin;
    const Trace trace = generate_trace(o);
    const std::string text = to_std(trace);
    const RaceSink direct = run_engine("lockset", trace, 50);
    PipelineOptions options;
    options.max_races = 50;
    options.batch_size = 1 + static_cast<size_t>(run % 64);
    options.threaded = run % 3 != 0;
    const PipelineResult result = run_pipeline_on_text(text, "gen.std", engines, options);
    const RaceSink& piped = result.runs[0].sink;
    ASSERT_EQ(result.events, trace.size());
    ASSERT_EQ(piped.race_count(), direct.race_count()) << "seed " << o.seed << "\n" << text;
    // The pipeline bounds the racy-event list by max_races (the count stays exact).
    ASSERT_EQ(piped.racy_event_count(), direct.racy_event_count()) << "seed " << o.seed;
    ASSERT_LE(piped.racy_events().size(), 50u);
    ASSERT_TRUE(std::equal(piped.racy_events().begin(), piped.racy_events().end(),
                           direct.racy_events().begin()))
        << "seed " << o.seed;
    ASSERT_EQ(piped.races().size(), direct.races().size()) << "seed " << o.seed;
    for (size_t i = 0; i < piped.races().size(); ++i) {
      ASSERT_EQ(piped.races()[i].first.event, direct.races()[i].first.event) << "seed " << o.seed;
      ASSERT_EQ(piped.races()[i].second.event, direct.races()[i].second.event) << "seed " << o.seed;
    }
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
