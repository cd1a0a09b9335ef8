// Scheduling strategies of `racepred explore` (docs/EXPLORE.md, "Strategies"): given the
// threads that may run at a choice point and the operation each is about to do, pick one; at
// the end of an execution, say whether another is left.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "racepred/explore/execution.hpp"

namespace racepred::explore {

struct LsEvent;

// Fairness (as in Musuvathi and Qadeer's fair stateless model checking): a thread that yields,
// sleeps, or spins (its last kSpinRepeats choice points at one atomic object) gives way: it is
// not chosen again while another thread may run, and switching away from it is no preemption.
// So a correct spin-wait is never reported as a hang.
inline constexpr uint32_t kSpinRepeats = 3;

class Fairness {
 public:
  // Call at each choice point in order; true when the current thread gives way at this point.
  bool gives_way(const ChoicePoint& point);
  void reset() { last_.clear(); }
  // No thread's last choice point was at an atomic operation (no spin is being counted).
  bool quiet() const;

 private:
  struct Last {
    uint8_t op = 0;
    uint64_t obj = 0;
    uint32_t repeats = 0;
  };
  std::vector<Last> last_;  // by tid
};

// The options a choice point leaves: which candidates may run and which is the default
// (no preemption: the current thread when it may run and does not give way, else the next
// thread after it by number). A candidate other than an enabled current thread costs one
// preemption.
// A spurious wake-up (RACEPRED_SCHEDULE_SPURIOUS): a thread in an unsignalled condition wait
// offered beside the enabled threads; choosing it wakes it without a signal. Only dfs (and a
// replay) chooses one: it is never the default and always costs a preemption.
bool is_spurious(const Candidate& c);

struct Options {
  size_t default_index = 0;
  std::vector<size_t> allowed;  // candidate indices, the default among them
  bool current_runs = false;    // the current thread may run and does not give way
  bool preempts(const ChoicePoint& point, size_t index) const {
    return (current_runs && point.candidates[index].tid != point.current) ||
           is_spurious(point.candidates[index]);
  }
};
Options options_of(const ChoicePoint& point, bool gives_way);

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Called before each execution.
  virtual void begin() {}
  // Picks a candidate (an index) at the `index`-th choice point of the execution.
  virtual size_t choose(const ChoicePoint& point, size_t index) = 0;
  // After the execution: false when no execution is left (the search is complete).
  virtual bool end(const std::vector<ChoicePoint>& points) = 0;
  // Whether the last execution is new to the report (dfs: one with fewer preemptions was seen
  // in an earlier round of iterative preemption bounding).
  virtual bool last_is_new() const { return true; }
  // The coverage statement after `executions` executions; `complete`: end() returned false.
  virtual std::string coverage(uint64_t executions, bool complete) const = 0;
  // Whether end() wants the access points that the Goldilocks lock sets make full branching
  // points marked (ChoicePoint::racy; the explorer runs goldilocks.hpp on the execution).
  virtual bool wants_racy_points() const { return false; }
  // Where it wants racy points: the execution's recorded events (goldilocks.hpp), before
  // end(); valid until end() returns. Without them dfs asks for every alternative.
  virtual void observe(const std::vector<LsEvent>& /*events*/) {}
  // How the execution ended, before end(): normally, by a signal, or in a deadlock with each
  // thread still there and what it waits for (dfs: a thread that waits for a join of a thread
  // that never ends has nothing left to race with); valid until end() returns.
  virtual void observe_ending(Ending /*ending*/, const std::vector<BlockedThread>& /*blocked*/) {}
  // Sharded (Shard::count > 1): whether the last execution is this shard's. Another shard's
  // execution was run only to learn the top of the dfs tree (shared by every shard) and is
  // neither analysed nor reported.
  virtual bool last_is_owned() const { return true; }
  // After begin(): the plan that lets the runtime make this execution's choices in-process
  // (execution.hpp; docs/EXPLORE.md, "The plan"), exactly as choose() will; false: none (the
  // runtime asks at every choice point).
  virtual bool plan(ExecutionPlan&) const { return false; }
};

// A deterministic share of a search (docs/EXPLORE.md, "Sharding"): shard `index` of `count`
// (0-based, as Bazel's TEST_SHARD_INDEX). dfs: every shard runs the same top of the tree (the
// first `depth` choice points, where every alternative is explored: no Goldilocks deferral
// there), one execution per top path, and the whole subtree below the top paths it owns (the
// k-th top path in the search's order belongs to shard k mod count). random, pct: shard i runs
// the executions i, i + count, i + 2 count, ... of the unsharded sequence of its seed.
struct Shard {
  uint32_t index = 0;
  uint32_t count = 1;
  uint32_t depth = 8;
  bool sharded() const { return count > 1; }
};

// Which choice points dfs branches at. Sync: the synchronisation operations only (the
// program runs without access points). Goldilocks: synchronisation operations, and the memory
// access points that the lock sets make full branching points (Elmas and Qadeer, "A New
// Lockset Algorithm and Its Applications", §5). All: every memory access point (unreduced).
enum class DfsPoints : uint8_t { Sync, Goldilocks, All };

// Depth-first search over the choice points (synchronisation operations) with a preemption
// bound, iterating the bound 0, 1, …, max as CHESS does (Musuvathi and Qadeer, "Iterative
// context bounding for systematic testing of multithreaded programs").
// With DfsPoints::Goldilocks or All the program must run with access points
// (ProgramSpec::access_points).
std::unique_ptr<Strategy> make_dfs(uint32_t max_preemptions, DfsPoints points = DfsPoints::Sync,
                                   Shard shard = {});
// The default portfolio: executions taken in turn from dfs (Goldilocks reduction, preemption
// bound iterated up to max_preemptions), PCT of depth 1, 2 and 3 and random (seeded), so that
// shallow bugs come first from whichever finds them; complete when the dfs is. Runs with access
// points.
std::unique_ptr<Strategy> make_portfolio(uint64_t seed, uint32_t max_preemptions, Shard shard = {});
// A uniformly random candidate at each point (seeded: the same seed gives the same executions).
std::unique_ptr<Strategy> make_random(uint64_t seed, Shard shard = {});
// PCT (Burckhardt, Kothari, Musuvathi and Nagarakatte, "A randomized scheduler with
// probabilistic guarantees of finding bugs", ASPLOS 2010): random thread priorities and d - 1
// random priority change points; the highest-priority candidate runs.
std::unique_ptr<Strategy> make_pct(uint64_t seed, uint32_t depth, Shard shard = {});
// One execution that follows `choices` (a tid per choice point), then the default; a choice
// that is not among the candidates is a divergence (counted, the default is taken).
class ReplayStrategy : public Strategy {
 public:
  explicit ReplayStrategy(std::vector<uint32_t> choices) : choices_(std::move(choices)) {}
  size_t choose(const ChoicePoint& point, size_t index) override;
  bool end(const std::vector<ChoicePoint>&) override { return false; }
  bool plan(ExecutionPlan& plan) const override;
  std::string coverage(uint64_t executions, bool complete) const override;
  // The first choice point where the program did not offer the recorded thread, or SIZE_MAX.
  size_t divergence() const { return divergence_; }

 private:
  std::vector<uint32_t> choices_;
  Fairness fairness_;
  size_t divergence_ = SIZE_MAX;
};

}  // namespace racepred::explore
