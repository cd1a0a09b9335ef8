// Tree clocks (tests/support/tree_clock.hpp) hold exactly the values of the flat happens-before
// clocks of ThreadClocks after every event of thousands of random traces (fork, join, nested and
// overlapping critical sections, up to 60 threads), and stay well-formed trees.
#include <gtest/gtest.h>

#include <string>

#include "racepred/clock/thread_clocks.hpp"
#include "racepred/trace/generator.hpp"
#include "support/small_traces.hpp"
#include "support/tree_clock.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

GeneratorOptions tree_trace_options(uint64_t seed) {
  Rng rng(seed * 7919 + 11);
  const ForkShape shapes[] = {ForkShape::None,   ForkShape::Fork,   ForkShape::ForkJoin,
                              ForkShape::Nested, ForkShape::Random, ForkShape::Churn};
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 2 + static_cast<uint32_t>(rng.below(59));
  o.events = 10 + rng.below(400);
  o.variables = 1 + static_cast<uint32_t>(rng.below(8));
  o.locks = 1 + static_cast<uint32_t>(rng.below(6));
  o.nesting = static_cast<uint32_t>(rng.below(4));
  o.shape = shapes[rng.below(6)];
  o.cs_share = 0.1 * static_cast<double>(rng.below(10));
  o.switch_share = 0.2 + 0.1 * static_cast<double>(rng.below(8));
  o.early_joins = rng.chance(0.5);
  o.nested_releases = rng.chance(0.7);
  return o;
}

TEST(TreeClocks, HoldTheValuesOfFlatClocksAfterEveryEvent) {
  const int n = testing::property_iterations(3000);
  uint64_t compared = 0;
  for (int seed = 1; seed <= n; ++seed) {
    const Trace trace = generate_trace(tree_trace_options(static_cast<uint64_t>(seed)));
    ThreadClocks flat;
    TreeHbClocks tree;
    for (size_t k = 0; k < trace.size(); ++k) {
      const Event& e = trace.events[k];
      flat.apply(e);
      tree.apply(e);
      // The clocks the event changed: its thread's, and the other thread of a fork or join.
      ThreadId changed[2] = {e.thread, e.thread};
      if (e.op == Op::Fork || e.op == Op::Join) changed[1] = e.target;
      for (const ThreadId i : changed) {
        const TreeClock& c = tree.thread_clock(i);
        ASSERT_TRUE(c.well_formed()) << "seed " << seed << " event " << k + 1 << " thread " << i;
        for (ThreadId t = 0; t < flat.threads(); ++t)
          ASSERT_EQ(c.get(t), flat.th(i)[t])
              << "seed " << seed << " event " << k + 1 << ": Th(" << i << ")(" << t << ")";
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, static_cast<uint64_t>(n) * 10);
}

TEST(TreeClocks, JoinSkipsWhatItKnowsAndCopyMovesTheRoot) {
  // T0 and T1 meet through lock L0 twice; T2 learns both through L0.
  TreeHbClocks tree;
  const auto ev = [](ThreadId t, Op op, uint32_t target) {
    Event e;
    e.thread = t;
    e.op = op;
    e.target = target;
    return e;
  };
  tree.apply(ev(0, Op::Acquire, 0));
  tree.apply(ev(0, Op::Release, 0));  // L0 = [2, 0, 0] rooted at T0, T0 = [3]
  tree.apply(ev(1, Op::Acquire, 0));  // T1 = [2, 1] + tick: [2, 2], T0 below T1
  EXPECT_EQ(tree.get(1, 0), 2u);
  EXPECT_EQ(tree.get(1, 1), 2u);
  EXPECT_EQ(tree.thread_clock(1).root(), 1u);
  tree.apply(ev(1, Op::Release, 0));  // L0 := T1 = [2, 2], rooted at T1 now
  tree.apply(ev(2, Op::Acquire, 0));  // T2 = [2, 2, 1] + tick
  EXPECT_EQ(tree.get(2, 0), 2u);
  EXPECT_EQ(tree.get(2, 1), 2u);
  EXPECT_EQ(tree.get(2, 2), 2u);
  EXPECT_TRUE(tree.thread_clock(2).well_formed());
  EXPECT_EQ(tree.get(0, 1), 0u);  // T0 never learnt of T1
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
