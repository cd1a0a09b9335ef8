// The strategies of `racepred explore` on simulated programs (no process): threads of straight-
// line steps, each step a scheduling point. The depth-first search with preemption bound K must
// run exactly the schedules with at most K preemptions, each once (against a brute-force
// enumeration); a replay follows its choices; PCT and random stay within the candidates and are
// deterministic for a seed.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <vector>

#include "racepred/explore/strategy.hpp"
#include "racepred/format/explore_channel.hpp"

namespace racepred::explore {
namespace RACEPRED_TEST_FILE {

using Schedule = std::vector<uint32_t>;  // the thread chosen at each choice point

// Runs the simulated program (steps[t] steps per thread; thread 0 runs first) with `choose`,
// as the runtime would: a choice point wherever two or more threads have steps left.
std::vector<ChoicePoint> simulate(const std::vector<int>& steps,
                                  const std::function<size_t(const ChoicePoint&, size_t)>& choose) {
  std::vector<int> left = steps;
  uint32_t current = 0;
  std::vector<ChoicePoint> points;
  for (;;) {
    ChoicePoint p;
    p.current = current;
    for (uint32_t t = 0; t < left.size(); ++t)
      if (left[t] > 0) p.candidates.push_back({t, format::explore::kOpMutexLock, 0x100 + t});
    if (p.candidates.empty()) break;
    uint32_t next = p.candidates[0].tid;
    if (p.candidates.size() > 1) {
      next = p.candidates[choose(p, points.size())].tid;
      p.chosen = next;
      points.push_back(p);
    }
    --left[next];
    current = next;
  }
  return points;
}

// Every schedule with at most `bound` preemptions, by brute force.
void enumerate(std::vector<int>& left, uint32_t current, uint32_t preemptions, uint32_t bound,
               Schedule& prefix, std::set<Schedule>& out) {
  std::vector<uint32_t> candidates;
  for (uint32_t t = 0; t < left.size(); ++t)
    if (left[t] > 0) candidates.push_back(t);
  if (candidates.empty()) {
    out.insert(prefix);
    return;
  }
  const bool current_runs = left[current] > 0;
  for (uint32_t t : candidates) {
    const uint32_t cost = candidates.size() > 1 && current_runs && t != current ? 1 : 0;
    if (preemptions + cost > bound) continue;
    if (candidates.size() > 1) prefix.push_back(t);
    --left[t];
    enumerate(left, t, preemptions + cost, bound, prefix, out);
    ++left[t];
    if (candidates.size() > 1) prefix.pop_back();
  }
}

std::set<Schedule> expected(std::vector<int> steps, uint32_t bound) {
  std::set<Schedule> out;
  Schedule prefix;
  enumerate(steps, 0, 0, bound, prefix, out);
  return out;
}

Schedule chosen(const std::vector<ChoicePoint>& points) {
  Schedule s;
  for (const ChoicePoint& p : points) s.push_back(p.chosen);
  return s;
}

TEST(ExploreDfs, RunsExactlyTheSchedulesWithinThePreemptionBound) {
  const std::vector<std::vector<int>> programs = {{2, 2}, {3, 2}, {1, 2, 2}, {2, 2, 2}, {3, 3}};
  for (const std::vector<int>& steps : programs) {
    for (uint32_t bound = 0; bound <= 3; ++bound) {
      std::unique_ptr<Strategy> dfs = make_dfs(bound);
      std::vector<Schedule> analysed;  // the executions new to their round, in order
      bool more = true;
      uint64_t executions = 0;
      while (more) {
        dfs->begin();
        const auto points =
            simulate(steps, [&](const ChoicePoint& p, size_t i) { return dfs->choose(p, i); });
        more = dfs->end(points);
        ++executions;
        ASSERT_LT(executions, 100000u);
        if (dfs->last_is_new()) analysed.push_back(chosen(points));
      }
      // Rounds K = 0 .. bound: each schedule with at most `bound` preemptions is new exactly
      // once (in the round of its preemption count); the rest repeat earlier rounds.
      const std::set<Schedule> want = expected(steps, bound);
      const std::set<Schedule> got(analysed.begin(), analysed.end());
      EXPECT_EQ(got, want) << "threads " << steps.size() << ", bound " << bound;
      EXPECT_EQ(analysed.size(), want.size()) << "a schedule was analysed twice";
      EXPECT_NE(dfs->coverage(executions, true)
                    .find("complete: all " + std::to_string(want.size()) + " execution"),
                std::string::npos)
          << dfs->coverage(executions, true);
    }
  }
}

TEST(ExploreReplay, FollowsItsChoicesAndReportsADivergence) {
  ReplayStrategy replay({1, 0, 1});
  const auto points =
      simulate({2, 2}, [&](const ChoicePoint& p, size_t i) { return replay.choose(p, i); });
  ASSERT_GE(points.size(), 3u);
  EXPECT_EQ(points[0].chosen, 1u);
  EXPECT_EQ(points[1].chosen, 0u);
  EXPECT_EQ(points[2].chosen, 1u);
  EXPECT_EQ(replay.divergence(), SIZE_MAX);

  ReplayStrategy wrong({7});
  simulate({2, 2}, [&](const ChoicePoint& p, size_t i) { return wrong.choose(p, i); });
  EXPECT_EQ(wrong.divergence(), 0u);
  EXPECT_NE(wrong.coverage(1, false).find("diverged at choice point 1"), std::string::npos);
}

TEST(ExploreRandomised, SameSeedSameSchedulesAndPctPrintsItsBound) {
  for (int which = 0; which < 2; ++which) {
    std::vector<Schedule> runs[2];
    for (int copy = 0; copy < 2; ++copy) {
      std::unique_ptr<Strategy> s = which ? make_pct(7, 2) : make_random(7);
      for (int e = 0; e < 20; ++e) {
        s->begin();
        const auto points = simulate({3, 3, 2}, [&](const ChoicePoint& p, size_t i) {
          const size_t index = s->choose(p, i);
          EXPECT_LT(index, p.candidates.size());
          return index;
        });
        EXPECT_TRUE(s->end(points));
        runs[copy].push_back(chosen(points));
      }
    }
    EXPECT_EQ(runs[0], runs[1]);
    EXPECT_GT(std::set<Schedule>(runs[0].begin(), runs[0].end()).size(), 1u);
  }
  std::unique_ptr<Strategy> pct = make_pct(1, 3);
  pct->begin();
  pct->end(simulate({3, 3}, [&](const ChoicePoint& p, size_t i) { return pct->choose(p, i); }));
  EXPECT_NE(pct->coverage(1, false).find("is found with probability >= "), std::string::npos);
}

TEST(ExploreFairness, ASpinningThreadGivesWay) {
  Fairness fairness;
  ChoicePoint p;
  p.current = 1;
  p.candidates = {{0, format::explore::kOpMutexLock, 0x10}, {1, format::explore::kOpAtomic, 0x20}};
  std::vector<bool> gave;
  for (int i = 0; i < 3; ++i) gave.push_back(fairness.gives_way(p));
  EXPECT_EQ(gave, (std::vector<bool>{false, false, true}));
  const Options o = options_of(p, true);
  EXPECT_EQ(o.allowed, (std::vector<size_t>{0}));
  EXPECT_FALSE(o.preempts(p, 0));
  p.candidates[1].op = format::explore::kOpYield;
  EXPECT_TRUE(fairness.gives_way(p));
}

// Sharding: the shards of a dfs (over synchronisation points: no Goldilocks deferral) run
// together exactly the executions of the unsharded search, each once, with the same ones new
// to their round; every shard's search completes.
TEST(ExploreShard, TheShardsOfADfsRunExactlyTheUnshardedExecutions) {
  const std::vector<std::vector<int>> programs = {{2, 2}, {1, 2, 2}, {2, 2, 2}, {3, 3}};
  for (const std::vector<int>& steps : programs) {
    for (uint32_t bound = 0; bound <= 2; ++bound) {
      auto run = [&](Shard shard, std::multiset<std::pair<Schedule, bool>>& out) {
        std::unique_ptr<Strategy> dfs = make_dfs(bound, DfsPoints::Sync, shard);
        bool more = true;
        uint64_t executions = 0, owned = 0;
        while (more) {
          dfs->begin();
          const auto points =
              simulate(steps, [&](const ChoicePoint& p, size_t i) { return dfs->choose(p, i); });
          more = dfs->end(points);
          ASSERT_LT(++executions, 100000u);
          if (dfs->last_is_owned()) {
            ++owned;
            out.insert({chosen(points), dfs->last_is_new()});
          }
        }
        EXPECT_NE(dfs->coverage(owned, true).find("complete: all"), std::string::npos);
      };
      std::multiset<std::pair<Schedule, bool>> whole;
      run(Shard{}, whole);
      for (uint32_t count : {2u, 3u, 5u})
        for (uint32_t depth : {1u, 2u, 4u}) {
          std::multiset<std::pair<Schedule, bool>> joined;
          for (uint32_t i = 0; i < count; ++i) {
            std::multiset<std::pair<Schedule, bool>> part;
            run(Shard{i, count, depth}, part);
            joined.insert(part.begin(), part.end());
          }
          EXPECT_EQ(joined, whole) << "threads " << steps.size() << ", bound " << bound
                                   << ", shards " << count << ", depth " << depth;
        }
    }
  }
}

// random: shard i of n runs the executions i, i + n, ... of the unsharded sequence.
TEST(ExploreShard, RandomShardsInterleaveTheUnshardedSequence) {
  auto runs = [](Shard shard, int executions) {
    std::unique_ptr<Strategy> s = make_random(11, shard);
    std::vector<Schedule> out;
    for (int e = 0; e < executions; ++e) {
      s->begin();
      const auto points =
          simulate({3, 3, 2}, [&](const ChoicePoint& p, size_t i) { return s->choose(p, i); });
      s->end(points);
      out.push_back(chosen(points));
    }
    return out;
  };
  const std::vector<Schedule> whole = runs(Shard{}, 12);
  for (uint32_t i = 0; i < 3; ++i) {
    const std::vector<Schedule> part = runs(Shard{i, 3, 8}, 4);
    for (size_t k = 0; k < part.size(); ++k) EXPECT_EQ(part[k], whole[i + 3 * k]);
  }
}

// A spurious wake-up is offered beside the enabled threads: never the default, always a
// preemption, and pct and random leave it alone.
TEST(ExploreSpurious, AWakeUpWithoutASignalIsNeverTheDefaultAndCostsAPreemption) {
  ChoicePoint p;
  p.current = 1;
  p.candidates = {{0, format::explore::kOpCondWait, 0x10, 0, true},
                  {1, format::explore::kOpMutexLock, 0x20},
                  {2, format::explore::kOpMutexLock, 0x30}};
  EXPECT_TRUE(is_spurious(p.candidates[0]));
  EXPECT_FALSE(is_spurious(p.candidates[1]));
  Options o = options_of(p, false);
  EXPECT_EQ(o.default_index, 1u);
  EXPECT_TRUE(o.preempts(p, 0));
  // The current thread is the waiter (it just began to wait): the default is the next thread,
  // and waking the waiter at once is a preemption too.
  p.current = 0;
  o = options_of(p, false);
  EXPECT_FALSE(o.current_runs);
  EXPECT_EQ(o.default_index, 1u);
  EXPECT_TRUE(o.preempts(p, 0));
  EXPECT_FALSE(o.preempts(p, 2));
  // pct and random never choose it.
  for (int which = 0; which < 2; ++which) {
    std::unique_ptr<Strategy> s = which ? make_pct(3, 2) : make_random(3);
    for (int e = 0; e < 50; ++e) {
      s->begin();
      EXPECT_NE(s->choose(p, 0), 0u);
      s->end({p});
    }
  }
  // dfs with bound 1 runs the execution that wakes it, with bound 0 not.
  for (uint32_t bound : {0u, 1u}) {
    std::unique_ptr<Strategy> dfs = make_dfs(bound);
    bool woke = false, more = true;
    while (more) {
      dfs->begin();
      ChoicePoint q = p;
      q.chosen = q.candidates[dfs->choose(q, 0)].tid;
      woke = woke || q.chosen == 0;
      more = dfs->end({q});
    }
    EXPECT_EQ(woke, bound == 1);
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::explore
