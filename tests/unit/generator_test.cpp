// Random trace generator: determinism, well-formedness (Def. 3.2 of Sulzmann and Thiemann),
// options.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "racepred/io/reader.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

// Def. 3.2 checked directly. `main_thread` is the thread allowed to run without a fork;
// with `allow_unforked` every thread may (policy of docs/WELLFORMEDNESS.md for shape none). Returns
// "" or the first violation.
std::string def32_violation(const Trace& trace, bool allow_unforked, bool nested = true) {
  std::map<uint32_t, uint32_t> holder;             // lock -> thread (write mode)
  std::map<uint32_t, std::set<uint32_t>> readers;  // lock -> threads (read mode)
  std::map<uint32_t, std::vector<uint32_t>> held;  // thread -> stack
  std::set<uint32_t> forked, joined, seen;
  std::map<uint32_t, size_t> last_event;
  for (size_t i = 0; i < trace.size(); ++i) last_event[trace.events[i].thread] = i;
  const uint32_t main_thread = trace.size() ? trace.events[0].thread : 0;
  for (size_t i = 0; i < trace.size(); ++i) {
    const Event& e = trace.events[i];
    const std::string where = "event " + std::to_string(i + 1) + " " + trace.to_std(e) + ": ";
    if (joined.count(e.thread)) return where + "event of a joined thread";
    if (!allow_unforked && e.thread != main_thread && !forked.count(e.thread))
      return where + "Fork-2: no fork before the thread's event";
    seen.insert(e.thread);
    switch (e.op) {
      case Op::Acquire:
        if (holder.count(e.target)) return where + "Lock-1: lock held";
        if (!readers[e.target].empty()) return where + "Lock-1: lock held in read mode";
        holder[e.target] = e.thread;
        held[e.thread].push_back(e.target);
        break;
      case Op::ReadAcquire:
        if (holder.count(e.target)) return where + "Lock-1: lock held";
        if (!readers[e.target].insert(e.thread).second) return where + "re-entrant read lock";
        break;
      case Op::ReadRelease:
        if (!readers[e.target].erase(e.thread)) return where + "Lock-2: read release";
        break;
      case Op::Release:
        if (!holder.count(e.target) || holder[e.target] != e.thread)
          return where + "Lock-2: release without acquire";
        if (nested && held[e.thread].back() != e.target)
          return where + "release not properly nested";
        holder.erase(e.target);
        held[e.thread].erase(std::find(held[e.thread].begin(), held[e.thread].end(), e.target));
        break;
      case Op::Fork:
        if (forked.count(e.target) || e.target == main_thread) return where + "Fork-1";
        if (seen.count(e.target)) return where + "fork after the thread's first event";
        forked.insert(e.target);
        break;
      case Op::Join:
        if (e.target == e.thread) return where + "Join: joins itself";
        if (last_event.count(e.target) && last_event[e.target] > i)
          return where + "Join: joined thread has later events";
        joined.insert(e.target);
        break;
      default:
        break;
    }
  }
  return {};
}

GeneratorOptions small(uint64_t seed) {
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 3;
  o.events = 24;
  o.variables = 3;
  o.locks = 2;
  o.local_share = 0;
  o.guarded_share = 0.5;
  o.switch_share = 0.5;
  return o;
}

TEST(Generator, SameOptionsSameTrace) {
  for (ForkShape shape :
       {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin, ForkShape::Nested}) {
    GeneratorOptions o;
    o.events = 5000;
    o.shape = shape;
    o.seed = 42;
    const Trace a = generate_trace(o);
    const Trace b = generate_trace(o);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(to_std_text(a), to_std_text(b));
    o.seed = 43;
    EXPECT_NE(to_std_text(a), to_std_text(generate_trace(o)));
  }
}

TEST(Generator, ReadLocksAreWellFormedAndOffByDefault) {
  uint64_t read_acquires = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    GeneratorOptions o = small(seed);
    o.threads = 2 + seed % 3;
    o.cs_share = 0.8;
    EXPECT_EQ(to_std_text(generate_trace(o)).find("racq"), std::string::npos);
    o.read_lock_share = 0.5;
    const Trace t = generate_trace(o);
    ValidationReport report;
    parse_checked_trace(to_std_text(t), {}, ValidationMode::Collect, &report, "gen.std");
    EXPECT_TRUE(report.ok()) << "seed " << seed;
    EXPECT_EQ(def32_violation(t, false), "") << "seed " << seed;
    EXPECT_EQ(report.reentrant_acquires, 0u) << "seed " << seed;
    for (const Event& e : t.events) read_acquires += e.op == Op::ReadAcquire;
  }
  EXPECT_GT(read_acquires, 200u);
}

// sync_share: send/recv on S<n> (or, sync_on_locks, on the lock names); the traces stay
// well-formed, and without the option none appear.
TEST(Generator, SyncSharePutsSendsAndRecvsOnSyncObjects) {
  uint64_t sends = 0, recvs = 0, on_locks = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    GeneratorOptions o = small(seed);
    o.events = 200;
    o.threads = 2 + seed % 3;
    EXPECT_EQ(to_std_text(generate_trace(o)).find("send("), std::string::npos);
    o.sync_share = 0.2;
    o.sync_objects = 3;
    o.sync_on_locks = seed % 2 == 0;
    const Trace t = generate_trace(o);
    ValidationReport report;
    parse_checked_trace(to_std_text(t), {}, ValidationMode::Collect, &report, "gen.std");
    EXPECT_TRUE(report.ok()) << "seed " << seed;
    for (const Event& e : t.events) {
      sends += e.op == Op::Send;
      recvs += e.op == Op::Recv;
      if (is_sync_op(e.op)) {
        const std::string_view name = t.symbols.locks.name(e.target);
        EXPECT_EQ(name[0], o.sync_on_locks ? 'L' : 'S') << name;
        on_locks += name[0] == 'L';
      }
    }
  }
  EXPECT_GT(sends, 300u);
  EXPECT_GT(recvs, 300u);
  EXPECT_GT(on_locks, 100u);
}

// The PRNG and the generator are platform independent: this exact text must come out
// everywhere. (If the generator is changed on purpose, update the text and say so.)
TEST(Generator, GoldenTrace) {
  GeneratorOptions o = small(7);
  o.events = 12;
  o.shape = ForkShape::ForkJoin;
  const std::string text = to_std_text(generate_trace(o));
  const std::string expected =
      "T0|fork(T1)|13\n"
      "T0|fork(T2)|12\n"
      "T2|w(V2)|16\n"
      "T1|acq(L1)|9\n"
      "T1|r(V1)|7\n"
      "T0|acq(L0)|10\n"
      "T0|rel(L0)|4\n"
      "T1|rel(L1)|3\n"
      "T0|acq(L1)|9\n"
      "T0|rel(L1)|3\n"
      "T0|join(T2)|10\n"
      "T0|join(T1)|11\n";
  EXPECT_EQ(text, expected) << text;
}

TEST(Generator, RngIsPortable) {
  Rng rng(1);
  // xoshiro256** seeded by splitmix64(1): fixed values.
  const uint64_t first = rng.next();
  Rng again(1);
  EXPECT_EQ(first, again.next());
  EXPECT_EQ(first, 12966619160104079557ull);
  Rng r(5);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(r.below(7), 7u);
  EXPECT_FALSE(r.chance(0));
  EXPECT_TRUE(r.chance(1));
}

TEST(Generator, WellFormedManyShapes) {
  int traces = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    for (ForkShape shape :
         {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin, ForkShape::Nested}) {
      GeneratorOptions o = small(seed);
      o.shape = shape;
      o.threads = 1 + seed % 5;
      o.events = seed % 40;
      o.nesting = seed % 4;
      o.release_at_end = seed % 3 != 0;
      o.cs_share = (seed % 11) / 10.0;
      const Trace t = generate_trace(o);
      const std::string problem = def32_violation(t, shape == ForkShape::None);
      ASSERT_EQ(problem, "") << "seed " << seed << " shape " << fork_shape_name(shape) << "\n"
                             << to_std_text(t);
      ++traces;
    }
  }
  EXPECT_EQ(traces, 1200);
}

TEST(Generator, OptionsRespected) {
  for (ForkShape shape :
       {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin, ForkShape::Nested}) {
    GeneratorOptions o;
    o.seed = 9;
    o.threads = 6;
    o.events = 20000;
    o.variables = 50;
    o.locks = 5;
    o.nesting = 3;
    o.shape = shape;
    o.write_share = 0.25;
    const Trace t = generate_trace(o);
    ASSERT_EQ(t.size(), o.events);
    EXPECT_EQ(def32_violation(t, shape == ForkShape::None), "");
    EXPECT_EQ(t.symbols.threads.size(), 6u);
    EXPECT_LE(t.symbols.variables.size(), 50u);
    EXPECT_LE(t.symbols.locks.size(), 5u);
    for (uint32_t v = 0; v < t.symbols.variables.size(); ++v) {
      const std::string name(t.symbols.variables.name(v));
      ASSERT_EQ(name[0], 'V');
      EXPECT_LT(std::stoi(name.substr(1)), 50);
    }
    std::map<Op, uint64_t> ops;
    std::map<uint32_t, uint32_t> depth;
    uint32_t max_depth = 0;
    uint64_t in_cs = 0, accesses = 0;
    for (const Event& e : t.events) {
      ++ops[e.op];
      if (e.op == Op::Acquire) max_depth = std::max(max_depth, ++depth[e.thread]);
      if (e.op == Op::Release) --depth[e.thread];
      if (e.is_access()) {
        ++accesses;
        if (depth[e.thread] > 0) ++in_cs;
      }
    }
    EXPECT_LE(max_depth, 3u);
    EXPECT_GE(max_depth, 2u);
    EXPECT_EQ(ops[Op::Acquire], ops[Op::Release]);  // release_at_end
    const double writes = double(ops[Op::Write]) / double(accesses);
    EXPECT_NEAR(writes, 0.25, 0.03);
    const double cs = double(in_cs) / double(accesses);
    EXPECT_NEAR(cs, o.cs_share, 0.15);
    switch (shape) {
      case ForkShape::None:
        EXPECT_EQ(ops[Op::Fork], 0u);
        EXPECT_EQ(ops[Op::Join], 0u);
        break;
      case ForkShape::Fork:
        EXPECT_EQ(ops[Op::Fork], 5u);
        EXPECT_EQ(ops[Op::Join], 0u);
        for (size_t i = 0; i < t.size(); ++i)
          if (t.events[i].op == Op::Fork) {
            EXPECT_EQ(t.thread_name(t.events[i].thread), "T0");
          }
        break;
      case ForkShape::ForkJoin:
        EXPECT_EQ(ops[Op::Fork], 5u);
        EXPECT_EQ(ops[Op::Join], 5u);
        for (size_t i = t.size() - 5; i < t.size(); ++i) EXPECT_EQ(t.events[i].op, Op::Join);
        break;
      case ForkShape::Nested:
      case ForkShape::Churn:
        EXPECT_EQ(ops[Op::Fork], 5u);
        EXPECT_EQ(ops[Op::Join], 5u);
        break;
      case ForkShape::Random:  // not in this loop (GeneratorRandom below)
        break;
    }
  }
}

// churn: short-lived threads, at most `live` besides T0 alive at once, every thread forked and
// joined by T0, the trace well-formed and of the exact length.
TEST(Generator, ChurnKeepsFewThreadsAlive) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    GeneratorOptions o = small(seed);
    o.shape = ForkShape::Churn;
    o.threads = 2 + static_cast<uint32_t>(seed % 40);
    o.live = 1 + static_cast<uint32_t>(seed % 5);
    o.events = 100 + seed * 7;
    o.release_at_end = seed % 2 == 0;
    const Trace t = generate_trace(o);
    ASSERT_EQ(def32_violation(t, false), "") << "seed " << seed << "\n" << to_std_text(t);
    EXPECT_EQ(t.size(), o.events);
    uint32_t alive = 0, most = 0, forks = 0, joins = 0;
    for (const Event& e : t.events) {
      if (e.op == Op::Fork) {
        EXPECT_EQ(t.thread_name(e.thread), "T0");
        most = std::max(most, ++alive);
        ++forks;
      }
      if (e.op == Op::Join) {
        --alive;
        ++joins;
      }
    }
    EXPECT_EQ(forks, o.threads - 1);
    EXPECT_EQ(joins, o.threads - 1);
    EXPECT_LE(most, o.live + 1) << "seed " << seed;  // + 1: the tail forks and joins at once
  }
}

// --skew: the shared variables' popularity follows a power law.
TEST(Generator, SkewMakesFewVariablesHot) {
  GeneratorOptions o;
  o.events = 20000;
  o.variables = 1000;
  o.local_share = 0;
  o.cs_share = 0;
  o.skew = 3;
  const Trace t = generate_trace(o);
  std::map<VariableId, uint64_t> count;
  uint64_t accesses = 0;
  for (const Event& e : t.events)
    if (e.is_access()) {
      ++count[e.target];
      ++accesses;
    }
  std::vector<uint64_t> c;
  for (auto [v, n] : count) c.push_back(n);
  std::sort(c.rbegin(), c.rend());
  uint64_t top = 0;
  for (size_t i = 0; i < std::min<size_t>(10, c.size()); ++i) top += c[i];
  // u^3 < 0.01 for u < 0.215: the hottest 1% of the variables take about a fifth of accesses.
  EXPECT_GT(double(top) / double(accesses), 0.15);
  o.skew = 1;
  const Trace u = generate_trace(o);
  std::map<VariableId, uint64_t> ucount;
  for (const Event& e : u.events)
    if (e.is_access()) ++ucount[e.target];
  uint64_t umax = 0;
  for (auto [v, n] : ucount) umax = std::max(umax, n);
  EXPECT_LT(double(umax) / double(accesses), 0.01);
}

TEST(Generator, PresetsSetTheShape) {
  GeneratorOptions o;
  ASSERT_TRUE(apply_generator_preset("tradebeans", o));
  EXPECT_EQ(o.threads, 236u);
  EXPECT_EQ(o.locks, 6100u);
  ASSERT_TRUE(apply_generator_preset("goroutines", o));
  EXPECT_EQ(o.shape, ForkShape::Churn);
  EXPECT_EQ(o.threads, 100000u);
  EXPECT_EQ(check_generator_options(o), "");
  EXPECT_FALSE(apply_generator_preset("nonesuch", o));
  EXPECT_NE(generator_presets_help().find("xalan"), std::string::npos);
}

TEST(Generator, EarlyJoinsStayWellFormed) {
  int early = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    for (ForkShape shape : {ForkShape::ForkJoin, ForkShape::Nested}) {
      GeneratorOptions o = small(seed);
      o.shape = shape;
      o.threads = 2 + seed % 4;
      o.events = 10 + seed % 30;
      o.early_joins = true;
      o.release_at_end = seed % 2 == 0;
      const Trace t = generate_trace(o);
      ASSERT_EQ(def32_violation(t, false), "") << "seed " << seed << "\n" << to_std_text(t);
      EXPECT_EQ(t.size(), o.events);
      // A join followed by an event of another kind than join: joined before the end.
      for (size_t i = 0; i + 1 < t.size(); ++i)
        if (t.events[i].op == Op::Join && t.events[i + 1].op != Op::Join) {
          ++early;
          break;
        }
    }
  }
  EXPECT_GT(early, 50);
}

// The random shape and the options that the tests' former hand-written trace makers needed:
// forks and joins at any point, unforked threads next to forked ones, forked threads without
// events, joins of threads that hold locks, overlapping critical sections, stale variables.
TEST(GeneratorRandom, WellFormedAndReachesEveryCorner) {
  int unforked_and_forked = 0, idle_children = 0, joins_mid_trace = 0, join_holding = 0;
  int overlapping = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    GeneratorOptions o = small(seed);
    o.shape = ForkShape::Random;
    o.threads = 2 + seed % 4;
    o.events = 10 + seed % 50;
    o.nesting = 2;
    o.nested_releases = false;
    o.release_at_end = seed % 2 == 0;
    o.switch_share = 1;
    const Trace t = generate_trace(o);
    ASSERT_EQ(def32_violation(t, true, /*nested=*/false), "") << "seed " << seed << "\n"
                                                              << to_std_text(t);
    ValidationReport report;
    const Trace checked = parse_checked_trace(to_std_text(t), {}, ValidationMode::Collect, &report);
    ASSERT_TRUE(report.ok()) << "seed " << seed << "\n" << to_std_text(t);
    EXPECT_EQ(t.size(), o.events);
    EXPECT_EQ(checked.size(), t.size());
    std::set<ThreadId> forked, with_events, joined;
    std::map<ThreadId, std::vector<LockId>> held;
    bool event_after_join = false;
    for (const Event& e : t.events) {
      if (!joined.empty() && e.op != Op::Join) event_after_join = true;
      switch (e.op) {
        case Op::Fork:
          forked.insert(e.target);
          break;
        case Op::Join:
          joined.insert(e.target);
          if (!held[e.target].empty()) ++join_holding;
          break;
        case Op::Acquire:
          held[e.thread].push_back(e.target);
          break;
        case Op::Release: {
          auto& h = held[e.thread];
          if (h.back() != e.target) ++overlapping;
          h.erase(std::find(h.begin(), h.end(), e.target));
          break;
        }
        default:
          break;
      }
      with_events.insert(e.thread);
    }
    joins_mid_trace += event_after_join;
    bool unforked = false;
    for (ThreadId u : with_events)
      if (u != 0 && !forked.count(u)) unforked = true;
    unforked_and_forked += unforked && !forked.empty();
    for (ThreadId u : forked) idle_children += !with_events.count(u);
  }
  EXPECT_GT(unforked_and_forked, 20);
  EXPECT_GT(idle_children, 5);
  EXPECT_GT(joins_mid_trace, 20);
  EXPECT_GT(join_holding, 0);
  EXPECT_GT(overlapping, 20);
}

TEST(GeneratorRandom, StaleVariablesFadeAfterTheStart) {
  GeneratorOptions o;
  o.seed = 3;
  o.threads = 4;
  o.variables = 10;
  o.stale_variables = 5;
  o.local_share = 0;
  o.events = 20000;
  const Trace t = generate_trace(o);
  uint64_t stale_late = 0, accesses_late = 0;
  for (size_t i = 200; i < t.size(); ++i)
    if (t.events[i].is_access()) {
      ++accesses_late;
      const std::string_view name = t.variable_name(t.events[i].target);
      stale_late += name.size() == 2 && name[1] < '5';
    }
  EXPECT_GT(accesses_late, 10000u);
  EXPECT_LT(stale_late, accesses_late / 200);
  GeneratorOptions bad = o;
  bad.stale_variables = 10;
  EXPECT_NE(check_generator_options(bad), "");
}

TEST(GeneratorRandom, HotVariablesTakeTheirShare) {
  GeneratorOptions o;
  o.seed = 5;
  o.variables = 10000;
  o.local_share = 0;
  o.hot_variables = 50;
  o.hot_share = 0.3;
  o.events = 20000;
  const Trace t = generate_trace(o);
  uint64_t hot = 0, accesses = 0;
  for (const Event& e : t.events)
    if (e.is_access()) {
      ++accesses;
      const std::string name(t.variable_name(e.target));
      hot += std::stoul(name.substr(1)) < 50;
    }
  EXPECT_NEAR(static_cast<double>(hot) / static_cast<double>(accesses), 0.3, 0.03);
  o.hot_variables = 10001;
  EXPECT_NE(check_generator_options(o), "");
}

// Read-mostly shared data: outside critical sections, accesses to the shared pool (the lower
// half of the variables) are writes with --unguarded-write-share, the thread's own with
// --write-share; the default keeps every access at --write-share (and the same trace).
TEST(GeneratorRandom, UnguardedWriteShareMakesSharedDataReadMostly) {
  GeneratorOptions o;
  o.seed = 9;
  o.threads = 4;
  o.variables = 1000;
  o.nesting = 0;
  o.local_share = 0.5;
  o.write_share = 0.5;
  o.events = 40000;
  const Trace same = generate_trace(o);
  o.unguarded_write_share = 0.5;
  EXPECT_EQ(generate_trace(o).events, same.events);
  o.unguarded_write_share = 0.02;
  const Trace t = generate_trace(o);
  uint64_t shared = 0, shared_writes = 0, local = 0, local_writes = 0;
  for (const Event& e : t.events)
    if (e.is_access()) {
      const bool is_shared = std::stoul(std::string(t.variable_name(e.target)).substr(1)) < 500;
      (is_shared ? shared : local) += 1;
      (is_shared ? shared_writes : local_writes) += e.op == Op::Write;
    }
  EXPECT_GT(shared, 10000u);
  EXPECT_NEAR(static_cast<double>(shared_writes) / static_cast<double>(shared), 0.02, 0.01);
  EXPECT_NEAR(static_cast<double>(local_writes) / static_cast<double>(local), 0.5, 0.03);
  o.unguarded_write_share = 1.5;
  EXPECT_NE(check_generator_options(o), "");
}

// The validator (Def. 3.2 with the policy of docs/WELLFORMEDNESS.md) accepts every generated trace
// and drops nothing.
TEST(Generator, ValidatorAcceptsGeneratedTraces) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    for (ForkShape shape :
         {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin, ForkShape::Nested}) {
      GeneratorOptions o = small(seed);
      o.shape = shape;
      o.threads = 1 + seed % 5;
      o.events = 5 + seed % 60;
      o.early_joins = seed % 2 == 0;
      o.release_at_end = seed % 3 != 0;
      Trace collected;
      TraceCollector collector(collected);
      ValidationOptions validation;
      validation.mode = ValidationMode::Collect;
      validation.file_name = "generated";
      Validator validator(collected.symbols, validation, collector);
      generate_events(o, collected.symbols, validator);
      const ValidationReport& report = validator.report();
      ASSERT_TRUE(report.ok()) << "seed " << seed << ": "
                               << (report.errors.empty() ? "" : report.errors[0].message);
      EXPECT_EQ(report.reentrant_acquires, 0u);
      EXPECT_EQ(collected.events, generate_trace(o).events) << "seed " << seed;
    }
  }
}

TEST(Generator, NoLockingWhenNestingZero) {
  GeneratorOptions o;
  o.nesting = 0;
  o.events = 3000;
  const Trace t = generate_trace(o);
  for (const Event& e : t.events) EXPECT_TRUE(e.op != Op::Acquire && e.op != Op::Release);
}

TEST(Generator, KeepLocksMayEndHoldingLocks) {
  int open = 0;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    GeneratorOptions o = small(seed);
    o.release_at_end = false;
    o.cs_share = 0.9;
    const Trace t = generate_trace(o);
    std::map<uint32_t, int> held;
    for (const Event& e : t.events) {
      if (e.op == Op::Acquire) ++held[e.target];
      if (e.op == Op::Release) --held[e.target];
    }
    for (auto& [l, n] : held) open += n;
    EXPECT_EQ(def32_violation(t, false), "");
  }
  EXPECT_GT(open, 0);
}

TEST(Generator, RoundTripThroughStd) {
  GeneratorOptions o;
  o.events = 2000;
  o.shape = ForkShape::Nested;
  const Trace t = generate_trace(o);
  const std::string text = to_std_text(t);
  const Trace back = parse_trace(text);
  EXPECT_EQ(back.events, t.events);
  EXPECT_EQ(back.ids, t.ids);
  for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t.ids[i], i + 1);

  // The streaming writer writes the same bytes.
  const std::string path = ::testing::TempDir() + "generator_roundtrip.std";
  {
    Symbols symbols;
    StdWriter writer(symbols, path);
    generate_events(o, symbols, writer);
    writer.close();
  }
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), text);
  std::remove(path.c_str());
}

TEST(Generator, RejectsBadOptions) {
  GeneratorOptions o;
  o.threads = 0;
  EXPECT_NE(check_generator_options(o), "");
  o = {};
  o.cs_share = 1.5;
  EXPECT_NE(check_generator_options(o), "");
  o = {};
  o.variables = 0;
  EXPECT_NE(check_generator_options(o), "");
  EXPECT_EQ(check_generator_options(GeneratorOptions{}), "");
}

TEST(Generator, ProducesRacesButMostlyProtected) {
  // Default options: some unprotected shared accesses exist, but most are protected or local.
  GeneratorOptions o;
  o.events = 20000;
  const Trace t = generate_trace(o);
  std::map<uint32_t, int> depth;
  std::map<uint32_t, std::set<uint32_t>> unprotected_threads;  // variable -> threads
  uint64_t accesses = 0, unprotected = 0;
  for (const Event& e : t.events) {
    if (e.op == Op::Acquire) ++depth[e.thread];
    if (e.op == Op::Release) --depth[e.thread];
    if (!e.is_access()) continue;
    ++accesses;
    if (depth[e.thread] == 0) {
      const std::string name(t.variable_name(e.target));
      if (std::stoi(name.substr(1)) < 500) {  // shared pool
        ++unprotected;
        unprotected_threads[e.target].insert(e.thread);
      }
    }
  }
  EXPECT_GT(unprotected, 0u);
  EXPECT_LT(double(unprotected) / double(accesses), 0.2);
  bool shared_by_two = false;
  for (auto& [v, threads] : unprotected_threads) shared_by_two |= threads.size() > 1;
  EXPECT_TRUE(shared_by_two);
}

TEST(StdWriter, LongAndOddNamesTakeTheSlowPath) {
  const std::string text =
      "main_thread_with_a_long_name|fork(T1)|0\n"
      "T1|w(V2d541d29.201[17].field_with_long_name)|347\n"
      "T1|acq(L2a2d541d29)|123456789012345678901\n"
      "T1|rel(L2a2d541d29)|x\n"
      "main_thread_with_a_long_name|join(T1)|Main.java:12\n"
      "T1|r(a)|1\n";
  const Trace t = parse_trace(text);
  const std::string path = ::testing::TempDir() + "std_writer_long.std";
  {
    StdWriter writer(t.symbols, path);
    for (size_t i = 0; i < t.size(); ++i) writer.on_event(t.ids[i], t.events[i], 0);
    writer.close();
  }
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), text);
  EXPECT_EQ(to_std_text(t), text);
  std::remove(path.c_str());
}

TEST(GenerateCommand, WritesTheSameTraceAsTheLibrary) {
  const std::string path = ::testing::TempDir() + "generate_cli.std";
  const std::string command = std::string(RACEPRED_BINARY) +
                              " generate --threads 5 --events 3000 --seed 11 --shape nested "
                              "--variables 40 --locks 4 --nesting 3 --cs-share 0.5 "
                              "--write-share 0.4 -o " +
                              path;
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  GeneratorOptions o;
  o.threads = 5;
  o.events = 3000;
  o.seed = 11;
  o.shape = ForkShape::Nested;
  o.variables = 40;
  o.locks = 4;
  o.nesting = 3;
  o.cs_share = 0.5;
  o.write_share = 0.4;
  EXPECT_EQ(ss.str(), to_std_text(generate_trace(o)));
  std::remove(path.c_str());
  const std::string bad =
      std::string(RACEPRED_BINARY) + " generate --write-share 1.5 >/dev/null 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(bad.c_str())), 2);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
