// Depth-first search over the choice points with iterative preemption bounding (Musuvathi and
// Qadeer, "Iterative context bounding for systematic testing of multithreaded programs"):
// stateless, each node keeps the candidates still to try (its `done` complement). A round with
// bound K explores every execution with at most K preemptions; the rounds run K = 0, 1, …, max,
// and an execution with fewer than K preemptions in round K repeats one of an earlier round.
#include <algorithm>
#include <string>

#include "racepred/explore/strategy.hpp"

namespace racepred::explore {
namespace {

class Dfs : public Strategy {
 public:
  Dfs(uint32_t max_preemptions, DfsPoints points, Shard shard)
      : max_(max_preemptions), points_(points), shard_(shard) {}

  void begin() override {
    preemptions_ = 0;
    fairness_.reset();
  }

  size_t choose(const ChoicePoint& point, size_t index) override {
    const Options o = options_of(point, fairness_.gives_way(point));
    size_t chosen = o.default_index;
    if (index < prefix_) {
      const Node& node = stack_[index];
      if (node.chosen < point.candidates.size() && point.candidates[node.chosen].tid == node.tid)
        chosen = node.chosen;
      else
        ++divergences_;
    } else {
      Node node;
      node.chosen = chosen;
      node.tid = point.candidates[chosen].tid;
      for (size_t i : o.allowed)
        if (i != chosen && (!o.preempts(point, i) || preemptions_ < bound_)) node.todo.push_back(i);
      // Goldilocks reduction: an access point keeps its alternatives aside until a potential
      // race makes it a full branching point (end()). Sharded, the top of the tree branches
      // fully: it must not depend on the executions below it, which other shards run.
      if (points_ == DfsPoints::Goldilocks && point.is_access() &&
          !(shard_.sharded() && index < shard_.depth))
        std::swap(node.todo, node.deferred);
      node.tids.reserve(point.candidates.size());
      for (const Candidate& c : point.candidates) node.tids.push_back(c.tid);
      stack_.push_back(std::move(node));
    }
    if (o.preempts(point, chosen)) ++preemptions_;
    return chosen;
  }

  bool end(const std::vector<ChoicePoint>& points) override {
    // With the reduction the tree of a round depends on the races seen in it, so an execution
    // with fewer preemptions may be new in a later round: every one is analysed.
    last_new_ = preemptions_ == bound_ || bound_ == 0 || points_ == DfsPoints::Goldilocks;
    // Sharded: the execution's top path (its first shard_.depth choices) is the top_serial_-th
    // of the search; the shard owns the subtrees of every count-th one. Another shard's
    // execution is a scout: its subtree below the top is dropped.
    last_owned_ = !shard_.sharded() || top_serial_ % shard_.count == shard_.index;
    if (!last_owned_) {
      ++scouts_;
      if (stack_.size() > shard_.depth) stack_.resize(shard_.depth);
    }
    if (points_ == DfsPoints::Goldilocks)
      for (size_t i = 0; i < points.size() && i < stack_.size(); ++i) {
        Node& node = stack_[i];
        if (!points[i].racy || node.expanded) continue;
        node.expanded = true;
        ++branching_;
        node.todo.insert(node.todo.end(), node.deferred.begin(), node.deferred.end());
        node.deferred.clear();
      }
    if (last_owned_) ++round_executions_;
    while (!stack_.empty() && stack_.back().todo.empty()) stack_.pop_back();
    if (stack_.empty()) {
      rounds_.push_back(round_executions_);
      round_executions_ = 0;
      prefix_ = 0;
      ++top_serial_;  // a new round starts with a new top path
      if (bound_ >= max_) return false;
      ++bound_;
      return true;
    }
    // The next execution leaves this one at the node on top of the stack: above the shard
    // depth, that is a new top path.
    if (stack_.size() <= shard_.depth) ++top_serial_;
    Node& node = stack_.back();
    node.chosen = node.todo.back();
    node.todo.pop_back();
    node.tid = node.tids[node.chosen];
    prefix_ = stack_.size();
    return true;
  }

  // The prefix to follow (the node's candidate index, checked by its tid), then the default.
  bool plan(ExecutionPlan& plan) const override {
    plan.kind = format::explore::kPlanPrefix;
    plan.prefix.clear();
    plan.prefix.reserve(prefix_);
    for (size_t i = 0; i < prefix_; ++i)
      plan.prefix.push_back({stack_[i].tid, static_cast<uint32_t>(std::min<size_t>(
                                                stack_[i].chosen, UINT32_MAX - 1))});
    return true;
  }

  bool last_is_new() const override { return last_new_; }
  bool last_is_owned() const override { return last_owned_; }
  bool wants_racy_points() const override { return points_ == DfsPoints::Goldilocks; }

  std::string coverage(uint64_t executions, bool complete) const override {
    std::string rounds;
    for (size_t k = 0; k < rounds_.size(); ++k)
      rounds += (k ? ", " : "") + std::to_string(rounds_[k]) + " with K=" + std::to_string(k);
    if (!complete) {
      rounds += (rounds.empty() ? "" : ", ") + std::to_string(round_executions_) +
                " in the unfinished round K=" + std::to_string(bound_);
    }
    std::string s;
    if (shard_.sharded())
      s = "shard " + std::to_string(shard_.index) + "/" + std::to_string(shard_.count) + " (" +
          std::to_string(scouts_) + " executions of other shards run to learn the top " +
          std::to_string(shard_.depth) + " choice points): ";
    if (complete)
      s += "complete: all " + std::to_string(rounds_.back()) +
           (rounds_.back() == 1 ? " execution" : " executions") +
           (shard_.sharded() ? " of this shard" : "") + " with at most " + std::to_string(max_) +
           " preemption" + (max_ == 1 ? "" : "s") + " explored (" + what() + "; rounds: " + rounds +
           ")";
    else
      s += "budget exhausted after " + std::to_string(executions) + " executions (" + what() +
           ", preemption bound " + std::to_string(bound_) + " of " + std::to_string(max_) +
           "; rounds: " + rounds + ")";
    if (divergences_)
      s += "; " + std::to_string(divergences_) +
           " choice points diverged from the recorded prefix (the program is not deterministic "
           "under the scheduler: the search may miss executions)";
    return s;
  }

 private:
  std::string what() const {
    switch (points_) {
      case DfsPoints::Sync:
        break;
      case DfsPoints::Goldilocks:
        return "Goldilocks reduction: dfs over synchronisation points and the memory accesses of "
               "potential races, " +
               std::to_string(branching_) + " access point" + (branching_ == 1 ? "" : "s") +
               " branched";
      case DfsPoints::All:
        return "unreduced dfs over synchronisation points and every memory access";
    }
    return "dfs over synchronisation points";
  }

  struct Node {
    std::vector<size_t> deferred;  // an access point's alternatives until it is racy
    bool expanded = false;         // deferred moved to todo
    size_t chosen = 0;
    uint32_t tid = 0;            // the candidate chosen, to check the replay
    std::vector<size_t> todo;    // candidates still to try here
    std::vector<uint32_t> tids;  // the candidates' tids
  };
  uint32_t max_;
  DfsPoints points_;
  Shard shard_;
  uint64_t top_serial_ = 0;  // the current execution's top path, numbered in search order
  uint64_t scouts_ = 0;      // executions of other shards run
  bool last_owned_ = true;
  uint64_t branching_ = 0;  // access points made full branching points
  uint32_t bound_ = 0;
  std::vector<Node> stack_;
  size_t prefix_ = 0;  // stack_ nodes the execution follows
  uint32_t preemptions_ = 0;
  Fairness fairness_;
  bool last_new_ = true;
  uint64_t round_executions_ = 0;
  std::vector<uint64_t> rounds_;  // executions of each finished round
  uint64_t divergences_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_dfs(uint32_t max_preemptions, DfsPoints points, Shard shard) {
  return std::make_unique<Dfs>(max_preemptions, points, shard);
}

}  // namespace racepred::explore
