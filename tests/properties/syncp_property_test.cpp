// The syncp engine (engines/syncp/) against the definition of sync-preserving races (Mathur,
// Pavlogiannis and Viswanathan, "Optimal prediction of synchronization-preserving races", POPL
// 2021) computed per pair (tests/support/syncp_reference.hpp), its witnesses against the
// checker of correct reorderings, and the containments the paper states: every race that SHB
// reports has a witness that keeps the trace's lock order, and so does the first HB race.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "racepred/driver/run.hpp"
#include "racepred/engines/syncp/syncp.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/trace_index.hpp"
#include "support/exact_support.hpp"
#include "support/small_traces.hpp"
#include "support/syncp_reference.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using testing::Pairs;

// Small traces (2-4 threads, up to 20 events), every third one with read-write locks.
Trace small_trace(uint64_t seed) {
  GeneratorOptions o = testing::small_trace_options(seed);
  if (seed % 3 == 1) o.read_lock_share = 0.5;
  return generate_trace(o);
}

// Medium traces (2-5 threads, up to 57 events, nested sections), some with read-write locks.
Trace medium_trace(uint64_t seed) {
  GeneratorOptions o = testing::medium_trace_options(seed);
  if (seed % 4 == 3) o.read_lock_share = 0.4;
  return generate_trace(o);
}

using testing::engine_pairs;
using testing::pair_text;
using testing::racy;
using testing::show;

// The engine reports, for each racy event and each other thread and operation, the earliest
// sync-preserving partner, so its racy events are exactly those of the definition.
void check_against_reference(const Trace& trace, int& racy_traces) {
  const TraceIndex t(trace);
  const Pairs all = testing::syncp_all_races(t);
  const Pairs expected = testing::syncp_earliest_partners(t, all);
  Pairs got = syncp::races(t);  // in order of e2
  std::sort(got.begin(), got.end());
  EXPECT_EQ(show(t, got), show(t, expected));
  EXPECT_EQ(racy(got), racy(all));
  EXPECT_EQ(show(t, engine_pairs(t, run_engine("syncp", trace))), show(t, expected))
      << "the registered engine differs from syncp::races";
  if (!got.empty()) ++racy_traces;
}

TEST(Syncp, EqualsTheDefinitionOnSmallTraces) {
  const int n = testing::property_iterations(3000);
  int racy_traces = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = small_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    check_against_reference(trace, racy_traces);
    if (HasFailure()) break;
  }
  EXPECT_GT(racy_traces, n / 10);
}

TEST(Syncp, EqualsTheDefinitionOnMediumTraces) {
  const int n = testing::property_iterations(1000);
  int racy_traces = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = medium_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    check_against_reference(trace, racy_traces);
    if (HasFailure()) break;
  }
  EXPECT_GT(racy_traces, n / 10);
}

// Small traces where threads end and later ones take their slots: short-lived threads (churn,
// at most two alive) and free-form forks and joins (a thread may be joined by any other, end
// holding locks, or never run).
Trace slot_trace(uint64_t seed) {
  GeneratorOptions o = testing::small_trace_options(seed);
  o.threads = 4 + static_cast<uint32_t>(seed % 5);
  o.events = 12 + seed % 29;
  o.shape = seed % 2 ? ForkShape::Churn : ForkShape::Random;
  o.live = 1 + static_cast<uint32_t>(seed % 3);
  if (seed % 3 == 1) o.read_lock_share = 0.4;
  return generate_trace(o);
}

// A thread forked after its forker joined another takes that one's slot: the races and the
// ideals are the definition's there too, and the same as with a slot per thread.
TEST(Syncp, EqualsTheDefinitionWhenThreadsShareSlots) {
  const int n = testing::property_iterations(2000);
  int racy_traces = 0, shared = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = slot_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    check_against_reference(trace, racy_traces);
    const TraceIndex t(trace);
    if (syncp::slot_count(t) < t.thread_count()) ++shared;
    Pairs own = syncp::races(t, false), got = syncp::races(t);
    EXPECT_EQ(show(t, got), show(t, own)) << "slots shared vs one per thread";
    for (const auto& [e1, e2] : got)
      EXPECT_EQ(syncp::ideal(t, e1, e2),
                testing::syncp_ideal_prefixes(t, testing::syncp_ideal_set(t, e1, e2)))
          << "race " << pair_text(t, e1, e2);
    if (HasFailure()) break;
  }
  EXPECT_GT(racy_traces, n / 10);
  EXPECT_GT(shared, n / 4);
}

// Go-style churn at a size the definition cannot check: hundreds of short-lived threads in a
// few slots, the same races as with a slot per thread.
TEST(Syncp, ManyShortLivedThreadsInFewSlots) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    GeneratorOptions o;
    o.seed = seed;
    o.threads = 400;
    o.events = 6000;
    o.variables = 40;
    o.locks = 4;
    o.shape = ForkShape::Churn;
    o.live = 2 + static_cast<uint32_t>(seed % 4);
    o.local_share = 0.3;
    if (seed % 2 == 0) o.read_lock_share = 0.3;
    const Trace trace = generate_trace(o);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    EXPECT_LE(syncp::slot_count(t), 2 * o.live + 2);
    const Pairs got = syncp::races(t);
    EXPECT_EQ(show(t, got), show(t, syncp::races(t, false)));
    EXPECT_GT(got.size(), 10u);
  }
}

// Every sync-preserving race of the definition (not only the reported ones) is a race of the
// enabled ground truth: the definition is sound, and the ideal never holds e2.
TEST(Syncp, DefinitionIsWithinTheEnabledGroundTruth) {
  const int n = testing::property_iterations(1500);
  int races = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = small_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    exact::SearchOptions options;
    options.notion = exact::RaceNotion::Enabled;
    const auto truth = exact::search(t, options).races;
    const std::set<std::pair<uint32_t, uint32_t>> enabled(truth.begin(), truth.end());
    for (const auto& [e1, e2] : t.conflicting_pairs()) {
      const std::vector<bool> in = testing::syncp_ideal_set(t, e1, e2);
      EXPECT_FALSE(in[e2]) << "e" << t.id(e2) << " in its own ideal";
      if (!in[e1]) {
        ++races;
        EXPECT_TRUE(enabled.count({e1, e2})) << "(" << t.id(e1) << "," << t.id(e2) << ")";
      }
    }
    if (HasFailure()) break;
  }
  EXPECT_GT(races, n / 5);
}

// The witness of every reported race: I(e1, e2) in trace order is a correctly reordered prefix
// after which e1 and e2 are both enabled (next in their threads, their threads started); the
// engine's ideal is the definition's.
TEST(Syncp, WitnessesAreCorrectReorderingsWithBothEventsEnabled) {
  const int n = testing::property_iterations(2000);
  int witnesses = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = small_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    for (const auto& [e1, e2] : syncp::races(t)) {
      SCOPED_TRACE("race " + pair_text(t, e1, e2));
      const std::vector<uint32_t> ideal = syncp::ideal(t, e1, e2);
      EXPECT_EQ(ideal, testing::syncp_ideal_prefixes(t, testing::syncp_ideal_set(t, e1, e2)));
      std::vector<uint32_t> order = syncp::witness(t, e1, e2);
      ASSERT_GE(order.size(), 2u);
      EXPECT_EQ(order[order.size() - 2], e1);
      EXPECT_EQ(order.back(), e2);
      order.resize(order.size() - 2);
      EXPECT_EQ(testing::check_reordering(t, order), "");
      const std::set<uint32_t> done(order.begin(), order.end());
      for (const uint32_t e : {e1, e2}) {
        const ThreadId u = t.event(e).thread;
        EXPECT_EQ(ideal[u], t.index_in_thread(e)) << "e" << t.id(e) << " is not next in its thread";
        const uint32_t fork = t.fork_of(u);
        EXPECT_TRUE(fork == kNoIndex || done.count(fork))
            << "thread of e" << t.id(e) << " not started";
      }
      ++witnesses;
    }
    if (HasFailure()) break;
  }
  EXPECT_GT(witnesses, n / 5);
}

// Sync-preserving races include SHB's: every pair shb reports is sync-preserving (the SHB
// witness is a subsequence of the trace), so its racy events are among syncp's; and the first
// HB race (fasttrack's earliest racy event with its latest partner) is sync-preserving.
TEST(Syncp, ContainsShbRacesAndTheFirstHbRace) {
  const int n = testing::property_iterations(3000);
  int shb_races = 0, hb_first = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = seed % 2 ? small_trace(seed) : medium_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    const Pairs all = testing::syncp_all_races(t);
    const std::set<std::pair<uint32_t, uint32_t>> sync(all.begin(), all.end());
    const std::set<uint32_t> sync_racy = racy(syncp::races(t));
    for (const auto& [e1, e2] : engine_pairs(t, run_engine("shb", trace))) {
      ++shb_races;
      EXPECT_TRUE(sync.count({e1, e2})) << "shb pair (" << t.id(e1) << "," << t.id(e2) << ")";
      EXPECT_TRUE(sync_racy.count(e2)) << "shb racy event " << t.id(e2);
    }
    const Pairs hb = engine_pairs(t, run_engine("fasttrack", trace));
    if (!hb.empty()) {
      uint32_t first = UINT32_MAX, partner = 0;
      for (auto [a, b] : hb) first = std::min(first, b);
      for (auto [a, b] : hb)
        if (b == first) partner = std::max(partner, a);
      ++hb_first;
      EXPECT_TRUE(sync.count({partner, first}))
          << "first HB race (" << t.id(partner) << "," << t.id(first) << ")";
    }
    if (HasFailure()) break;
  }
  EXPECT_GT(shb_races, n / 5);
  EXPECT_GT(hb_first, n / 10);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
