// The lock-set engine against a brute-force all-pairs check, and its lock-set table.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "racepred/clock/lock_set.hpp"
#include "racepred/driver/annotate.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"
#include "support/lockset_oracle.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

// A random well-formed trace from the shared generator, in STD: every thread runs from the
// start, any thread may run next, lock sets overlap (releases in any order, locks may stay held
// at the end), accesses pick any variable. `deep`: long, deeply nested critical sections.
std::string random_trace(uint64_t seed, uint32_t threads, uint32_t variables, uint32_t locks,
                         uint64_t events, bool deep = false) {
  GeneratorOptions o;
  o.seed = seed;
  o.threads = threads;
  o.variables = variables;
  o.locks = locks;
  o.events = events;
  o.shape = ForkShape::None;
  o.nesting = locks;
  o.nested_releases = false;
  o.release_at_end = false;
  o.local_share = 0;
  o.guarded_share = 0;
  o.switch_share = 1;
  o.cs_share = 0.5;
  if (deep) {
    o.cs_share = 0.9;
    o.nest_chance = 0.5;
    o.release_chance = 0.12;
  }
  return to_std_text(generate_trace(o));
}

TEST(LockSetTable, AcquireReleaseLifoAndOutOfOrder) {
  LockSetTable table;
  using NodeId = LockSetTable::NodeId;
  const NodeId a = table.acquire(LockSetTable::kRoot, 3);
  const NodeId ab = table.acquire(a, 1);
  EXPECT_EQ(table.set_of(LockSetTable::kRoot), LockSetTable::kEmptySet);
  EXPECT_EQ(table.sorted_locks(table.set_of(ab)), (std::vector<LockId>{1, 3}));
  EXPECT_EQ(table.release(ab, 1), a);     // LIFO: back to the parent
  const NodeId b = table.release(ab, 3);  // out of order
  EXPECT_EQ(table.set_of(b), table.set_of(table.acquire(LockSetTable::kRoot, 1)));
  EXPECT_EQ(table.release(b, 7), b);    // not held: unchanged
  EXPECT_EQ(table.acquire(ab, 3), ab);  // already held: unchanged
  // Same set reached in another acquisition order: same set id.
  const NodeId ba = table.acquire(table.acquire(LockSetTable::kRoot, 1), 3);
  EXPECT_NE(ba, ab);
  EXPECT_EQ(table.set_of(ba), table.set_of(ab));
  EXPECT_TRUE(table.holds(ab, 3));
  EXPECT_FALSE(table.holds(a, 1));
}

TEST(LockSetTable, DisjointBeyondSixtyFourLocks) {
  LockSetTable table;
  auto set = [&](std::vector<LockId> locks) {
    LockSetTable::NodeId n = LockSetTable::kRoot;
    for (LockId l : locks) n = table.acquire(n, l);
    return table.set_of(n);
  };
  const auto s1 = set({1, 65});  // 65 % 64 == 1: same mask bit as lock 1
  const auto s2 = set({129});    // 129 % 64 == 1
  const auto s3 = set({65, 200});
  const auto s4 = set({2});
  EXPECT_TRUE(table.disjoint(s1, s4));
  EXPECT_TRUE(table.disjoint(s2, s3));  // masks overlap, locks differ
  EXPECT_FALSE(table.disjoint(s1, s3));
  EXPECT_FALSE(table.disjoint(s1, s1));
  EXPECT_TRUE(table.disjoint(LockSetTable::kEmptySet, LockSetTable::kEmptySet));
  EXPECT_TRUE(table.disjoint(LockSetTable::kEmptySet, s1));
}

// Item 7 of the hardening issue: a 10,000-deep nesting used to store every interned set in full
// (quadratic: gigabytes). T0 nests l0..l(d-1), T1 the same locks in reverse order.
TEST(LockSetTable, DeepNestingStaysLinear) {
  constexpr LockId d = 10000;
  LockSetTable table;
  std::vector<LockSetTable::SetId> forward{LockSetTable::kEmptySet};
  std::vector<LockSetTable::SetId> backward{LockSetTable::kEmptySet};
  LockSetTable::NodeId n = LockSetTable::kRoot;
  for (LockId l = 0; l < d; ++l) forward.push_back(table.set_of(n = table.acquire(n, l)));
  for (LockId l = d; l-- > 0;) n = table.release(n, l);
  EXPECT_EQ(n, LockSetTable::kRoot);
  for (LockId l = d; l-- > 0;) backward.push_back(table.set_of(n = table.acquire(n, l)));
  // Two chains of d nodes; the full set is one set whatever the order.
  EXPECT_EQ(table.node_count(), 2 * size_t{d} + 1);
  EXPECT_EQ(forward[d], backward[d]);
  EXPECT_EQ(table.set_count(), 2 * size_t{d});
  // Only the small sets keep a list: at most kListed locks for each of them.
  EXPECT_LE(table.listed_locks(), 2 * LockSetTable::kListed * LockSetTable::kListed);
  EXPECT_EQ(table.size(forward[d]), d);
  const std::vector<LockId> all = table.sorted_locks(forward[d]);
  ASSERT_EQ(all.size(), d);
  for (LockId l = 0; l < d; ++l) ASSERT_EQ(all[l], l);
  // {l0..l(k-1)} and {l(d-k)..l(d-1)} are disjoint iff 2k <= d.
  for (LockId k : {1u, 17u, 100u, d / 2, d / 2 + 1, d - 1, d})
    EXPECT_EQ(table.disjoint(forward[k], backward[k]), 2 * k <= d) << k;
  EXPECT_TRUE(table.holds(n, 0));
  EXPECT_TRUE(table.holds(n, d - 1));
  EXPECT_FALSE(table.holds(n, d));
}

// The table against std::set on random acquire/release sequences of a few threads: many locks
// (ids past 64), deep nesting (sets past kListed), out-of-order releases.
TEST(LockSetTable, MatchesPlainSetsOnRandomNesting) {
  const int rounds = std::getenv("RACEPRED_SANITIZED") ? 20 : 200;
  for (int round = 0; round < rounds; ++round) {
    std::mt19937 rng(static_cast<uint32_t>(round));
    LockSetTable table;
    const LockId locks = 40 + rng() % 200;
    std::vector<LockSetTable::NodeId> node(4, LockSetTable::kRoot);
    std::vector<std::set<LockId>> held(4);
    std::map<std::set<LockId>, LockSetTable::SetId> seen;
    for (int step = 0; step < 3000; ++step) {
      const size_t t = rng() % 4;
      const LockId l = rng() % locks;
      if (rng() % 3 != 0 && held[t].size() < 60) {
        node[t] = table.acquire(node[t], l);
        held[t].insert(l);
      } else if (!held[t].empty()) {
        const LockId r = rng() % 4 == 0 ? l : *held[t].rbegin();  // often a random lock
        node[t] = table.release(node[t], r);
        held[t].erase(r);
      }
      const LockSetTable::SetId set = table.set_of(node[t]);
      ASSERT_EQ(table.sorted_locks(set), std::vector<LockId>(held[t].begin(), held[t].end()));
      ASSERT_EQ(table.holds(node[t], l), held[t].count(l) > 0);
      const auto [it, inserted] = seen.try_emplace(held[t], set);
      ASSERT_EQ(it->second, set) << "one id per distinct set";
      const size_t u = rng() % 4;
      bool disjoint = true;
      for (LockId x : held[u]) disjoint = disjoint && held[t].count(x) == 0;
      ASSERT_EQ(table.disjoint(set, table.set_of(node[u])), disjoint) << round << " " << step;
    }
  }
}

// The lock-set engines on the deep nesting (generated here: 2,000 deep to stay quick under
// ASan). T0 and T1 each write v(k) at depth k+1, x before and y after locking: v(k) races iff
// the two lock sets, {l0..lk} and {l(d-1-k)..l(d-1)}, are disjoint (2(k+1) <= d), and x races.
TEST(LocksetEngine, DeepNestingInBothOrders) {
  const uint32_t d = 2000;
  std::string text;
  for (int t = 0; t < 2; ++t) {
    text += fmt::format("T{}|w(x)|1\n", t);
    for (uint32_t k = 0; k < d; ++k)
      text += fmt::format("T{}|acq(l{})|1\nT{}|w(v{})|1\n", t, t ? d - 1 - k : k, t, k);
    text += fmt::format("T{}|r(y)|1\n", t);
    for (uint32_t k = d; k-- > 0;) text += fmt::format("T{}|rel(l{})|1\n", t, t ? d - 1 - k : k);
  }
  const Trace trace = parse_trace(text);
  for (const char* engine : {"lockset", "tsan1", "ls-standard"}) {
    SCOPED_TRACE(engine);
    const RaceSink sink = run_engine(engine, trace);
    EXPECT_EQ(sink.race_count(), d / 2 + 1);
    EXPECT_EQ(sink.racy_events().size(), d / 2 + 1);
  }
}

// intersect (Eraser's C(x) := C(x) ∩ LS): the fast mask paths and the merge beyond 64 locks
// agree with std::set_intersection on every pair of a few dozen sets.
TEST(LockSetTable, IntersectMatchesSetIntersection) {
  LockSetTable table;
  std::vector<LockSetTable::SetId> sets{LockSetTable::kEmptySet};
  const std::vector<std::vector<LockId>> lists{{1},         {1, 2},   {2, 3},    {1, 2, 3},
                                               {65},        {1, 65},  {65, 129}, {1, 2, 65, 200},
                                               {3, 63, 64}, {63, 64}, {200},     {2, 129}};
  for (const auto& locks : lists) {
    LockSetTable::NodeId n = LockSetTable::kRoot;
    for (LockId l : locks) n = table.acquire(n, l);
    sets.push_back(table.set_of(n));
  }
  for (auto a : sets)
    for (auto b : sets) {
      const auto la = table.sorted_locks(a);
      const auto lb = table.sorted_locks(b);
      std::vector<LockId> expected;
      std::set_intersection(la.begin(), la.end(), lb.begin(), lb.end(),
                            std::back_inserter(expected));
      const auto got = table.intersect(a, b);
      EXPECT_EQ(table.sorted_locks(got), expected);
      EXPECT_EQ(got, table.intersect(b, a));
    }
}

using testing_support::Pair;

void check_against_brute_force(const std::string& text, size_t max_kept, uint32_t seed) {
  const Trace trace = parse_trace(text);
  const std::vector<Pair> all = testing_support::lockset_pairs_brute_force(trace);
  const RaceSink sink = run_engine("lockset", trace, max_kept);
  SCOPED_TRACE(fmt::format("seed {}, max_kept {}, trace:\n{}", seed, max_kept, text));
  ASSERT_EQ(sink.race_count(), all.size());
  std::vector<EventId> racy;
  for (const Pair& p : all) racy.push_back(p.second);
  racy.erase(std::unique(racy.begin(), racy.end()), racy.end());
  ASSERT_EQ(sink.racy_events(), racy);
  std::vector<Pair> kept(all.begin(), all.begin() + std::min(all.size(), max_kept));
  std::sort(kept.begin(), kept.end(), [](const Pair& a, const Pair& b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;
  });
  std::vector<Pair> got;
  for (const Race& r : sink.races()) {
    got.push_back({r.first.event, r.second.event});
    const size_t i = trace.index_of(r.first.event);
    const size_t j = trace.index_of(r.second.event);
    ASSERT_NE(i, SIZE_MAX);
    EXPECT_EQ(r.first.thread, trace.events[i].thread);
    EXPECT_EQ(r.first.location, trace.events[i].location);
    EXPECT_EQ(r.first.op, trace.events[i].op);
    EXPECT_EQ(r.second.location, trace.events[j].location);
    EXPECT_EQ(r.variable, trace.events[j].target);
  }
  ASSERT_EQ(got, kept);
  EXPECT_EQ(sink.truncated(), all.size() > max_kept);
}

TEST(LocksetEngine, MatchesBruteForceOnRandomTraces) {
  const int runs = std::getenv("RACEPRED_SANITIZED") ? 300 : 2000;
  for (int run = 0; run < runs; ++run) {
    const uint32_t seed = 1000u + static_cast<uint32_t>(run);
    Rng rng(seed);
    const uint32_t threads = 1 + static_cast<uint32_t>(rng.below(4));
    const uint32_t variables = 1 + static_cast<uint32_t>(rng.below(3));
    const uint32_t locks = run % 10 == 0 ? 80 : 1 + static_cast<uint32_t>(rng.below(4));
    const uint64_t events = 1 + rng.below(60);
    const std::string text = random_trace(seed, threads, variables, locks, events);
    for (size_t max_kept : {size_t{0}, size_t{1}, size_t{3}, size_t{1000}, SIZE_MAX}) {
      check_against_brute_force(text, max_kept, seed);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(LocksetEngine, ManyLocksManyLockSetsAndLongTraces) {
  // Locks beyond 64 (slow disjointness path), many lock sets per variable (growing rows).
  for (uint64_t run = 0; run < 20; ++run) {
    const std::string text = random_trace(700 + run, 3, 2, 150, 400);
    check_against_brute_force(text, 5, 7);
    check_against_brute_force(text, SIZE_MAX, 7);
    check_against_brute_force(text, 0, 7);
    if (::testing::Test::HasFailure()) return;
  }
  // Large lock sets, many threads.
  size_t largest = 0;
  for (uint64_t run = 0; run < 20; ++run) {
    const std::string text = random_trace(800 + run, 6, 2, 20, 300, /*deep=*/true);
    check_against_brute_force(text, SIZE_MAX, 8);
    check_against_brute_force(text, 3, 8);
    if (::testing::Test::HasFailure()) return;
    const Trace trace = parse_trace(text);
    std::vector<std::set<LockId>> held;
    for (const Event& e : trace.events) {
      if (e.thread >= held.size()) held.resize(e.thread + 1);
      if (e.op == Op::Acquire) held[e.thread].insert(e.target);
      if (e.op == Op::Release) held[e.thread].erase(e.target);
      if (e.is_access()) largest = std::max(largest, held[e.thread].size());
    }
  }
  EXPECT_GT(largest, size_t{8});
  // One variable under more than 64 distinct lock sets (the engine's sweep without bitmaps).
  for (uint32_t seed = 20; seed < 23; ++seed) {
    const std::string text = random_trace(seed, 4, 1, 12, 1500, /*deep=*/true);
    const Trace trace = parse_trace(text);
    std::vector<std::set<LockId>> held;
    std::set<std::set<LockId>> sets;
    for (const Event& e : trace.events) {
      if (e.thread >= held.size()) held.resize(e.thread + 1);
      if (e.op == Op::Acquire) held[e.thread].insert(e.target);
      if (e.op == Op::Release) held[e.thread].erase(e.target);
      if (e.is_access()) sets.insert(held[e.thread]);
    }
    EXPECT_GT(sets.size(), 64u);
    check_against_brute_force(text, 10, seed);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(LocksetEngine, MoreThanAThousandLockSetsOnOneVariable) {
  // Past 1024 lock sets per variable the engine drops its disjointness bitmaps and sweeps.
  std::string text;
  for (uint32_t subset = 0; subset < 1200; ++subset) {
    const std::string thread = fmt::format("T{}", subset % 3);
    for (int l = 0; l < 11; ++l)
      if (subset >> l & 1) text += fmt::format("{}|acq(m{})|a\n", thread, l);
    text += fmt::format("{}|{}(x)|{}\n", thread, subset % 4 ? "r" : "w", subset % 7);
    for (int l = 10; l >= 0; --l)
      if (subset >> l & 1) text += fmt::format("{}|rel(m{})|r\n", thread, l);
  }
  check_against_brute_force(text, 20, 0);
  check_against_brute_force(text, 0, 0);
}

TEST(LocksetEngine, AnnotatesLockSetsOfAccesses) {
  const Trace trace = parse_trace(
      "T0|acq(b)|1\nT0|acq(a)|2\nT0|w(x)|3\nT0|rel(b)|4\nT0|r(x)|5\nT1|w(x)|6\nT0|rel(a)|7\n");
  const AnnotationRun run = annotate_trace("lockset", trace);
  std::vector<std::string> column;
  for (const Annotation& row : run.rows) {
    ASSERT_EQ(row.size(), 1u);
    EXPECT_EQ(row[0].column, "LS");
    column.push_back(row[0].value);
  }
  EXPECT_EQ(column, (std::vector<std::string>{"", "", "{a,b}", "", "{a}", "{}", ""}));
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
