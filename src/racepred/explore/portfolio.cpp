// The default strategy: a portfolio that takes executions in turn from dfs with the Goldilocks
// reduction, from PCT of depth 1, 2 and 3 and from random scheduling. A bug that one
// preemption, a likely priority order or a random walk exposes is found within the first
// executions of whichever strategy reaches it, and the dfs still ends the search with its
// completeness statement.
#include <string>

#include "racepred/explore/strategy.hpp"

namespace racepred::explore {
namespace {

class Portfolio : public Strategy {
 public:
  Portfolio(uint64_t seed, uint32_t max_preemptions, Shard shard) {
    parts_.push_back(make_dfs(max_preemptions, DfsPoints::Goldilocks, shard));
    for (uint32_t d = 1; d <= 3; ++d) parts_.push_back(make_pct(seed + d, d, shard));
    // Random scheduling beside them: on small programs a uniformly random walk (which also
    // switches at memory accesses) often hits a bug in the first few executions.
    parts_.push_back(make_random(seed + 4, shard));
    counts_.assign(parts_.size(), 0);
  }

  void begin() override {
    current_ = next_;
    next_ = (next_ + 1) % parts_.size();
    ++counts_[current_];
    parts_[current_]->begin();
  }
  size_t choose(const ChoicePoint& point, size_t index) override {
    return parts_[current_]->choose(point, index);
  }
  bool end(const std::vector<ChoicePoint>& points) override {
    // The search is complete when the dfs is.
    return parts_[current_]->end(points) || current_ != 0;
  }
  bool last_is_new() const override { return parts_[current_]->last_is_new(); }
  bool wants_racy_points() const override { return parts_[current_]->wants_racy_points(); }
  void observe(const std::vector<LsEvent>& events) override { parts_[current_]->observe(events); }
  void observe_ending(Ending ending, const std::vector<BlockedThread>& blocked) override {
    parts_[current_]->observe_ending(ending, blocked);
  }
  bool last_is_owned() const override { return parts_[current_]->last_is_owned(); }
  bool plan(ExecutionPlan& plan) const override { return parts_[current_]->plan(plan); }

  std::string coverage(uint64_t, bool complete) const override {
    // The executions run (sharded: with the dfs's scouts of other shards) by part.
    uint64_t runs = 0;
    for (uint64_t n : counts_) runs += n;
    std::string s = "portfolio of " + std::to_string(runs) + " executions: dfs " +
                    std::to_string(counts_[0]) + ", pct d=1 " + std::to_string(counts_[1]) +
                    ", pct d=2 " + std::to_string(counts_[2]) + ", pct d=3 " +
                    std::to_string(counts_[3]) + ", random " + std::to_string(counts_[4]) +
                    "; dfs: ";
    return s + parts_[0]->coverage(counts_[0], complete);
  }

 private:
  std::vector<std::unique_ptr<Strategy>> parts_;  // dfs first
  std::vector<uint64_t> counts_;
  size_t current_ = 0;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_portfolio(uint64_t seed, uint32_t max_preemptions, Shard shard) {
  return std::make_unique<Portfolio>(seed, max_preemptions, shard);
}

}  // namespace racepred::explore
