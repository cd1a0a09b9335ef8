// Cross-checks between engine families on random traces of the shared generator (the lemmas of
// the lecture seeds 001 and 004 that relate the engines to each other).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "racepred/driver/run.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace {

using Pairs = std::set<std::pair<EventId, EventId>>;

Pairs pairs_of(const RaceSink& sink) {
  Pairs out;
  for (const Race& r : sink.races()) out.emplace(r.first.event, r.second.event);
  return out;
}

std::set<EventId> events_of(const RaceSink& sink) {
  return {sink.racy_events().begin(), sink.racy_events().end()};
}

bool subset(const auto& a, const auto& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

int iterations(int normal) {
  return std::getenv("RACEPRED_SANITIZED") ? normal / 8 : normal;
}

GeneratorOptions random_options(uint64_t seed) {
  Rng rng(seed * 7919 + 1);
  const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                              ForkShape::Nested};
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 2 + static_cast<uint32_t>(rng.below(4));
  o.events = 8 + rng.below(50);
  o.variables = 1 + static_cast<uint32_t>(rng.below(4));
  o.locks = 1 + static_cast<uint32_t>(rng.below(3));
  o.nesting = static_cast<uint32_t>(rng.below(3));
  o.shape = shapes[seed % 4];
  o.cs_share = 0.5;
  o.local_share = 0.2;
  o.switch_share = 0.6;
  o.release_at_end = rng.chance(0.5);
  return o;
}

TEST(CrossEngineProperty, LectureLemmasOnRandomTraces) {
  const int count = iterations(4000);
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = 90000 + static_cast<uint64_t>(k);
    const Trace trace = generate_trace(random_options(seed));
    const RaceSink hb = run_engine("hb", trace);
    const RaceSink djit = run_engine("djit", trace);
    const RaceSink hb_pairs = run_engine("hb-pairs", trace);
    const RaceSink fasttrack = run_engine("fasttrack", trace);
    const RaceSink lockset = run_engine("lockset", trace);
    const RaceSink tsan1 = run_engine("tsan1", trace);
    const auto trace_text = [&] {
      return "seed " + std::to_string(seed) + "\n" + to_std_text(trace);
    };

    // djit's racy events are exactly the second events of hb's pairs.
    std::set<EventId> hb_seconds;
    for (const auto& [first, second] : pairs_of(hb)) hb_seconds.insert(second);
    ASSERT_EQ(events_of(djit), hb_seconds) << trace_text();
    // Every racy event of hb-pairs is racy for djit; its pairs are hb pairs, so djit's race
    // locations cover them.
    ASSERT_TRUE(subset(events_of(hb_pairs), events_of(djit))) << trace_text();
    ASSERT_TRUE(subset(pairs_of(hb_pairs), pairs_of(hb))) << trace_text();
    const auto& djit_locations = djit.racy_locations();
    for (const Race& r : hb_pairs.races())
      ASSERT_TRUE(
          std::binary_search(djit_locations.begin(), djit_locations.end(), r.second.location))
          << trace_text();
    // fasttrack's racy events are a subset of djit's.
    ASSERT_TRUE(subset(events_of(fasttrack), events_of(djit))) << trace_text();
    // tsan1 refines lockset with fork/join happens-before.
    ASSERT_TRUE(subset(pairs_of(tsan1), pairs_of(lockset))) << trace_text();
    // Every count equals what was listed (nothing was capped here).
    for (const RaceSink* sink : {&hb, &djit, &hb_pairs, &fasttrack, &lockset, &tsan1})
      ASSERT_EQ(sink->race_count(), sink->races().size()) << trace_text();
  }
}

}  // namespace
}  // namespace racepred
