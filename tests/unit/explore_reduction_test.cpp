// The Goldilocks reduction of dfs (Elmas and Qadeer, "A New Lockset Algorithm and Its
// Applications", §5) on generated small programs (no process): threads of lock, unlock, read
// and write steps, a scheduling point before every step as under RACEPRED_SCHEDULE_ACCESSES.
// The reduced search (access points branch only where the lock sets see a potential race) must
// find exactly the racy pairs of steps and the deadlocks that the unreduced search over every
// access point finds, with no more executions; the lock sets must agree with a vector-clock
// happens-before check on every execution.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "racepred/explore/goldilocks.hpp"
#include "racepred/explore/strategy.hpp"
#include "racepred/format/explore_channel.hpp"

namespace racepred::explore {
namespace RACEPRED_TEST_FILE {

namespace ch = format::explore;

struct Step {
  // Start: a new thread's first step, to its first hook (it records nothing). Join: waits
  // until thread `obj` has done all its steps.
  enum Kind : uint8_t { Lock, Unlock, Read, Write, Start, Join } kind;
  uint32_t obj;  // a lock, a variable or a thread
};
using Program = std::vector<std::vector<Step>>;  // the steps of each thread
using StepId = std::pair<uint32_t, uint32_t>;    // thread, step index
using Schedule = std::vector<uint32_t>;          // the thread chosen at each choice point

struct Outcome {
  std::vector<ChoicePoint> points;
  std::vector<LsEvent> events;
  std::vector<StepId> steps;  // the step of each event
  bool deadlock = false;
  std::vector<BlockedThread> blocked;  // at a deadlock: each thread still there
};

// A thread about to do a step, as the runtime offers it (locks at 0x1000 + n, variables 64
// bytes apart; an access's point is 1 for a write).
Candidate candidate(uint32_t tid, const Step& s) {
  switch (s.kind) {
    case Step::Lock:
      return {tid, ch::kOpMutexLock, 0x1000u + s.obj};
    case Step::Unlock:
      return {tid, uint8_t{7}, 0x1000u + s.obj};
    case Step::Start:
      return {tid, ch::kOpNone, 0};
    case Step::Join:
      return {tid, ch::kOpThreadJoin, s.obj + 1u};  // the runtime's join object: tid + 1
    default:
      return {tid, ch::kOpAccess, 0x10000u + 64u * s.obj, uint8_t(s.kind == Step::Write ? 1 : 0)};
  }
}

// Runs the program as the runtime would with access points: before each step the thread is at
// a scheduling point; two or more enabled threads make a choice point.
Outcome simulate(const Program& program,
                 const std::function<size_t(const ChoicePoint&, size_t)>& choose) {
  Outcome out;
  const uint32_t n = static_cast<uint32_t>(program.size());
  std::vector<uint32_t> next(n, 0);
  std::vector<uint64_t> prev(n, 0);
  std::vector<int> owner(2, -1);
  uint32_t current = 0;
  uint64_t seq = 0;
  for (;;) {
    ChoicePoint p;
    p.current = current;
    p.seq = seq;
    bool unfinished = false;
    for (uint32_t t = 0; t < n; ++t) {
      if (next[t] >= program[t].size()) continue;
      unfinished = true;
      const Step& s = program[t][next[t]];
      if (s.kind == Step::Lock && owner[s.obj] != -1) continue;
      if (s.kind == Step::Join && next[s.obj] < program[s.obj].size()) continue;
      p.candidates.push_back(candidate(t, s));
    }
    // The current thread when it cannot run: blocked at a lock, or ended.
    if (current < n && next[current] < program[current].size()) {
      const Candidate c = candidate(current, program[current][next[current]]);
      p.current_op = c.op;
      p.current_obj = ch::fold_object(c.obj);
    }
    if (p.candidates.empty()) {
      out.deadlock = unfinished;
      // As the runtime describes a deadlock: a join names the thread, a mutex its address.
      for (uint32_t t = 0; t < n && unfinished; ++t) {
        if (next[t] >= program[t].size()) continue;
        const Step& s = program[t][next[t]];
        out.blocked.push_back(s.kind == Step::Join
                                  ? BlockedThread{t, ch::kOpThreadJoin, s.obj}
                                  : BlockedThread{t, ch::kOpMutexLock, 0x1000u + s.obj});
      }
      break;
    }
    uint32_t t = p.candidates[0].tid;
    if (p.candidates.size() > 1) {
      t = p.candidates[choose(p, out.points.size())].tid;
      p.chosen = t;
      out.points.push_back(p);
    }
    const Step& s = program[t][next[t]];
    current = t;
    if (s.kind == Step::Start) {
      ++next[t];
      continue;
    }
    LsEvent e;
    e.tid = t;
    e.seq = seq;
    e.prev = prev[t];
    e.obj = s.obj;
    switch (s.kind) {
      case Step::Lock:
        e.kind = LsEvent::Acquire;
        e.obj += 0x1000;
        owner[s.obj] = static_cast<int>(t);
        break;
      case Step::Unlock:
        e.kind = LsEvent::Release;
        e.obj += 0x1000;
        owner[s.obj] = -1;
        break;
      case Step::Join:
        e.kind = LsEvent::Join;
        break;
      default:
        e.kind = LsEvent::Access;
        e.write = s.kind == Step::Write;
    }
    out.events.push_back(e);
    out.steps.push_back({t, next[t]});
    prev[t] = seq + 1;
    ++seq;
    ++next[t];
    current = t;
  }
  return out;
}

// The racy pairs of steps of one execution by vector clocks (program order, release -> later
// acquire of the lock).
std::set<std::pair<StepId, StepId>> races_of(const Program& program, const Outcome& o) {
  const size_t n = program.size();
  std::vector<std::vector<uint32_t>> clock(n, std::vector<uint32_t>(n, 0));
  std::vector<std::vector<uint32_t>> lock_clock(8, std::vector<uint32_t>(n, 0));
  struct Access {
    StepId step;
    bool write;
    std::vector<uint32_t> vc;
  };
  std::vector<std::vector<Access>> accesses(8);
  std::set<std::pair<StepId, StepId>> races;
  for (const StepId& id : o.steps) {
    const Step& s = program[id.first][id.second];
    auto& c = clock[id.first];
    ++c[id.first];
    if (s.kind == Step::Lock) {
      for (size_t i = 0; i < n; ++i) c[i] = std::max(c[i], lock_clock[s.obj][i]);
    } else if (s.kind == Step::Unlock) {
      lock_clock[s.obj] = c;
    } else if (s.kind == Step::Join) {
      for (size_t i = 0; i < n; ++i) c[i] = std::max(c[i], clock[s.obj][i]);
    } else {
      const bool write = s.kind == Step::Write;
      for (const Access& a : accesses[s.obj]) {
        if (a.step.first == id.first || (!a.write && !write)) continue;
        if (a.vc[a.step.first] > c[a.step.first]) races.insert({a.step, id});
      }
      accesses[s.obj].push_back({id, write, c});
    }
  }
  return races;
}

// Threads of one or two items: a plain access or a critical section (sometimes with a nested
// one, in either lock order: deadlocks). Half of the accesses are of the thread's own variable
// (race-free: the accesses the reduction does not branch at).
Program generate(std::mt19937& rng) {
  const uint32_t threads = 2 + rng() % 2;
  Program p(threads);
  for (uint32_t t = 0; t < threads; ++t) {
    auto& steps = p[t];
    auto access = [&] {
      const uint32_t var = rng() % 2 ? 2 + t : rng() % 2;
      steps.push_back({rng() % 2 ? Step::Write : Step::Read, var});
    };
    const uint32_t items = 1 + rng() % 2;
    for (uint32_t i = 0; i < items; ++i) {
      if (rng() % 2) {
        const uint32_t lock = rng() % 2;
        steps.push_back({Step::Lock, lock});
        access();
        if (rng() % 3 == 0) {
          steps.push_back({Step::Lock, 1 - lock});
          access();
          steps.push_back({Step::Unlock, 1 - lock});
        }
        steps.push_back({Step::Unlock, lock});
      } else {
        access();
      }
    }
    access();
  }
  return p;
}

struct SearchResult {
  std::set<std::pair<StepId, StepId>> races;
  bool deadlock = false;
  uint64_t executions = 0;
};

// One execution of the search: simulated, its racy points marked and its events shown to the
// strategy; `more`: whether the search goes on.
Outcome execute(const Program& program, Strategy& dfs, bool& more) {
  dfs.begin();
  Outcome o = simulate(program, [&](const ChoicePoint& p, size_t i) { return dfs.choose(p, i); });
  if (dfs.wants_racy_points()) {
    mark_racy_points(o.events, o.points);
    dfs.observe(o.events);
  }
  dfs.observe_ending(o.deadlock ? Ending::Deadlock : Ending::Exited, o.blocked);
  more = dfs.end(o.points);
  return o;
}

SearchResult search(const Program& program, uint32_t bound, DfsPoints points) {
  std::unique_ptr<Strategy> dfs = make_dfs(bound, points);
  SearchResult r;
  bool more = true;
  while (more) {
    Outcome o = execute(program, *dfs, more);
    ++r.executions;
    if (r.executions > 200000) break;
    const auto races = races_of(program, o);
    r.races.insert(races.begin(), races.end());
    r.deadlock = r.deadlock || o.deadlock;
  }
  return r;
}

TEST(ExploreReduction, SameRacesAndDeadlocksAsTheUnreducedSearchWithFewerExecutions) {
  std::mt19937 rng(2026);
  uint64_t reduced_total = 0, unreduced_total = 0, with_races = 0, with_deadlocks = 0;
  for (int i = 0; i < 120; ++i) {
    const Program program = generate(rng);
    for (uint32_t bound : {1u, 3u}) {
      const SearchResult all = search(program, bound, DfsPoints::All);
      const SearchResult reduced = search(program, bound, DfsPoints::Goldilocks);
      EXPECT_EQ(reduced.races, all.races) << "program " << i << ", bound " << bound;
      EXPECT_EQ(reduced.deadlock, all.deadlock) << "program " << i << ", bound " << bound;
      EXPECT_LE(reduced.executions, all.executions) << "program " << i << ", bound " << bound;
      reduced_total += reduced.executions;
      unreduced_total += all.executions;
      with_races += all.races.empty() ? 0 : 1;
      with_deadlocks += all.deadlock ? 1 : 0;
    }
  }
  // The generator makes racy, race-free and deadlocking programs, and the reduction saves.
  EXPECT_GT(with_races, 30u);
  EXPECT_GT(with_deadlocks, 3u);
  EXPECT_LT(reduced_total, unreduced_total) << reduced_total << " vs " << unreduced_total;
  std::printf("reduced %llu executions, unreduced %llu\n",
              static_cast<unsigned long long>(reduced_total),
              static_cast<unsigned long long>(unreduced_total));
}

// Three or four threads of critical sections (nested sometimes, in either order) around
// accesses of their own variables: the executions differ only in the order in which the
// threads take each lock. Every such order (with the deadlocks) that the unreduced search
// reaches within the preemption bound must be reached by the reduced search: this checks the
// partial-order reduction against the bound (a race reversed where a preemption is needed is
// also tried at the start of its context).
Program generate_locking(std::mt19937& rng) {
  const uint32_t threads = 3 + rng() % 2;
  Program p(threads);
  for (uint32_t t = 0; t < threads; ++t) {
    auto& steps = p[t];
    const uint32_t own = 2 + t;
    const uint32_t items = 1 + rng() % 2;
    for (uint32_t i = 0; i < items; ++i) {
      if (rng() % 3 == 0) steps.push_back({Step::Write, own});
      const uint32_t lock = rng() % 2;
      steps.push_back({Step::Lock, lock});
      steps.push_back({rng() % 2 ? Step::Write : Step::Read, own});
      if (rng() % 4 == 0) {
        steps.push_back({Step::Lock, 1 - lock});
        steps.push_back({Step::Unlock, 1 - lock});
      }
      steps.push_back({Step::Unlock, lock});
    }
  }
  return p;
}

// The order in which the threads took each lock (the execution's class up to the order of
// independent steps), and whether it deadlocked.
using LockOrders = std::set<std::pair<std::vector<StepId>, bool>>;

LockOrders lock_orders(const Program& program, uint32_t bound, DfsPoints points,
                       uint64_t& executions, Shard shard = {}) {
  std::unique_ptr<Strategy> dfs = make_dfs(bound, points, shard);
  LockOrders orders;
  bool more = true;
  while (more && executions < 400000) {
    Outcome o = execute(program, *dfs, more);
    ++executions;
    if (!dfs->last_is_owned()) continue;
    std::vector<StepId> order;
    for (uint32_t lock = 0; lock < 2; ++lock) {
      for (const StepId& id : o.steps) {
        const Step& s = program[id.first][id.second];
        if (s.kind == Step::Lock && s.obj == lock) order.push_back(id);
      }
      order.push_back({UINT32_MAX, lock});
    }
    orders.insert({order, o.deadlock});
  }
  EXPECT_FALSE(more);
  return orders;
}

TEST(ExploreReduction, SleepSetsReachEveryLockOrderOfTheBound) {
  std::mt19937 rng(2027);
  uint64_t reduced = 0, unreduced = 0;
  for (int i = 0; i < 60; ++i) {
    const Program program = generate_locking(rng);
    for (uint32_t bound : {0u, 1u, 2u}) {
      const LockOrders all = lock_orders(program, bound, DfsPoints::All, unreduced);
      const LockOrders some = lock_orders(program, bound, DfsPoints::Goldilocks, reduced);
      EXPECT_EQ(some, all) << "program " << i << ", bound " << bound;
      // Sharded (sleep sets instead of the partial-order reduction): the shards together.
      LockOrders shards;
      uint64_t sharded = 0;
      for (uint32_t k = 0; k < 3; ++k) {
        const LockOrders part =
            lock_orders(program, bound, DfsPoints::Goldilocks, sharded, Shard{k, 3, 3});
        shards.insert(part.begin(), part.end());
      }
      EXPECT_EQ(shards, all) << "program " << i << ", bound " << bound << ", sharded";
    }
  }
  EXPECT_LT(reduced, unreduced) << reduced << " vs " << unreduced;
  std::printf("reduced %llu executions, unreduced %llu\n", static_cast<unsigned long long>(reduced),
              static_cast<unsigned long long>(unreduced));
}

// Sharded, the top of the tree branches fully (it must not depend on other shards' runs) and
// sleep sets take the place of the partial-order reduction: the shards together find the same
// races and deadlocks as the unsharded reduced search and the unreduced one.
TEST(ExploreReduction, ShardsCoverTheUnshardedReducedSearch) {
  std::mt19937 rng(7);
  for (int i = 0; i < 40; ++i) {
    const Program program = generate(rng);
    auto run = [&](Shard shard, std::multiset<Schedule>& schedules, SearchResult& r) {
      std::unique_ptr<Strategy> dfs = make_dfs(1, DfsPoints::Goldilocks, shard);
      bool more = true;
      uint64_t runs = 0;
      while (more && ++runs < 200000) {
        dfs->begin();
        Outcome o =
            simulate(program, [&](const ChoicePoint& p, size_t k) { return dfs->choose(p, k); });
        mark_racy_points(o.events, o.points);
        dfs->observe(o.events);
        dfs->observe_ending(o.deadlock ? Ending::Deadlock : Ending::Exited, o.blocked);
        more = dfs->end(o.points);
        if (!dfs->last_is_owned()) continue;
        ++r.executions;
        Schedule s;
        for (const ChoicePoint& p : o.points) s.push_back(p.chosen);
        schedules.insert(s);
        const auto races = races_of(program, o);
        r.races.insert(races.begin(), races.end());
        r.deadlock = r.deadlock || o.deadlock;
      }
      EXPECT_FALSE(more);
    };
    std::multiset<Schedule> whole, joined;
    SearchResult unsharded, shards;
    run(Shard{}, whole, unsharded);
    for (uint32_t k = 0; k < 3; ++k) run(Shard{k, 3, 3}, joined, shards);
    const SearchResult all = search(program, 1, DfsPoints::All);
    EXPECT_EQ(shards.races, all.races) << "program " << i;
    EXPECT_EQ(shards.deadlock, all.deadlock) << "program " << i;
    EXPECT_EQ(unsharded.races, all.races) << "program " << i;
    EXPECT_EQ(unsharded.deadlock, all.deadlock) << "program " << i;
  }
}

// The program with a start step before every thread but the first (as the runtime offers a
// thread that has not reached its first hook yet).
Program with_starts(Program p) {
  for (size_t t = 1; t < p.size(); ++t) p[t].insert(p[t].begin(), Step{Step::Start, 0});
  return p;
}

// The program with a main thread (thread 0) before its threads, as pthread programs are: it
// writes a shared variable sometimes, then joins each thread in turn (in a deadlock it waits in
// a join).
Program with_joining_main(Program p, std::mt19937& rng) {
  std::vector<Step> main;
  if (rng() % 2) main.push_back({Step::Write, 0});
  for (uint32_t t = 1; t <= p.size(); ++t) main.push_back({Step::Join, t});
  p.insert(p.begin(), main);
  return p;
}

// The class of an execution by definition (Mazurkiewicz): the steps it ran and the order of
// every pair of dependent steps of two threads — the same lock, or the same variable with a
// write among them.
using DependentOrders = std::set<std::pair<StepId, StepId>>;
DependentOrders dependent_orders(const Program& program, const Outcome& o) {
  DependentOrders out;
  for (const StepId& id : o.steps) out.insert({id, id});
  for (size_t a = 0; a < o.steps.size(); ++a)
    for (size_t b = a + 1; b < o.steps.size(); ++b) {
      const StepId x = o.steps[a], y = o.steps[b];
      if (x.first == y.first) continue;
      const Step& s = program[x.first][x.second];
      const Step& t = program[y.first][y.second];
      const bool lock_s = s.kind == Step::Lock || s.kind == Step::Unlock;
      const bool lock_t = t.kind == Step::Lock || t.kind == Step::Unlock;
      if (lock_s != lock_t || s.obj != t.obj) continue;
      if (!lock_s && s.kind == Step::Read && t.kind == Step::Read) continue;
      out.insert({x, y});
    }
  return out;
}

// The classes (trace_class) and races and deadlocks of one search.
struct ClassResult {
  std::set<uint64_t> classes;
  std::set<std::pair<StepId, StepId>> races;
  bool deadlock = false;
  uint64_t executions = 0;
};

ClassResult classes_of(const Program& program, uint32_t bound, DfsPoints points, Shard shard = {}) {
  std::unique_ptr<Strategy> dfs = make_dfs(bound, points, shard);
  ClassResult r;
  bool more = true;
  uint64_t runs = 0;
  while (more && ++runs < 400000) {
    Outcome o = execute(program, *dfs, more);
    if (!dfs->last_is_owned()) continue;
    ++r.executions;
    r.classes.insert(trace_class(o.events));
    const auto races = races_of(program, o);
    r.races.insert(races.begin(), races.end());
    r.deadlock = r.deadlock || o.deadlock;
  }
  EXPECT_FALSE(more);
  return r;
}

// trace_class tells two executions apart exactly when the order of some pair of dependent
// steps differs (checked against that definition on every execution of the unreduced search).
TEST(ExploreReduction, TraceClassIsTheOrderOfDependentSteps) {
  std::mt19937 rng(2028);
  uint64_t executions = 0;
  std::set<uint64_t> all_classes;
  for (int i = 0; i < 32; ++i) {
    Program program = i % 2 ? generate(rng) : generate_locking(rng);
    if (i % 4 < 2) program = with_starts(program);
    std::map<uint64_t, DependentOrders> by_class;
    std::map<DependentOrders, uint64_t> by_orders;
    std::unique_ptr<Strategy> dfs = make_dfs(1, DfsPoints::All);
    bool more = true;
    while (more) {
      Outcome o = execute(program, *dfs, more);
      ++executions;
      const uint64_t c = trace_class(o.events);
      const DependentOrders d = dependent_orders(program, o);
      auto [a, fresh_a] = by_class.emplace(c, d);
      auto [b, fresh_b] = by_orders.emplace(d, c);
      EXPECT_EQ(a->second, d) << "program " << i << ": one class, two orders";
      EXPECT_EQ(b->second, c) << "program " << i << ": one order, two classes";
      all_classes.insert(c);
    }
  }
  // Fewer classes than executions: the unreduced search runs many executions of one class.
  EXPECT_LT(all_classes.size() * 2, executions);
}

// The reduced search (unsharded: partial-order reduction; sharded: sleep sets) reaches every
// class of execution up to the order of independent steps that the unreduced search reaches
// within the preemption bound, with its races and deadlocks, at the bounds 0, 1 and 2.
// The reduced search against the unreduced one on `program` at bounds 0 to 2: the same
// classes, races and deadlocks, unsharded and sharded; the searches' sizes added up.
struct ClassTotals {
  uint64_t reduced = 0, unreduced = 0, classes = 0, deadlocks = 0;
};
void expect_every_class(const Program& program, int i, ClassTotals& totals) {
  for (uint32_t bound : {0u, 1u, 2u}) {
    const ClassResult all = classes_of(program, bound, DfsPoints::All);
    const ClassResult some = classes_of(program, bound, DfsPoints::Goldilocks);
    EXPECT_EQ(some.classes, all.classes) << "program " << i << ", bound " << bound;
    EXPECT_EQ(some.races, all.races) << "program " << i << ", bound " << bound;
    EXPECT_EQ(some.deadlock, all.deadlock) << "program " << i << ", bound " << bound;
    ClassResult shards;
    for (uint32_t k = 0; k < 3; ++k) {
      const ClassResult part = classes_of(program, bound, DfsPoints::Goldilocks, Shard{k, 3, 3});
      shards.classes.insert(part.classes.begin(), part.classes.end());
      shards.races.insert(part.races.begin(), part.races.end());
      shards.deadlock = shards.deadlock || part.deadlock;
    }
    EXPECT_EQ(shards.classes, all.classes) << "program " << i << ", bound " << bound << ", sharded";
    EXPECT_EQ(shards.races, all.races) << "program " << i << ", bound " << bound << ", sharded";
    EXPECT_EQ(shards.deadlock, all.deadlock)
        << "program " << i << ", bound " << bound << ", sharded";
    totals.reduced += some.executions;
    totals.unreduced += all.executions;
    totals.classes += all.classes.size();
    totals.deadlocks += all.deadlock ? 1 : 0;
  }
}

TEST(ExploreReduction, ReducedSearchReachesEveryClassOfTheBound) {
  std::mt19937 rng(2029);
  ClassTotals t;
  for (int i = 0; i < 32; ++i) {
    Program program = i % 2 ? generate(rng) : generate_locking(rng);
    if (i % 4 < 2) program = with_starts(program);
    expect_every_class(program, i, t);
  }
  EXPECT_LT(t.reduced, t.unreduced) << t.reduced << " vs " << t.unreduced;
  std::printf("reduced %llu executions, unreduced %llu, classes %llu\n",
              static_cast<unsigned long long>(t.reduced),
              static_cast<unsigned long long>(t.unreduced),
              static_cast<unsigned long long>(t.classes));
}

// Two or three threads of critical sections (nested sometimes, in either order: deadlocks) and
// a main thread that joins them: where they deadlock, main waits in a join of a thread that
// never ends, and the reduced search knows it has nothing left to race with.
TEST(ExploreReduction, ReducedSearchWithAJoiningMainReachesEveryClassOfTheBound) {
  std::mt19937 rng(2030);
  ClassTotals t;
  for (int i = 0; i < 24; ++i) {
    Program program = i % 3 ? generate_locking(rng) : generate(rng);
    if (program.size() > 3) program.pop_back();
    // Mostly nested critical sections (in a random order of the two locks): deadlocks.
    if (i % 3)
      for (auto& steps : program)
        if (rng() % 2 && steps.size() >= 3 && steps[0].kind == Step::Lock) {
          const uint32_t other = 1 - steps[0].obj;
          steps.insert(steps.begin() + 2, {{Step::Lock, other}, {Step::Unlock, other}});
        }
    program = with_joining_main(program, rng);
    if (i % 2) program = with_starts(program);
    expect_every_class(program, i, t);
  }
  EXPECT_GT(t.deadlocks, 6u);
  EXPECT_LT(t.reduced, t.unreduced) << t.reduced << " vs " << t.unreduced;
  std::printf(
      "reduced %llu executions, unreduced %llu, classes %llu, %llu with deadlocks\n",
      static_cast<unsigned long long>(t.reduced), static_cast<unsigned long long>(t.unreduced),
      static_cast<unsigned long long>(t.classes), static_cast<unsigned long long>(t.deadlocks));
}

TEST(ExploreReduction, LockSetsAgreeWithHappensBefore) {
  // On every execution the lock sets flag exactly the accesses that are not ordered after
  // their variable's last access by happens-before (Elmas and Qadeer, Theorem 2; reads count
  // as accesses, as in their §3 and §5).
  std::mt19937 rng(7);
  uint64_t flagged_total = 0;
  for (int i = 0; i < 300; ++i) {
    const Program program = generate(rng);
    std::mt19937 pick(static_cast<uint32_t>(i));
    Outcome o = simulate(program, [&](const ChoicePoint& p, size_t) {
      return static_cast<size_t>(pick() % p.candidates.size());
    });
    const size_t n = program.size();
    std::vector<std::vector<uint32_t>> clock(n, std::vector<uint32_t>(n, 0));
    std::vector<std::vector<uint32_t>> lock_clock(8, std::vector<uint32_t>(n, 0));
    std::vector<std::vector<uint32_t>> at(o.events.size());  // each event's clock
    std::vector<int> last(8, -1);
    uint64_t want = 0;
    for (size_t k = 0; k < o.events.size(); ++k) {
      const StepId id = o.steps[k];
      const Step& s = program[id.first][id.second];
      auto& c = clock[id.first];
      ++c[id.first];
      if (s.kind == Step::Lock) {
        for (size_t t = 0; t < n; ++t) c[t] = std::max(c[t], lock_clock[s.obj][t]);
      } else if (s.kind == Step::Unlock) {
        lock_clock[s.obj] = c;
      } else {
        if (last[s.obj] >= 0) {
          const size_t a = static_cast<size_t>(last[s.obj]);
          const uint32_t ta = o.steps[a].first;
          if (at[a][ta] > c[ta]) ++want;  // not ordered before this access
        }
        last[s.obj] = static_cast<int>(k);
      }
      at[k] = c;
    }
    EXPECT_EQ(mark_racy_points(o.events, o.points), want) << "program " << i;
    flagged_total += want;
  }
  EXPECT_GT(flagged_total, 50u);
}

// The runtime's deadlock description read back: each blocked thread with its join or mutex,
// any other operation as unknown; the heading and closing lines skipped.
TEST(ExploreReduction, DeadlockDescriptionNamesEachBlockedThread) {
  const std::string text =
      "racepred: controlled schedule: all threads blocked (deadlock):\n"
      "  T0 waits for join of T1 (still running)\n"
      "  T1 waits for mutex 0x5581a2c0 held by T2\n"
      "  T2 waits for mutex 0x5581a2e8 held by T1\n"
      "  T3 waits for a signal of condition variable 0x4010\n"
      "  T12 waits for join of T12 (itself)\n"
      "  T13 waits for mutex 0x5581a2c0 after a signal held by T1\n"
      "racepred: the recording ends here (exit status 125)\n";
  const std::vector<BlockedThread> b = parse_blocked(text);
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b[0].tid, 0u);
  EXPECT_EQ(b[0].op, ch::kOpThreadJoin);
  EXPECT_EQ(b[0].obj, 1u);
  EXPECT_EQ(b[1].tid, 1u);
  EXPECT_EQ(b[1].op, ch::kOpMutexLock);
  EXPECT_EQ(b[1].obj, 0x5581a2c0u);
  EXPECT_EQ(b[2].obj, 0x5581a2e8u);
  EXPECT_EQ(b[3].tid, 3u);
  EXPECT_EQ(b[3].op, ch::kOpNone);
  EXPECT_EQ(b[4].tid, 12u);
  EXPECT_EQ(b[4].obj, 12u);
  EXPECT_EQ(b[5].tid, 13u);
  EXPECT_EQ(b[5].op, ch::kOpNone);
  EXPECT_TRUE(parse_blocked("").empty());
  EXPECT_TRUE(parse_blocked("  Tx waits for join of T1\n  T1 sleeps\n").empty());
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::explore
