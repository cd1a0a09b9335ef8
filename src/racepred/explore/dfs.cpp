// Depth-first search over the choice points with iterative preemption bounding (Musuvathi and
// Qadeer, "Iterative context bounding for systematic testing of multithreaded programs"):
// stateless, each node keeps the candidates still to try (its `done` complement). A round with
// bound K explores every execution with at most K preemptions; the rounds run K = 0, 1, …, max,
// and an execution with fewer than K preemptions in round K repeats one of an earlier round.
//
// With the Goldilocks reduction the search tries a thread at a synchronisation point only
// where a race of an explored execution asks for it (dynamic partial-order reduction, races()
// below; docs/EXPLORE.md, "Partial-order reduction"). A sharded search keeps sleep sets
// instead (Godefroid, "Partial-Order Methods for the Verification of Concurrent Systems"), made
// sound under the preemption bound (docs/EXPLORE.md, "Sleep sets in a sharded search"): once
// the subtree of thread t at a node is explored, t sleeps in the subtrees of the node's later
// alternatives while the threads that run there do nothing that depends on what t does in its
// first context from that node (its footprint, recorded in the first execution of t's
// subtree), and only where running that context first costs no more preemptions than the
// alternative did. A sleeping thread is not an alternative.
#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "racepred/explore/goldilocks.hpp"
#include "racepred/explore/strategy.hpp"
#include "racepred/format/explore_channel.hpp"
#include "racepred/format/trace_format.hpp"

namespace racepred::explore {
namespace {

namespace ch = format::explore;
namespace fmt = format;

// An operation as the sleep sets compare them: a candidate's next operation, the operation a
// blocked thread waits at, or a thread's end (kOpThreadExit, obj: its tid).
struct Op {
  uint8_t op = 0;
  uint8_t point = 0;  // an access: 1 for a write, + 2 x its size code (trace_format.hpp)
  uint64_t obj = 0;
};
using Footprint = std::vector<Op>;

enum class Kind : uint8_t { Start, Access, Lock, CondWait, Cond, Object, Create, Join, Exit, Any };

// The lock operations that do not wait while the lock is held (the runtime's codes 4 .. 15:
// mutex lock, trylock, timed lock, unlock, rwlock read, try-read, timed read, write, try-write,
// timed write, unlocks).
constexpr uint8_t kOpMutexTrylock = ch::kOpMutexLock + 1;
constexpr uint8_t kOpMutexTimedlock = ch::kOpMutexLock + 2;
constexpr uint8_t kOpTryWrlock = ch::kOpMutexLock + 8;
constexpr uint8_t kOpTimedWrlock = ch::kOpMutexLock + 9;

Kind kind_of(uint8_t op) {
  if (op == ch::kOpNone) return Kind::Start;  // a new thread runs to its first hook
  if (op == ch::kOpAccess) return Kind::Access;
  if ((op >= ch::kOpMutexLock && op <= ch::kOpRwUnlockWrite) || op == ch::kOpFileLock ||
      op == ch::kOpFileUnlock)
    return Kind::Lock;
  if (op == ch::kOpCondWait || op == ch::kOpCondTimedWait) return Kind::CondWait;
  if (op == ch::kOpCondSignal || op == ch::kOpCondBroadcast) return Kind::Cond;
  if ((op >= ch::kOpSemWait && op <= ch::kOpSemPost) || op == ch::kOpBarrierWait ||
      op == ch::kOpOnce)
    return Kind::Object;
  if (op == ch::kOpThreadCreate) return Kind::Create;
  if (op == ch::kOpThreadJoin) return Kind::Join;
  if (op == ch::kOpThreadExit) return Kind::Exit;
  // Atomics, sleeps, yields (fairness counts them), anything else: dependent on everything.
  return Kind::Any;
}

// Whether the order of a and b (operations of two threads) can matter: the same lock,
// condition variable or object, a conflicting access, a join of the thread that ends. Objects
// are compared folded to 32 bits (the channel's blocked operations): equal folds count as one.
bool dependent(const Op& a, const Op& b) {
  const Kind ka = kind_of(a.op), kb = kind_of(b.op);
  if (ka == Kind::Any || kb == Kind::Any) return true;
  if (ka == Kind::Start || kb == Kind::Start) return false;
  // A join of a thread the runtime could not name: with everything.
  if ((ka == Kind::Join && a.obj == 0) || (kb == Kind::Join && b.obj == 0)) return true;
  const bool same = ch::fold_object(a.obj) == ch::fold_object(b.obj);
  auto either = [&](Kind x, Kind y) { return (ka == x && kb == y) || (ka == y && kb == x); };
  if (ka == Kind::Access && kb == Kind::Access) {
    if (!(a.point & 1) && !(b.point & 1)) return false;  // two reads
    // The bytes of each (the size code: 1 .. 16 bytes; a range's length is unknown, and an
    // access without a size code counts as 16 bytes).
    auto bytes = [](const Op& x) -> uint64_t {
      const unsigned code = (x.point >> 1) & 7;
      if (code == fmt::kSizeRange) return UINT64_MAX;
      return code >= fmt::kSize1 && code <= fmt::kSize16
                 ? fmt::size_bytes(static_cast<uint8_t>(code))
                 : 16;
    };
    const Op& lo = a.obj <= b.obj ? a : b;
    const Op& hi = a.obj <= b.obj ? b : a;
    return hi.obj - lo.obj < bytes(lo);
  }
  if (ka == Kind::Access || kb == Kind::Access) return false;
  // A condition wait releases and takes again a mutex the scheduler does not name.
  if (ka == Kind::CondWait && kb == Kind::CondWait) return true;
  if (either(Kind::CondWait, Kind::Lock)) return true;
  if (either(Kind::CondWait, Kind::Cond)) return same;
  if (either(Kind::Exit, Kind::Join))
    return (ka == Kind::Exit ? a.obj + 1 : b.obj + 1) == (ka == Kind::Exit ? b.obj : a.obj);
  if (ka != kb) return false;
  switch (ka) {
    case Kind::Lock:
    case Kind::Cond:
    case Kind::Object:
      return same;
    case Kind::Create:
      return true;  // thread numbers are given in creation order
    default:
      return false;
  }
}

bool dependent(const Op& a, const Footprint& f) {
  for (const Op& b : f)
    if (dependent(a, b)) return true;
  return false;
}

Op op_of(const Candidate& c) {
  return Op{c.op, c.point, c.obj};
}

// What the thread at the point is about to do: its candidate's operation, or the one it is
// blocked at, or its end.
Op current_op(const ChoicePoint& point) {
  for (const Candidate& c : point.candidates)
    if (c.tid == point.current) return op_of(c);
  if (point.current_op == ch::kOpNone) return Op{ch::kOpThreadExit, 0, point.current};
  return Op{point.current_op, 0, point.current_obj};
}

class Dfs : public Strategy {
 public:
  Dfs(uint32_t max_preemptions, DfsPoints points, Shard shard)
      : max_(max_preemptions), points_(points), shard_(shard) {}

  void begin() override {
    preemptions_ = 0;
    fairness_.reset();
    after_.clear();
    recordings_.clear();
    covered_ = false;
  }

  size_t choose(const ChoicePoint& point, size_t index) override {
    const Options o = options_of(point, fairness_.gives_way(point));
    size_t chosen = o.default_index;
    if (index < prefix_) {
      Node& node = stack_[index];
      if (node.chosen < point.candidates.size() && point.candidates[node.chosen].tid == node.tid)
        chosen = node.chosen;
      else
        ++divergences_;
      // The node where this execution leaves the last one: its new child starts here.
      if (index + 1 == prefix_ && sleep_sets()) {
        after_ = after_choice(node, chosen);
        record(index, chosen);
      }
    } else {
      if (sleep_sets()) feed(point, o);
      Node node;
      const bool calm = reduced() && is_calm(point);
      if (calm && sleep_sets() && !covered_) node.sleep = arrive(point);
      node.calm = calm;
      node.current_runs = o.current_runs;
      node.current = point.current;
      node.candidates = point.candidates;
      auto asleep = [&](size_t i) {
        for (const Sleeper& z : node.sleep)
          if (z.tid == point.candidates[i].tid) return true;
        return false;
      };
      // A sleeping default is replaced by an awake thread: the current thread does not run
      // then (it never sleeps), so any other choice costs no preemption either.
      bool all_asleep = false;
      if (asleep(chosen)) {
        size_t awake = SIZE_MAX;
        for (size_t i : o.allowed)
          if (!asleep(i) && !is_spurious(point.candidates[i]) && !o.preempts(point, i)) {
            awake = i;
            break;
          }
        if (awake != SIZE_MAX)
          chosen = awake;
        else
          all_asleep = true;  // the default's continuations are covered elsewhere
      }
      node.chosen = chosen;
      node.tid = point.candidates[chosen].tid;
      for (size_t i : o.allowed) {
        if (i == chosen || (o.preempts(point, i) && preemptions_ >= bound_)) continue;
        if (covered_ || asleep(i)) {
          ++slept_;
          continue;
        }
        node.todo.push_back(i);
      }
      // Below a sleeping thread's choice every execution is covered: no alternatives there.
      if (all_asleep) covered_ = true;
      // Goldilocks reduction: an access point keeps its alternatives aside until a potential
      // race makes it a full branching point (end()). Sharded, the top of the tree branches
      // fully: it must not depend on the executions below it, which other shards run.
      if (points_ == DfsPoints::Goldilocks && point.is_access() &&
          !(shard_.sharded() && index < shard_.depth))
        std::swap(node.todo, node.deferred);
      // Bounded partial-order reduction: at a calm synchronisation point every alternative
      // (but a spurious wake-up) waits in `pending` until the execution asks for it (end(),
      // races()).
      if (dpor() && calm && !point.is_access()) {
        std::vector<size_t> keep;
        for (size_t i : node.todo)
          (is_spurious(point.candidates[i]) ? keep : node.pending).push_back(i);
        node.todo = std::move(keep);
      }
      node.tids.reserve(point.candidates.size());
      for (const Candidate& c : point.candidates) node.tids.push_back(c.tid);
      stack_.push_back(std::move(node));
      if (sleep_sets()) {
        after_ = after_choice(stack_.back(), chosen);
        record(index, chosen);
      }
    }
    if (o.preempts(point, chosen)) ++preemptions_;
    return chosen;
  }

  bool end(const std::vector<ChoicePoint>& points) override {
    recordings_.clear();  // a context still running at the end is not known whole
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
    if (dpor()) races(points);
    if (events_ && classes_.size() < kClassLimit && last_owned_)
      classes_.insert(trace_class(*events_));
    events_ = nullptr;
    deadlock_ = false;
    blocked_.clear();
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
    while (!stack_.empty() && stack_.back().todo.empty()) {
      if (last_owned_) unasked_ += stack_.back().pending.size();
      stack_.pop_back();
    }
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
  // None with sleep sets: past the prefix a sleeping default gives way to an awake thread,
  // which only choose() knows.
  bool plan(ExecutionPlan& plan) const override {
    if (sleep_sets()) return false;
    plan.kind = format::explore::kPlanPrefix;
    plan.prefix.clear();
    plan.prefix.reserve(prefix_);
    for (size_t i = 0; i < prefix_; ++i)
      plan.prefix.push_back({stack_[i].tid, static_cast<uint32_t>(std::min<size_t>(
                                                stack_[i].chosen, UINT32_MAX - 1))});
    return true;
  }

  void observe(const std::vector<LsEvent>& events) override { events_ = &events; }
  void observe_ending(Ending ending, const std::vector<BlockedThread>& blocked) override {
    deadlock_ = ending == Ending::Deadlock && !blocked.empty();
    blocked_ = blocked;
  }
  bool last_is_new() const override { return last_new_; }
  bool last_is_owned() const override { return last_owned_; }
  // The unreduced search reads the recordings too: to count the classes of its executions.
  bool wants_racy_points() const override { return points_ != DfsPoints::Sync; }

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
    if (!classes_.empty())
      s += "; classes up to the order of independent operations: " +
           std::string(classes_.size() >= kClassLimit ? "at least " : "") +
           std::to_string(classes_.size()) + " (an optimal reduction runs one execution of each)";
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
               " branched; " +
               (dpor() ? "partial-order reduction: " + std::to_string(unasked_) + " alternative" +
                             (unasked_ == 1 ? "" : "s") + " without a race left out"
                       : "sleep sets: " + std::to_string(slept_) + " alternative" +
                             (slept_ == 1 ? "" : "s") + " covered by earlier ones");
      case DfsPoints::All:
        return "unreduced dfs over synchronisation points and every memory access";
    }
    return "dfs over synchronisation points";
  }

  // A thread asleep, by one of two arguments (either keeps it asleep; docs/EXPLORE.md, "Sleep
  // sets"): its next operation `first` can be moved back to the node where it fell asleep
  // (`op_slack` >= 0), or its whole first context from that node, `footprint` (`slack` >= 0),
  // with the preemptions that moving it saves still unspent; -1: that argument no longer holds.
  struct Sleeper {
    uint32_t tid = 0;
    Op first;
    std::shared_ptr<const Footprint> footprint;  // null: not known
    int slack = -1;
    int op_slack = -1;
    bool alive() const { return slack >= 0 || op_slack >= 0; }
  };
  // A child of a node explored (or being explored) in this round: the footprint of its
  // thread's first context there once known, and whether the thread could still run at the
  // first choice point after its first operation (1 until known).
  struct Child {
    uint32_t tid = 0;
    size_t index = 0;  // into the candidates
    std::shared_ptr<const Footprint> footprint;
    int runs_after = 1;
  };
  struct Node {
    std::vector<size_t> deferred;  // an access point's alternatives until it is racy
    bool expanded = false;         // deferred moved to todo
    size_t chosen = 0;
    uint32_t tid = 0;            // the candidate chosen, to check the replay
    std::vector<size_t> todo;    // candidates still to try here
    std::vector<uint32_t> tids;  // the candidates' tids
    // Sleep sets (Goldilocks only).
    std::vector<Candidate> candidates;
    uint32_t current = 0;
    bool current_runs = false;
    bool calm = false;            // sleep sets apply here (is_calm)
    std::vector<Sleeper> sleep;   // asleep on arrival: not alternatives here
    std::vector<Child> children;  // explored in this round, in order
    // Bounded partial-order reduction: preemptive alternatives that no race has asked for yet.
    std::vector<size_t> pending;
  };
  // The first context of the thread chosen at stack_[node], being recorded.
  struct Recording {
    size_t node = 0;
    uint32_t tid = 0;
    Footprint ops;
  };

  // The Goldilocks reduction; unsharded, with dynamic partial-order reduction (races()); sharded
  // (whose top of the tree cannot wait for races found below it by other shards), with sleep
  // sets instead.
  bool reduced() const { return points_ == DfsPoints::Goldilocks; }
  bool dpor() const { return reduced() && !shard_.sharded(); }
  bool sleep_sets() const { return reduced() && shard_.sharded(); }

  // Sleep sets hold only where fairness cannot tell two orders apart and no timeout is
  // offered: no candidate (nor the blocked current thread) about to do an atomic operation,
  // sleep or yield, no thread counted as spinning, no timed operation offered except a
  // spurious wake-up.
  bool is_calm(const ChoicePoint& point) const {
    if (point.timeouts || !fairness_.quiet()) return false;
    for (const Candidate& c : point.candidates)
      if ((c.times_out && !is_spurious(c)) || kind_of(c.op) == Kind::Any) return false;
    return kind_of(current_op(point).op) != Kind::Any;
  }

  // A sleeper after `done` ran (a candidate chosen, or the entry of the operation a thread
  // stopped at: a condition wait's releases its mutex, a barrier's counts an arrival, an end
  // lets joins go on): each argument holds while `done` does not depend on what it moves.
  static void run(Sleeper& z, const Op& done) {
    if (z.op_slack >= 0 && dependent(done, z.first)) z.op_slack = -1;
    if (z.slack >= 0 && dependent(done, *z.footprint)) z.slack = -1;
  }

  // The sleepers at a new node: those of the step before (after_) whose thread is still there
  // with the same next operation and did not run, after what the current thread's stop did.
  //
  // A current thread blocked at an operation whose entry does nothing (a lock, a join, a
  // semaphore, once) is different: with what an argument moves run first, it may be able to
  // go on there, and switching away from it would be a preemption: an argument whose moved
  // operations it depends on spends one of its slack.
  std::vector<Sleeper> arrive(const ChoicePoint& point) const {
    std::vector<Sleeper> out;
    bool candidate = false;
    for (const Candidate& c : point.candidates) candidate |= c.tid == point.current;
    const Op now = current_op(point);
    const Kind kind = kind_of(now.op);
    const bool entry = kind == Kind::CondWait || kind == Kind::Any ||
                       now.op == ch::kOpBarrierWait || now.op == ch::kOpThreadExit;
    for (Sleeper z : after_) {
      if (z.tid == point.current) continue;
      if (!candidate && entry) {
        run(z, now);
      } else if (!candidate) {
        if (z.op_slack >= 0 && dependent(now, z.first)) --z.op_slack;
        if (z.slack >= 0 && dependent(now, *z.footprint)) --z.slack;
      }
      if (!z.alive()) continue;
      for (const Candidate& c : point.candidates)
        if (c.tid == z.tid && c.op == z.first.op && c.obj == z.first.obj &&
            c.point == z.first.point && !c.times_out) {
          out.push_back(z);
          break;
        }
    }
    return out;
  }

  // The sleepers below a node once its candidate `chosen` runs: the node's own that it does
  // not wake, and its children explored before, each by the arguments that need no more
  // preemptions than this choice. Moving a child's whole first context here costs what
  // choosing it here costs (its end switches as this execution's does); moving its first
  // operation alone costs that and a switch right after it where it could still run. A
  // spurious wake-up chosen here costs one more after either.
  std::vector<Sleeper> after_choice(Node& node, size_t chosen) const {
    std::vector<Sleeper> out;
    if (!node.calm || covered_) return out;
    const Op p = op_of(node.candidates[chosen]);
    if (kind_of(p.op) == Kind::Any) return out;
    for (Sleeper z : node.sleep) {
      run(z, p);
      if (z.alive()) out.push_back(z);
    }
    auto cost = [&](size_t i) {
      const Candidate& c = node.candidates[i];
      return ((node.current_runs && c.tid != node.current) || is_spurious(c)) ? 1 : 0;
    };
    const int spurious = is_spurious(node.candidates[chosen]) ? 1 : 0;
    for (const Child& child : node.children) {
      if (child.tid == node.candidates[chosen].tid) continue;
      const Candidate& c = node.candidates[child.index];
      if (is_spurious(c) || c.times_out) continue;
      Sleeper z{child.tid, op_of(c), child.footprint};
      if (z.footprint) z.slack = cost(chosen) - spurious - cost(child.index);
      z.op_slack = cost(chosen) - cost(child.index) - std::max(child.runs_after, spurious);
      if (z.slack < 0) z.slack = -1;
      if (z.op_slack < 0) z.op_slack = -1;
      run(z, p);
      if (z.alive()) out.push_back(z);
    }
    return out;
  }

  // Bounded partial-order reduction (Flanagan and Godefroid, "Dynamic partial-order reduction
  // for model checking software", with Coons, Musuvathi and McKinley's branch points at the
  // start of a context, "Bounded partial-order reduction"): thread p is tried at stack_[n]
  // when it is a candidate there still pending; when it is not a candidate there, every pending
  // alternative is.
  void ask(size_t n, uint32_t p) {
    if (n >= stack_.size()) return;
    Node& node = stack_[n];
    auto take = [&](std::vector<size_t>& from) {
      bool candidate = false;
      for (uint32_t t : node.tids) candidate |= t == p;
      for (size_t j = 0; j < from.size();) {
        if (!candidate || node.tids[from[j]] == p) {
          node.todo.push_back(from[j]);
          from.erase(from.begin() + static_cast<std::ptrdiff_t>(j));
        } else {
          ++j;
        }
      }
    };
    take(node.pending);
    if (!node.expanded) take(node.deferred);
  }

  // After an execution, Flanagan and Godefroid's rule with Coons et al.'s, over the
  // execution's recorded events (observe(): every lock operation, send/receive order, fork,
  // join and memory access, in the order they ran, also where no choice point was): for each
  // event e of thread p, the events of other threads that e depends on and that do not happen
  // before it — those run while e was p's next operation,
  // and the last one before — are races: p is asked for at the node whose choice ran that
  // event, and at the node where that event's context began. An event run where no choice was
  // (only its thread could go) needs nothing at its own node. A thread still there at the end
  // (blocked, or ended unseen) may do anything next. Where the events are not known (no
  // recording), an execution is long (beyond kRaceLimit events or choice points, or its
  // clocks beyond 50 x kRaceLimit words), or fairness or a timeout
  // could tell two orders apart (a node that is not calm), every pending alternative is asked
  // for.
  static constexpr size_t kRaceLimit = 200000;
  void races(const std::vector<ChoicePoint>& points) {
    const size_t n = std::min(points.size(), stack_.size());
    uint32_t threads = 0;
    for (size_t k = 0; k < n; ++k) {
      threads = std::max(threads, points[k].current + 1);
      for (const Candidate& c : points[k].candidates) threads = std::max(threads, c.tid + 1);
    }
    if (events_)
      for (const LsEvent& e : *events_) threads = std::max(threads, e.tid + 1);
    // The vector clocks take threads x events words.
    bool all = !events_ || n > kRaceLimit || events_->size() > kRaceLimit ||
               uint64_t{threads} * events_->size() > 50 * uint64_t{kRaceLimit};
    for (size_t k = 0; k < n && !all; ++k) all = !stack_[k].calm;
    if (all) {
      for (Node& node : stack_) {
        node.todo.insert(node.todo.end(), node.pending.begin(), node.pending.end());
        node.pending.clear();
      }
      return;
    }
    const std::vector<LsEvent>& ev = *events_;
    auto candidate_at = [&](size_t k, uint32_t t) {
      for (const Candidate& c : points[k].candidates)
        if (c.tid == t) return true;
      return false;
    };
    // The point before each event (SIZE_MAX: before the first), and whether the event is in
    // the run of the thread chosen there before any other thread's event (the node's step).
    std::vector<size_t> node(ev.size(), SIZE_MAX);
    // Whether only the chosen thread's events lie between point k and point k + 1.
    std::vector<bool> alone(n, true);
    std::vector<bool> busy(n, false);  // an event lies between point k and point k + 1
    {
      size_t k = SIZE_MAX;
      bool others = false;
      for (size_t i = 0; i < ev.size(); ++i) {
        while ((k == SIZE_MAX ? 0 : k + 1) < n &&
               points[k == SIZE_MAX ? 0 : k + 1].seq <= ev[i].seq) {
          k = k == SIZE_MAX ? 0 : k + 1;
          others = false;
        }
        if (k == SIZE_MAX) continue;
        busy[k] = true;
        if (ev[i].tid != points[k].chosen) {
          others = true;
          alone[k] = false;
        } else if (!others) {
          node[i] = k;
        }
      }
    }
    // Node k continues the context of the thread chosen there (it is the current thread, may
    // run and runs).
    auto continues = [&](size_t k) {
      return points[k].chosen == points[k].current && stack_[k].current_runs &&
             candidate_at(k, points[k].current);
    };
    // The node where the context of the thread chosen at node k began; SIZE_MAX where only it
    // could run (before the first choice point, or after other threads' runs no choice saw).
    auto context = [&](size_t k) -> size_t {
      const uint32_t t = points[k].chosen;
      for (size_t j = k;; --j) {
        if (!continues(j)) return j;
        if (j == 0 || points[j - 1].chosen != t || !alone[j - 1]) return SIZE_MAX;
      }
    };
    // A thread's start (it runs to its first hook and records nothing) commutes with
    // everything: p asked for right after another thread's start, where p waits at the same
    // operation as before it and the started thread goes on, is asked for before that start
    // (choosing p there costs no more: the started thread would be preempted at k; at k - 1
    // only the thread that ran before, if any). So p is not tried again below a start where
    // its branch before the start already covers it.
    auto candidate_op = [&](size_t k, uint32_t t) -> const Candidate* {
      for (const Candidate& c : points[k].candidates)
        if (c.tid == t) return &c;
      return nullptr;
    };
    auto before_starts = [&](size_t k, uint32_t p) {
      while (k > 0 && k < n) {
        const uint32_t started = points[k - 1].chosen;
        const Candidate* s = candidate_op(k - 1, started);
        if (!s || s->op != ch::kOpNone || started == p || busy[k - 1] ||
            points[k].current != started || !stack_[k - 1].calm || !stack_[k].calm)
          break;
        const Candidate* a = candidate_op(k - 1, p);
        const Candidate* b = candidate_op(k, p);
        if (!a || !b || a->op != b->op || a->obj != b->obj || a->point != b->point ||
            a->times_out || b->times_out)
          break;
        --k;
      }
      return k;
    };
    auto ask_at = [&](size_t i, uint32_t p) {
      if (node[i] == SIZE_MAX) return;
      const size_t at = before_starts(node[i], p);
      ask(at, p);
      const size_t ctx = context(node[i]);
      if (ctx != SIZE_MAX && ctx != node[i]) ask(before_starts(ctx, p), p);
    };
    // Dependence of two events of different threads: the same lock or object, or accesses of
    // the same 8-byte word (the lock sets' view: reads included), each thread's events on one
    // of them listed by `key`; a fork of a thread and its events, a join of a thread and its
    // events (happens-before only: a join and the joined thread's events are never enabled
    // together, nor a thread's events before its fork).
    auto key = [](const LsEvent& e) { return e.obj * 2 + (e.kind == LsEvent::Access ? 1 : 0); };
    auto forks = [](const LsEvent& e) {
      return e.kind == LsEvent::Fork || e.kind == LsEvent::Join;
    };
    std::unordered_map<uint64_t, std::vector<std::vector<size_t>>> on;  // key -> tid -> events
    std::vector<std::vector<size_t>> of(threads);                       // tid -> events
    std::vector<size_t> forked(threads, SIZE_MAX);                      // a thread's fork
    std::vector<std::vector<uint32_t>> clock(threads, std::vector<uint32_t>(threads, 0));
    std::vector<std::vector<uint32_t>> at(ev.size());  // each event's clock
    auto hb = [&](size_t j, uint32_t p) { return at[j][ev[j].tid] <= clock[p][ev[j].tid]; };
    // Whether p's operation at node k is a lock operation that does not wait while the lock
    // is held (a trylock fails instead, a timed lock may time out, a file lock may not wait).
    auto tries_at = [&](size_t k, uint32_t p) {
      for (const Candidate& c : points[k].candidates)
        if (c.tid == p)
          return c.times_out || c.op == kOpMutexTrylock || c.op == kOpMutexTimedlock ||
                 c.op == kOpTryWrlock || c.op == kOpTimedWrlock || c.op == ch::kOpFileLock;
      return false;
    };
    // Whether acquisition i may not wait (its operation, seen at the choice point before it,
    // does not wait).
    auto may_try = [&](size_t i) { return node[i] != SIZE_MAX && tries_at(node[i], ev[i].tid); };
    // The races of p's next event on the lists `lists` (one per thread): the events since p's
    // last one (`since`) that do not happen before p, and the last such event before them.
    // An acquisition by p never races with another thread's release of its lock since p's
    // last event: while that thread held the lock the acquisition could not run (the two are
    // never enabled together), and the race to reverse is with that thread's acquisition
    // (`acquire`: those releases are skipped, but where p was offered a trylock or timed lock). The
    // last event before (`below`) counts even when it is a release: trying the other threads where
    // it ran is what keeps the orders that need a preemption there within the bound (without it,
    // generated programs lose lock orders at bounds 1 and 2).
    auto check = [&](uint32_t p, const std::vector<std::vector<size_t>>& lists, size_t since,
                     bool acquire) {
      size_t below = SIZE_MAX;
      for (uint32_t u = 0; u < lists.size(); ++u) {
        if (u == p) continue;
        const std::vector<size_t>& list = lists[u];
        size_t x = list.size();
        for (; x > 0 && list[x - 1] >= since; --x)
          if (!(acquire && ev[list[x - 1]].kind == LsEvent::Release &&
                (node[list[x - 1]] == SIZE_MAX || !tries_at(node[list[x - 1]], p))) &&
              !hb(list[x - 1], p))
            ask_at(list[x - 1], p);
        const size_t j = x > 0 ? list[x - 1] : SIZE_MAX;  // the last one before `since`
        if (j != SIZE_MAX && !hb(j, p) && (below == SIZE_MAX || j > below)) below = j;
      }
      if (below != SIZE_MAX) ask_at(below, p);
    };
    auto since_of = [&](uint32_t p) { return of[p].empty() ? 0 : of[p].back() + 1; };
    for (size_t i = 0; i < ev.size(); ++i) {
      const LsEvent& e = ev[i];
      const uint32_t t = e.tid;
      std::vector<uint32_t>& c = clock[t];
      auto join = [&](size_t j) {
        if (j == SIZE_MAX) return;
        for (uint32_t u = 0; u < threads; ++u) c[u] = std::max(c[u], at[j][u]);
      };
      if (forks(e)) {
        if (e.obj < threads) {
          if (e.kind == LsEvent::Fork) forked[e.obj] = i;
          if (e.kind == LsEvent::Join && !of[e.obj].empty()) join(of[e.obj].back());
        }
      } else {
        auto& lists = on[key(e)];
        if (lists.size() < threads) lists.resize(threads);
        check(t, lists, since_of(t), e.kind == LsEvent::Acquire && !may_try(i));
        for (uint32_t u = 0; u < threads; ++u)
          if (u != t && !lists[u].empty()) join(lists[u].back());
        lists[t].push_back(i);
      }
      join(forked[t]);
      ++c[t];
      at[i] = c;
      of[t].push_back(i);
    }
    // A deadlock: the threads still there are those blocked, each at a known operation. One
    // that waits for a join of a thread also still there (or of itself) waits for an end that
    // no order of this execution's events brings: its join races with nothing (a thread ends
    // only by its own steps, whose races are its own). One that waits for a mutex races with
    // that mutex's operations as an acquisition does. Any other may do anything next.
    if (deadlock_) {
      auto there = [&](uint64_t tid) {
        for (const BlockedThread& b : blocked_)
          if (b.tid == tid) return true;
        return false;
      };
      for (const BlockedThread& b : blocked_) {
        if (b.tid >= threads) continue;
        if (b.op == ch::kOpThreadJoin && there(b.obj)) continue;
        if (b.op == ch::kOpMutexLock) {
          auto& lists = on[b.obj * 2];
          if (lists.size() < threads) lists.resize(threads);
          check(b.tid, lists, since_of(b.tid), true);
          continue;
        }
        check(b.tid, of, since_of(b.tid), false);
      }
      return;
    }
    // The threads still there at the end (every thread but those seen ended or joined) may do
    // anything next.
    std::vector<bool> ended(threads, false);
    for (size_t k = 0; k < n; ++k)
      if (!candidate_at(k, points[k].current) && points[k].current_op == ch::kOpNone)
        ended[points[k].current] = true;
    for (const LsEvent& e : ev)
      if (e.kind == LsEvent::Join && e.obj < threads) ended[e.obj] = true;
    for (uint32_t p = 0; p < threads; ++p)
      if (!ended[p]) check(p, of, since_of(p), false);
  }

  // Starts recording the first context of the thread chosen at stack_[node].
  void record(size_t node, size_t chosen) {
    Node& n = stack_[node];
    const Candidate& c = n.candidates[chosen];
    n.children.push_back(Child{c.tid, chosen, nullptr});
    if (!n.calm || is_spurious(c) || c.times_out) return;
    recordings_.push_back(Recording{node, c.tid, Footprint{op_of(c)}});
  }

  Child* child_of(const Recording& rec) {
    for (Child& child : stack_[rec.node].children)
      if (child.tid == rec.tid) return &child;
    return nullptr;
  }

  // Each choice point of an execution: the contexts being recorded go on while their thread
  // runs at it, and end where it stops (its blocked operation or its end is the last of the
  // footprint). A context that ends where the channel cannot see it (no choice point: one
  // other thread could run) or that does something fairness counts is not kept.
  void feed(const ChoicePoint& point, const Options& o) {
    for (size_t r = 0; r < recordings_.size();) {
      Recording& rec = recordings_[r];
      bool done = false, keep = false;
      if (point.current != rec.tid) {
        // It stopped where no choice point was (one other thread could run): it does not run.
        if (rec.ops.size() == 1)
          if (Child* child = child_of(rec)) child->runs_after = 0;
        done = true;
      } else {
        const Op op = current_op(point);
        bool candidate = false;
        for (const Candidate& c : point.candidates) candidate |= c.tid == rec.tid;
        if (rec.ops.size() == 1)
          if (Child* child = child_of(rec)) child->runs_after = candidate && o.current_runs;
        rec.ops.push_back(op);
        if (kind_of(op.op) == Kind::Any) {
          done = true;
        } else if (candidate && o.current_runs) {
          // It goes on (the default; the current thread never sleeps).
        } else if (!candidate) {
          done = keep = true;
        } else {
          done = true;  // it gives way (fairness): not kept
        }
      }
      if (!done) {
        ++r;
        continue;
      }
      if (keep) finish(rec);
      recordings_.erase(recordings_.begin() + static_cast<std::ptrdiff_t>(r));
    }
  }

  // A whole first context: kept when another candidate of its node stays enabled all along (an
  // operation independent of all of it), so that every operation of the context was at a
  // choice point, seen.
  void finish(Recording& rec) {
    Node& n = stack_[rec.node];
    bool seen = false;
    for (const Candidate& c : n.candidates)
      if (c.tid != rec.tid && !is_spurious(c) && !dependent(op_of(c), rec.ops)) seen = true;
    if (!seen) return;
    if (Child* child = child_of(rec))
      child->footprint = std::make_shared<const Footprint>(std::move(rec.ops));
  }

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
  // Sleep sets: the sleepers after the last choice, the contexts being recorded, whether the
  // rest of this execution is covered by earlier ones (every thread asleep), alternatives
  // left out as covered.
  std::vector<Sleeper> after_;
  std::vector<Recording> recordings_;
  bool covered_ = false;
  uint64_t slept_ = 0;
  uint64_t unasked_ = 0;  // alternatives no race asked for
  // The recorded events of the execution (observe(), until end()).
  const std::vector<LsEvent>* events_ = nullptr;
  // The execution ended in a deadlock; its blocked threads (observe_ending(), until end()).
  bool deadlock_ = false;
  std::vector<BlockedThread> blocked_;
  // The classes of the executions up to the order of independent operations (trace_class of
  // each execution's recorded events; its Mazurkiewicz trace): an optimal reduction runs one
  // execution of each. Counted up to kClassLimit (the memory stays bounded).
  static constexpr size_t kClassLimit = size_t{1} << 16;
  std::unordered_set<uint64_t> classes_;
};

}  // namespace

std::unique_ptr<Strategy> make_dfs(uint32_t max_preemptions, DfsPoints points, Shard shard) {
  return std::make_unique<Dfs>(max_preemptions, points, shard);
}

}  // namespace racepred::explore
