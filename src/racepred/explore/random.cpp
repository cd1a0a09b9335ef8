// Randomised strategies: uniform random choice, and PCT (Burckhardt, Kothari, Musuvathi and
// Nagarakatte, "A randomized scheduler with probabilistic guarantees of finding bugs", ASPLOS
// 2010, §3): each thread gets a random priority (all above d), d - 1 change points are drawn
// among the choice points, at the i-th the running thread's priority drops to i, and the
// highest-priority candidate runs. With n threads and k steps an execution finds a bug of depth
// d with probability at least 1 / (n k^(d-1)) (Theorem 6); steps here are choice points.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "racepred/explore/strategy.hpp"
#include "racepred/format/explore_plan.hpp"

namespace racepred::explore {
namespace {

// The allowed candidates without spurious wake-ups (only dfs chooses those), unless nothing
// else is allowed.
std::vector<size_t> without_spurious(const ChoicePoint& point, const Options& o) {
  std::vector<size_t> allowed;
  for (size_t i : o.allowed)
    if (!is_spurious(point.candidates[i])) allowed.push_back(i);
  return allowed.empty() ? o.allowed : allowed;
}

class RandomWalk : public Strategy {
 public:
  RandomWalk(uint64_t seed, Shard shard) : seed_(seed), shard_(shard) {}
  void begin() override {
    // The execution's number in the unsharded sequence: shard i runs i, i + n, i + 2n, ...
    const uint64_t number = shard_.index + uint64_t{shard_.count} * executions_++;
    rng_seed_ = seed_ + 0x9E3779B97F4A7C15ULL * number;
    rng_.seed(rng_seed_);
    fairness_.reset();
  }
  bool plan(ExecutionPlan& plan) const override {
    plan.kind = format::explore::kPlanRandom;
    plan.seed = rng_seed_;
    return true;
  }
  size_t choose(const ChoicePoint& point, size_t) override {
    const Options o = options_of(point, fairness_.gives_way(point));
    const std::vector<size_t> allowed = without_spurious(point, o);
    return allowed[std::uniform_int_distribution<size_t>(0, allowed.size() - 1)(rng_)];
  }
  bool end(const std::vector<ChoicePoint>&) override { return true; }
  std::string coverage(uint64_t executions, bool) const override {
    return "budget exhausted after " + std::to_string(executions) +
           " executions (random scheduling, seed " + std::to_string(seed_) +
           "; no completeness claim)";
  }

 private:
  uint64_t seed_;
  Shard shard_;
  uint64_t executions_ = 0;
  uint64_t rng_seed_ = 0;  // this execution's
  std::mt19937_64 rng_;
  Fairness fairness_;
};

class Pct : public Strategy {
 public:
  Pct(uint64_t seed, uint32_t depth, Shard shard)
      : seed_(seed), depth_(std::max<uint32_t>(depth, 1)), shard_(shard) {}

  void begin() override {
    const uint64_t number = shard_.index + uint64_t{shard_.count} * executions_++;
    rng_seed_ = seed_ + 0x9E3779B97F4A7C15ULL * number;
    rng_.seed(rng_seed_);
    fairness_.reset();
    priority_.clear();
    change_.clear();
    const uint64_t k = std::max<uint64_t>(max_points_, 1);
    for (uint32_t i = 1; i < depth_; ++i)
      change_.push_back(std::uniform_int_distribution<uint64_t>(1, k)(rng_));
  }

  size_t choose(const ChoicePoint& point, size_t index) override {
    const bool gives_way = fairness_.gives_way(point);
    for (const Candidate& c : point.candidates) priority_of(c.tid);
    priority_of(point.current);
    // Change point i (1-based) at this step: the running thread drops to priority i.
    for (size_t i = 0; i < change_.size(); ++i)
      if (change_[i] == index + 1) priority_[point.current] = i + 1;
    // A thread that gives way keeps the lowest priority of the ordinary ones from now on.
    if (gives_way) priority_[point.current] = std::min<uint64_t>(priority_[point.current], depth_);
    const Options o = options_of(point, gives_way);
    const std::vector<size_t> allowed = without_spurious(point, o);
    size_t best = allowed.front();
    for (size_t i : allowed)
      if (priority_[point.candidates[i].tid] > priority_[point.candidates[best].tid]) best = i;
    return best;
  }

  bool plan(ExecutionPlan& plan) const override {
    // The runtime draws the same change points and priorities from the same seed.
    if (depth_ > 65) return false;
    plan.kind = format::explore::kPlanPct;
    plan.seed = rng_seed_;
    plan.depth = depth_;
    plan.points = std::max<uint64_t>(max_points_, 1);
    return true;
  }

  bool end(const std::vector<ChoicePoint>& points) override {
    max_points_ = std::max<uint64_t>(max_points_, points.size());
    max_threads_ = std::max<uint64_t>(max_threads_, priority_.size());
    return true;
  }

  std::string coverage(uint64_t executions, bool) const override {
    const double n = static_cast<double>(std::max<uint64_t>(max_threads_, 1));
    const double k = static_cast<double>(std::max<uint64_t>(max_points_, 1));
    const double per = 1.0 / (n * std::pow(k, depth_ - 1.0));
    const double all = 1.0 - std::pow(1.0 - per, static_cast<double>(executions));
    char text[160];
    std::snprintf(text, sizeof text, "%.4g", all);
    return "budget exhausted after " + std::to_string(executions) + " executions (PCT depth " +
           std::to_string(depth_) + ", seed " + std::to_string(seed_) + "; " +
           std::to_string(max_threads_) + " threads, " + std::to_string(max_points_) +
           " choice points): a bug of depth <= " + std::to_string(depth_) +
           " is found with probability >= " + text + " (1 - (1 - 1/(n k^(d-1)))^executions)";
  }

 private:
  void priority_of(uint32_t tid) {
    if (priority_.count(tid)) return;
    // Above every change-point priority (1 .. d-1); random among the threads.
    priority_[tid] = depth_ + (rng_() >> 8);
  }

  uint64_t seed_;
  uint32_t depth_;
  Shard shard_;
  uint64_t executions_ = 0;
  uint64_t rng_seed_ = 0;  // this execution's
  std::mt19937_64 rng_;
  Fairness fairness_;
  std::map<uint32_t, uint64_t> priority_;
  std::vector<uint64_t> change_;
  uint64_t max_points_ = 0;
  uint64_t max_threads_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_random(uint64_t seed, Shard shard) {
  return std::make_unique<RandomWalk>(seed, shard);
}
std::unique_ptr<Strategy> make_pct(uint64_t seed, uint32_t depth, Shard shard) {
  return std::make_unique<Pct>(seed, depth, shard);
}

}  // namespace racepred::explore
