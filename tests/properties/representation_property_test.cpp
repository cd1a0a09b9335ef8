// The sparse / adaptive per-variable state of the registered engines gives exactly the reports
// of the dense reference forms (tests/support/hb_dense.hpp), on thousands of random traces with
// up to 40 threads on few variables, so that sets spill into full rows, shrink back, and the
// thread capacity grows while rows are in use.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "racepred/clock/thread_clocks.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/trace/generator.hpp"
#include "support/hb_dense.hpp"
#include "support/small_traces.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

GeneratorOptions crowded_trace_options(uint64_t seed) {
  Rng rng(seed * 104729 + 3);
  const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                              ForkShape::Nested};
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 2 + static_cast<uint32_t>(rng.below(39));
  o.events = 10 + rng.below(300);
  o.variables = 1 + static_cast<uint32_t>(rng.below(5));
  o.locks = 1 + static_cast<uint32_t>(rng.below(4));
  o.nesting = static_cast<uint32_t>(rng.below(3));
  o.shape = shapes[rng.below(4)];
  o.cs_share = 0.1 * static_cast<double>(rng.below(9));
  o.write_share = 0.1 + 0.1 * static_cast<double>(rng.below(8));
  o.local_share = 0.1;
  o.switch_share = 0.3 + 0.1 * static_cast<double>(rng.below(7));
  o.early_joins = rng.chance(0.5);
  return o;
}

using Row = std::tuple<EventId, ThreadId, LocationId, Op, EventId, ThreadId, VariableId>;

std::vector<Row> rows_of(const RaceSink& sink) {
  std::vector<Row> rows;
  for (const Race& r : sink.races())
    rows.emplace_back(r.first.event, r.first.thread, r.first.location, r.first.op, r.second.event,
                      r.second.thread, r.variable);
  return rows;
}

void expect_same(const char* engine, EngineFactory dense) {
  const int n = testing::property_iterations(3000);
  int spilled = 0;  // traces where some variable met more than two threads' accesses
  for (int seed = 1; seed <= n; ++seed) {
    const Trace trace = generate_trace(crowded_trace_options(static_cast<uint64_t>(seed)));
    const RaceSink sparse_sink = run_engine(engine, trace);
    const RaceSink dense_sink = run_engine(dense, trace);
    ASSERT_EQ(rows_of(sparse_sink), rows_of(dense_sink))
        << engine << " differs from its dense form, " << testing::trace_context(seed, trace);
    ASSERT_EQ(sparse_sink.racy_events(), dense_sink.racy_events()) << engine << ", seed " << seed;
    ASSERT_EQ(sparse_sink.race_count(), dense_sink.race_count()) << engine << ", seed " << seed;
    if (trace.symbols.threads.size() > 8 && dense_sink.race_count() > 4) ++spilled;
  }
  // The traces are crowded enough that many have races among many threads (spilled sets).
  EXPECT_GT(spilled, n / 10);
}

TEST(Representation, DjitEqualsDenseDjit) {
  expect_same("djit", make_djit_dense);
}

TEST(Representation, HbEpochsEqualsDenseHbEpochs) {
  expect_same("hb-epochs", make_hb_epochs_dense);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred

namespace racepred {
namespace RACEPRED_TEST_FILE {

// Slot reuse (clock/thread_clocks.hpp): with a budget of 2 slots, threads forked after joins
// take the slots of joined threads. The engines that drop ordered accesses (the PWR family
// too: its Th(i), LW(x) and release clocks are indexed by slot) report exactly what they report
// with a slot per thread; those that keep one entry per thread (djit, fasttrack's
// and hb-adaptive's read clocks) keep one per slot, so a later tenant's access replaces an
// earlier tenant's (which happens before it): the same racy events, pairs among the others.
GeneratorOptions churn_trace_options(uint64_t seed) {
  Rng rng(seed * 7727 + 5);
  GeneratorOptions o;
  o.seed = seed;
  o.shape = rng.chance(0.7) ? ForkShape::Churn : ForkShape::Nested;
  o.early_joins = true;
  o.threads = 3 + static_cast<uint32_t>(rng.below(30));
  o.live = 1 + static_cast<uint32_t>(rng.below(4));
  o.events = 20 + rng.below(300);
  o.variables = 1 + static_cast<uint32_t>(rng.below(5));
  o.locks = 1 + static_cast<uint32_t>(rng.below(3));
  o.nesting = static_cast<uint32_t>(rng.below(3));
  o.cs_share = 0.1 * static_cast<double>(rng.below(9));
  o.write_share = 0.5;
  o.local_share = 0.2;
  o.switch_share = 0.5;
  return o;
}

// The engines' options with thread slots reused past `budget`.
EngineOptions slot_budget_of(size_t budget) {
  EngineOptions options;
  options.clock_slot_budget = budget;
  return options;
}

std::set<std::pair<EventId, EventId>> pairs_of(const RaceSink& sink) {
  std::set<std::pair<EventId, EventId>> pairs;
  for (const Race& r : sink.races()) pairs.emplace(r.first.event, r.second.event);
  return pairs;
}

TEST(SlotReuse, SameRacyEventsAndPairsWithinAPerThreadSlot) {
  const int n = testing::property_iterations(2000);
  const char* exact_pairs[] = {
      "hb-epochs",           "hb-pairs",         "tsan1",          "pwr",
      "pwr-edges",           "pwr-cs",           "pwr-e",          "pwr-unbounded",
      "pwr-edges-unbounded", "pwr-cs-unbounded", "pwr-e-unbounded"};
  const char* fewer_pairs[] = {"djit", "fasttrack", "hb-adaptive"};
  int reusing = 0;  // traces on which slots were reused
  for (int seed = 1; seed <= n; ++seed) {
    const Trace trace = generate_trace(churn_trace_options(static_cast<uint64_t>(seed)));
    // Budgets 2..4: slots stay the identity until the budget is passed, and the threads joined
    // by then become free slots when the mapping starts.
    const size_t slot_budget = 2 + static_cast<size_t>(seed % 3);
    ThreadClocks clocks;
    clocks.reuse_slots_beyond(slot_budget);
    for (const Event& e : trace.events) clocks.apply(e);
    if (clocks.threads() < trace.symbols.threads.size()) ++reusing;
    for (const char* engine : exact_pairs) {
      const RaceSink wide = run_engine(engine, trace);
      const RaceSink reused = run_engine(engine, trace, slot_budget_of(slot_budget));
      ASSERT_EQ(rows_of(reused), rows_of(wide))
          << engine << " with slot reuse, " << testing::trace_context(seed, trace);
      ASSERT_EQ(reused.racy_events(), wide.racy_events()) << engine << ", seed " << seed;
    }
    for (const char* engine : fewer_pairs) {
      const RaceSink wide = run_engine(engine, trace);
      const RaceSink reused = run_engine(engine, trace, slot_budget_of(slot_budget));
      ASSERT_EQ(reused.racy_events(), wide.racy_events())
          << engine << " with slot reuse, " << testing::trace_context(seed, trace);
      const auto a = pairs_of(reused), b = pairs_of(wide);
      for (const auto& p : a)
        ASSERT_TRUE(b.count(p)) << engine << " with slot reuse reports (" << p.first << ","
                                << p.second << "), " << testing::trace_context(seed, trace);
      // Threads are named correctly: every reported access's thread is its event's thread.
      for (const Race& r : reused.races()) {
        ASSERT_EQ(r.first.thread, trace.events[r.first.event - 1].thread) << engine << " " << seed;
        ASSERT_EQ(r.second.thread, trace.events[r.second.event - 1].thread)
            << engine << " " << seed;
      }
    }
  }
  EXPECT_GT(reusing, n / 2);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred

namespace racepred {
namespace RACEPRED_TEST_FILE {

// Sparse clocks where threads are many: ThreadClocks past its sparse threshold keeps
// Th(i) and Rel(y) as lists of non-zero entries with a few unpacked rows (clock/
// thread_clocks.hpp), and fasttrack's and hb-adaptive's per-variable vector clocks become
// sparse from EngineOptions::sparse_vc_threads on (engines/hb/sparse_vc.hpp). Lowering both
// thresholds makes every random trace with more than a handful of threads take those paths
// (with more threads than unpacked rows, so clocks are packed and unpacked all the time); every
// engine that uses ThreadClocks reports exactly what it reports with flat clocks, in the same
// order. A third of the traces take read locks (sparse RelR(y)). shb and wcp (po engines on
// ThreadClocks, wcp with a second one for P) are checked the same way.

// Every engine of `engines` reports exactly what it reports with dense clocks when the clocks
// go sparse at `threshold` slots: the same races in the same order, racy events, counts, guard
// confirmations and cs-guarded pairs (the PWR family's). Slot budget per seed: budget(seed).
// An engine's own statistics (pwr-cs: guard-lock confirmations, cs-guarded location pairs).
std::vector<std::pair<std::string, uint64_t>> stats_of(const RaceSink& sink) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const ExtraStat& s : sink.extras().stats) out.emplace_back(s.key, s.value);
  return out;
}

void expect_sparse_same(GeneratorOptions (*options)(uint64_t), int iterations,
                        const std::vector<const char*>& engines, size_t threshold,
                        size_t (*budget)(int seed)) {
  const int n = testing::property_iterations(iterations);
  int sparse = 0;  // traces on which the clocks went sparse
  for (int seed = 1; seed <= n; ++seed) {
    GeneratorOptions o = options(static_cast<uint64_t>(seed));
    if (seed % 3 == 0) o.read_lock_share = 0.4;
    const Trace trace = generate_trace(o);
    {
      ThreadClocks clocks(false);
      clocks.sparse_beyond(threshold);
      clocks.reuse_slots_beyond(budget(seed));
      for (const Event& e : trace.events) clocks.apply(e);
      if (clocks.sparse()) ++sparse;
    }
    for (const char* engine : engines) {
      // Sparse thread clocks past `threshold` slots, sparse per-variable vector clocks from 8
      // threads on.
      const EngineOptions flat = slot_budget_of(budget(seed));
      EngineOptions sparse_options = flat;
      sparse_options.clock_sparse_slots = threshold;
      sparse_options.sparse_vc_threads = 8;
      const RaceSink dense = run_engine(engine, trace, flat);
      const RaceSink packed = run_engine(engine, trace, sparse_options);
      ASSERT_EQ(rows_of(packed), rows_of(dense))
          << engine << " with sparse clocks, " << testing::trace_context(seed, trace);
      ASSERT_EQ(packed.racy_events(), dense.racy_events()) << engine << ", seed " << seed;
      ASSERT_EQ(packed.race_count(), dense.race_count()) << engine << ", seed " << seed;
      ASSERT_EQ(stats_of(packed), stats_of(dense)) << engine << ", seed " << seed;
    }
  }
  EXPECT_GT(sparse, n / 2);
}

const std::vector<const char*> kHbEngines = {
    "fasttrack", "djit", "hb-epochs", "hb-adaptive", "hb-pairs", "tsan1", "hb", "shb", "wcp"};
size_t default_budget(int) {
  return EngineOptions{}.clock_slot_budget;
}
size_t budget_of_two(int) {
  return 2;
}

TEST(SparseClocks, SameReportsAsFlatClocksOnCrowdedTraces) {
  expect_sparse_same(crowded_trace_options, 1000, kHbEngines, 3, default_budget);
}

// With slot reuse as well (budget 2): threads take the slots of joined threads while the
// clocks are sparse.
TEST(SparseClocks, SameReportsAsFlatClocksWithSlotReuse) {
  expect_sparse_same(churn_trace_options, 1000, kHbEngines, 3, budget_of_two);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred

namespace racepred {
namespace RACEPRED_TEST_FILE {

// The PWR family with sparse clocks (20,000 threads alive at once): past the sparse
// threshold PwrClocks keeps Th(i) in ThreadClocks' sparse mode and its snapshots (LW(x), the
// release clocks of H(y), pwr-e's V(f)) as lists of non-zero entries. With the threshold at 2
// slots every trace with 3 threads or more takes those paths, from the middle of the trace on
// (the switch packs what exists), with more threads than unpacked rows on the crowded traces;
// with thread churn and slot budgets of 2–4 (or none), and read-write locks on a third of the
// traces. Every engine reports exactly what it reports with dense clocks: the same races in the
// same order, racy events, counts, guard confirmations and cs-guarded pairs.
const std::vector<const char*> kPwrEngines = {
    "pwr",           "pwr-edges",           "pwr-cs",           "pwr-e",
    "pwr-unbounded", "pwr-edges-unbounded", "pwr-cs-unbounded", "pwr-e-unbounded"};
size_t pwr_budget(int seed) {
  return seed % 4 == 0 ? SIZE_MAX : 2 + static_cast<size_t>(seed % 3);
}

TEST(SparseClocks, PwrFamilySameReportsAsDenseOnCrowdedTraces) {
  expect_sparse_same(crowded_trace_options, 1500, kPwrEngines, 2, pwr_budget);
}

TEST(SparseClocks, PwrFamilySameReportsAsDenseWithChurn) {
  expect_sparse_same(churn_trace_options, 1500, kPwrEngines, 2, pwr_budget);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
