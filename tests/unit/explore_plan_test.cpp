// The plan (format/explore_plan.hpp): the runtime's in-process choice code must choose exactly
// what each strategy's choose() chooses, point for point, over many executions of generated
// programs (no process): threads of steps with locks, spinning atomics, yields and sleeps
// (fairness), memory accesses, spurious wake-up offers and timeout points. Random, PCT (depth
// 1 to 3), dfs (synchronisation points and the Goldilocks reduction, with racy access points
// marked at random), the portfolio and replay (with choices that diverge).
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "racepred/explore/strategy.hpp"
#include "racepred/format/explore_plan.hpp"

namespace racepred::explore {
namespace RACEPRED_TEST_FILE {

namespace ch = format::explore;

struct Step {
  uint8_t op = ch::kOpMutexLock;
  uint64_t obj = 0;
  bool spurious = false;  // offered as a spurious wake-up (a condition wait, times_out)
};

// A generated program: steps per thread; at some points every candidate is a timeout.
struct Program {
  std::vector<std::vector<Step>> threads;
  uint64_t timeout_every = 0;  // every k-th point is a timeouts point (0: none)
};

Program generate(std::mt19937_64& rng) {
  Program p;
  const uint32_t n = 2 + static_cast<uint32_t>(rng() % 3);
  p.threads.resize(n);
  for (auto& steps : p.threads) {
    const size_t len = 2 + rng() % 7;
    for (size_t i = 0; i < len; ++i) {
      Step s;
      switch (rng() % 8) {
        case 0:
        case 1:  // a spin: the same atomic several times
          s.op = ch::kOpAtomic;
          s.obj = 0x40;
          break;
        case 2:
          s.op = ch::kOpYield;
          break;
        case 3:
          s.op = ch::kOpSleep;
          break;
        case 4:
          s.op = ch::kOpAccess;
          s.obj = 0x1000 + 8 * (rng() % 3);
          break;
        case 5:
          s.op = ch::kOpCondWait;
          s.obj = 0x80;
          s.spurious = rng() % 2;
          break;
        default:
          s.op = ch::kOpMutexLock;
          s.obj = 0x100 + 8 * (rng() % 2);
      }
      steps.push_back(s);
    }
  }
  p.timeout_every = rng() % 3 == 0 ? 3 + rng() % 4 : 0;
  return p;
}

// One execution: at each point with two or more candidates the strategy chooses, and the
// planner (started from the strategy's plan) must choose the same.
std::vector<ChoicePoint> run(const Program& program, Strategy& strategy, std::string& mismatch) {
  ExecutionPlan plan;
  const bool planned = strategy.plan(plan);
  auto planner = std::make_unique<ch::Planner>();
  if (planned) {
    ch::PlanHeader h;
    h.kind = plan.kind;
    h.seed = plan.seed;
    h.points = plan.points;
    h.depth = plan.depth;
    h.prefix = plan.prefix.size();
    planner->start(h, plan.prefix.data());
  }
  std::vector<size_t> at(program.threads.size(), 0);
  uint32_t current = 0;
  std::vector<ChoicePoint> points;
  for (uint64_t hook = 0;; ++hook) {
    ChoicePoint p;
    p.current = current;
    p.timeouts = program.timeout_every && hook % program.timeout_every == 0;
    std::vector<ch::ChoiceThread> threads;
    for (uint32_t t = 0; t < program.threads.size(); ++t) {
      if (at[t] >= program.threads[t].size()) continue;
      const Step& s = program.threads[t][at[t]];
      p.candidates.push_back({t, s.op, s.obj, 0, s.spurious});
      ch::ChoiceThread c;
      c.tid = t;
      c.op = s.op;
      c.obj = s.obj;
      c.times_out = s.spurious ? 1 : 0;
      threads.push_back(c);
    }
    if (p.candidates.empty()) break;
    size_t index = 0;
    if (p.candidates.size() > 1) {
      index = strategy.choose(p, points.size());
      EXPECT_LT(index, p.candidates.size());
      if (planned && mismatch.empty()) {
        uint32_t theirs = UINT32_MAX;
        if (!planner->choose(threads.data(), static_cast<uint32_t>(threads.size()), current,
                             p.timeouts, points.size(), theirs))
          mismatch = "the planner declined point " + std::to_string(points.size());
        else if (theirs != index)
          mismatch = "point " + std::to_string(points.size()) + ": strategy " +
                     std::to_string(index) + ", planner " + std::to_string(theirs);
      }
      p.chosen = p.candidates[index].tid;
      points.push_back(p);
    }
    current = p.candidates[index].tid;
    ++at[current];
  }
  return points;
}

// Runs up to `executions` executions of each generated program; every one planned, every
// choice the same.
void check(const std::string& name, const std::function<std::unique_ptr<Strategy>()>& make,
           uint32_t programs, uint32_t executions) {
  std::mt19937_64 rng(12345);
  uint64_t points = 0;
  for (uint32_t i = 0; i < programs; ++i) {
    const Program program = generate(rng);
    std::unique_ptr<Strategy> strategy = make();
    for (uint32_t e = 0; e < executions; ++e) {
      strategy->begin();
      ExecutionPlan plan;
      ASSERT_TRUE(strategy->plan(plan)) << name;
      std::string mismatch;
      std::vector<ChoicePoint> run_points = run(program, *strategy, mismatch);
      ASSERT_EQ(mismatch, "") << name << ", program " << i << ", execution " << e;
      points += run_points.size();
      for (ChoicePoint& p : run_points) p.racy = p.is_access() && rng() % 2;
      if (!strategy->end(run_points)) break;
    }
  }
  EXPECT_GT(points, programs) << name;  // the programs have choice points
}

TEST(ExplorePlan, RandomChoosesInProcessAsTheStrategy) {
  check(
      "random", [] { return make_random(7); }, 60, 20);
}

TEST(ExplorePlan, PctChoosesInProcessAsTheStrategy) {
  for (uint32_t d = 1; d <= 3; ++d)
    check(
        "pct d=" + std::to_string(d), [d] { return make_pct(11 + d, d); }, 40, 20);
}

TEST(ExplorePlan, DfsFollowsItsPrefixThenTheDefaultInProcess) {
  check(
      "dfs sync", [] { return make_dfs(2, DfsPoints::Sync); }, 40, 60);
  check(
      "dfs goldilocks", [] { return make_dfs(2, DfsPoints::Goldilocks); }, 40, 60);
  check(
      "dfs sharded",
      [] {
        return make_dfs(1, DfsPoints::Sync, Shard{1, 3, 2});
      },
      20, 40);
  // A sharded reduced dfs keeps sleep sets: past its prefix a sleeping default gives way to an
  // awake thread, which only the strategy knows, so it makes its choices by round trip.
  std::unique_ptr<Strategy> sleeping = make_dfs(1, DfsPoints::Goldilocks, Shard{1, 3, 2});
  sleeping->begin();
  ExecutionPlan plan;
  EXPECT_FALSE(sleeping->plan(plan));
}

TEST(ExplorePlan, PortfolioAndShardedRandomChooseInProcessAsTheStrategy) {
  check(
      "portfolio", [] { return make_portfolio(3, 2); }, 30, 40);
  check(
      "random shard",
      [] {
        return make_random(5, Shard{2, 3, 8});
      },
      20, 10);
}

TEST(ExplorePlan, ReplayFollowsItsChoicesAndTheDefaultAfterADivergence) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 40; ++i) {
    const Program program = generate(rng);
    std::vector<uint32_t> choices;
    for (int k = 0; k < 12; ++k) choices.push_back(static_cast<uint32_t>(rng() % 5));
    ReplayStrategy replay(choices);
    replay.begin();
    std::string mismatch;
    run(program, replay, mismatch);
    ASSERT_EQ(mismatch, "") << "program " << i;
  }
}

TEST(ExplorePlan, DeclinesThreadsBeyondItsTable) {
  auto planner = std::make_unique<ch::Planner>();
  ch::PlanHeader h;
  h.kind = ch::kPlanRandom;
  planner->start(h, nullptr);
  ch::ChoiceThread c[2];
  c[0].tid = 1;
  c[1].tid = ch::kPlanThreads;
  uint32_t chosen = 0;
  EXPECT_FALSE(planner->choose(c, 2, 1, false, 0, chosen));
  c[1].tid = 2;
  EXPECT_TRUE(planner->choose(c, 2, 1, false, 0, chosen));
  EXPECT_LT(chosen, 2u);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::explore
