// exact/ deadlocks: Def. B.4, B.7 and B.8 of Sulzmann and Thiemann, "Cross-thread critical
// sections and efficient dynamic race prediction methods" (App. B) on hand-made traces, the
// `exact --deadlocks` command, and spd on the ThreadSanitizer false-alarm patterns.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/exact/deadlocks.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/io/formats.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/trace_index.hpp"
#include "support/exact_support.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

struct Searched {
  std::unique_ptr<Trace> trace;
  std::unique_ptr<TraceIndex> index;
  exact::SearchResult result;
};

Searched search(const std::string& text) {
  Searched s;
  s.trace = std::make_unique<Trace>(parse_trace(text));
  s.index = std::make_unique<TraceIndex>(*s.trace);
  exact::SearchOptions o;
  o.deadlocks = true;
  s.result = exact::search(*s.index, o);
  return s;
}

// Acquires as event ids (1-based, as in the traces below).
std::vector<EventId> ids(const Searched& s, const std::vector<uint32_t>& indices) {
  std::vector<EventId> out;
  for (uint32_t i : indices) out.push_back(s.index->id(i));
  return out;
}

const char* kAbba =
    "T1|acq(a)|1\nT1|acq(b)|2\nT1|rel(b)|3\nT1|rel(a)|4\n"
    "T2|acq(b)|5\nT2|acq(a)|6\nT2|rel(a)|7\nT2|rel(b)|8\n";

TEST(ExactDeadlocks, AbbaIsDefB4AndB7WithAPrefixThatReachesIt) {
  const Searched s = search(kAbba);
  ASSERT_EQ(s.result.deadlocks.size(), 1u);
  const exact::DeadlockWitness& d = s.result.deadlocks[0];
  EXPECT_EQ(ids(s, d.acquires), (std::vector<EventId>{2, 6}));
  EXPECT_FALSE(d.cross_thread);
  // PD-1: the prefix is correct and stops right before each acquire; PD-2: the other holds it.
  EXPECT_EQ(testing::check_reordering(*s.index, d.prefix), "");
  std::vector<EventId> prefix = ids(s, d.prefix);  // 1 5 or 5 1: the first the search found
  std::sort(prefix.begin(), prefix.end());
  EXPECT_EQ(prefix, (std::vector<EventId>{1, 5}));
  ASSERT_EQ(s.result.cross_thread_deadlocks.size(), 1u);
  EXPECT_EQ(ids(s, s.result.cross_thread_deadlocks[0].acquires), (std::vector<EventId>{2, 6}));
  // The finding lists each thread's holds with their acquires.
  const Finding f = exact::deadlock_finding(*s.index, d);
  ASSERT_EQ(f.deadlock.cycle.size(), 2u);
  EXPECT_EQ(f.deadlock.cycle[0].event, 2u);
  ASSERT_EQ(f.deadlock.cycle[0].held.size(), 1u);
  EXPECT_EQ(f.deadlock.cycle[0].held[0].acquired, 1u);
  EXPECT_EQ(f.deadlock.witness, ids(s, d.prefix));
}

TEST(ExactDeadlocks, NoDeadlockWhenAGuardLockOrDataOrdersTheOrders) {
  // Guard lock g around both orders.
  EXPECT_TRUE(search("T1|acq(g)|1\nT1|acq(a)|2\nT1|acq(b)|3\nT1|rel(b)|4\nT1|rel(a)|5\n"
                     "T1|rel(g)|6\nT2|acq(g)|7\nT2|acq(b)|8\nT2|acq(a)|9\nT2|rel(a)|10\n"
                     "T2|rel(b)|11\nT2|rel(g)|12\n")
                  .result.deadlocks.empty());
  // T2 reads what T1 writes after its sections.
  const Searched data = search(
      "T1|acq(a)|1\nT1|acq(b)|2\nT1|rel(b)|3\nT1|rel(a)|4\nT1|w(x)|5\n"
      "T2|r(x)|6\nT2|acq(b)|7\nT2|acq(a)|8\nT2|rel(a)|9\nT2|rel(b)|10\n");
  EXPECT_TRUE(data.result.deadlocks.empty());
  EXPECT_TRUE(data.result.cross_thread_deadlocks.empty());
  // One thread in both orders.
  EXPECT_TRUE(search("T1|acq(a)|1\nT1|acq(b)|2\nT1|rel(b)|3\nT1|rel(a)|4\n"
                     "T1|acq(b)|5\nT1|acq(a)|6\nT1|rel(a)|7\nT1|rel(b)|8\n")
                  .result.deadlocks.empty());
}

TEST(ExactDeadlocks, DefB4NeedsTheLockHeldInsideTheCycle) {
  // Fig. 5: T2 waits for y (held by T3), T3 for x, held by T1 which waits at its join: a
  // cross-thread predictable deadlock (Def. B.7) but not one of Def. B.4.
  const Trace trace = testing::load_example("fig05_stuck.std");
  const TraceIndex index(trace);
  exact::SearchOptions o;
  o.deadlocks = true;
  const exact::SearchResult r = exact::search(index, o);
  EXPECT_TRUE(r.deadlocks.empty());
  ASSERT_EQ(r.cross_thread_deadlocks.size(), 1u);
  const exact::DeadlockWitness& d = r.cross_thread_deadlocks[0];
  EXPECT_TRUE(d.cross_thread);
  EXPECT_EQ(index.id(d.acquires[0]), 4u);
  EXPECT_EQ(index.id(d.acquires[1]), 10u);
  EXPECT_EQ(testing::check_reordering(index, d.prefix), "");
  // Def. B.8: a race of some partial order here is Critical-2, not Critical-1.
  const exact::CriticalCase c = exact::classify(true, r);
  EXPECT_FALSE(c.critical1);
  EXPECT_TRUE(c.critical2);
  EXPECT_FALSE(exact::classify(false, r).critical2);  // no race of P: no case
}

TEST(ExactDeadlocks, DefB7NeedsEveryOtherThreadDoneOrBlockedOutsideAnAcquire) {
  // ABBA between T1 and T2; T3 has run (T2 reads its x) and could still write y: a Def. B.4
  // deadlock, and Def. B.7 only once T3 has run to its end (CS-PD-3 (a)).
  const Searched s = search(
      "T0|fork(T1)|1\nT0|fork(T2)|2\nT0|fork(T3)|3\n"
      "T1|acq(a)|4\nT1|acq(b)|5\nT1|rel(b)|6\nT1|rel(a)|7\nT3|w(x)|8\nT3|w(y)|9\n"
      "T2|r(x)|10\nT2|acq(b)|11\nT2|acq(a)|12\nT2|rel(a)|13\nT2|rel(b)|14\n");
  ASSERT_EQ(s.result.deadlocks.size(), 1u);
  EXPECT_EQ(ids(s, s.result.deadlocks[0].acquires), (std::vector<EventId>{5, 12}));
  ASSERT_EQ(s.result.cross_thread_deadlocks.size(), 1u);
  const auto& prefix = s.result.cross_thread_deadlocks[0].prefix;
  EXPECT_NE(std::find(prefix.begin(), prefix.end(), s.trace->index_of(9)), prefix.end());
  // A third thread blocked at a read (its last write is no rule of well-formedness) keeps it
  // from being Def. B.7: T3 must have written y (T2 reads it) and then waits to read the x that
  // T1 writes only after its sections.
  const Searched read = search(
      "T0|fork(T1)|1\nT0|fork(T2)|2\nT0|fork(T3)|3\n"
      "T1|acq(a)|4\nT1|acq(b)|5\nT1|rel(b)|6\nT1|rel(a)|7\nT1|w(x)|8\nT3|w(y)|9\n"
      "T3|r(x)|10\nT2|r(y)|11\nT2|acq(b)|12\nT2|acq(a)|13\nT2|rel(a)|14\nT2|rel(b)|15\n");
  EXPECT_EQ(read.result.deadlocks.size(), 1u);
  EXPECT_TRUE(read.result.cross_thread_deadlocks.empty());
}

TEST(ExactDeadlocks, ThreeThreadCycleAndReadLocks) {
  const Searched three = search(
      "T1|acq(a)|1\nT1|acq(b)|2\nT1|rel(b)|3\nT1|rel(a)|4\n"
      "T2|acq(b)|5\nT2|acq(c)|6\nT2|rel(c)|7\nT2|rel(b)|8\n"
      "T3|acq(c)|9\nT3|acq(a)|10\nT3|rel(a)|11\nT3|rel(c)|12\n");
  ASSERT_EQ(three.result.deadlocks.size(), 1u);
  EXPECT_EQ(ids(three, three.result.deadlocks[0].acquires), (std::vector<EventId>{2, 6, 10}));
  // Read holds do not block read requests.
  EXPECT_TRUE(search("T1|racq(a)|1\nT1|racq(b)|2\nT1|rrel(b)|3\nT1|rrel(a)|4\n"
                     "T2|racq(b)|5\nT2|racq(a)|6\nT2|rrel(a)|7\nT2|rrel(b)|8\n")
                  .result.deadlocks.empty());
  EXPECT_EQ(search("T1|racq(a)|1\nT1|acq(b)|2\nT1|rel(b)|3\nT1|rrel(a)|4\n"
                   "T2|racq(b)|5\nT2|acq(a)|6\nT2|rel(a)|7\nT2|rrel(b)|8\n")
                .result.deadlocks.size(),
            1u);
}

// spd on the patterns ThreadSanitizer's lock-order-inversion detector reports falsely.
size_t spd_deadlocks(const std::string& text) {
  return run_engine("spd", parse_trace(text)).findings().size();
}

TEST(Spd, NoneOnTheThreadSanitizerFalseAlarms) {
  // One thread.
  EXPECT_EQ(spd_deadlocks("T1|acq(a)|1\nT1|acq(b)|2\nT1|rel(b)|3\nT1|rel(a)|4\n"
                          "T1|acq(b)|5\nT1|acq(a)|6\nT1|rel(a)|7\nT1|rel(b)|8\n"),
            0u);
  // Guard lock.
  EXPECT_EQ(spd_deadlocks("T1|acq(g)|1\nT1|acq(a)|2\nT1|acq(b)|3\nT1|rel(b)|4\nT1|rel(a)|5\n"
                          "T1|rel(g)|6\nT2|acq(g)|7\nT2|acq(b)|8\nT2|acq(a)|9\nT2|rel(a)|10\n"
                          "T2|rel(b)|11\nT2|rel(g)|12\n"),
            0u);
  // Fork/join order: T1's orders before the fork of T2.
  EXPECT_EQ(spd_deadlocks("T1|acq(a)|1\nT1|acq(b)|2\nT1|rel(b)|3\nT1|rel(a)|4\nT1|fork(T2)|5\n"
                          "T2|acq(b)|6\nT2|acq(a)|7\nT2|rel(a)|8\nT2|rel(b)|9\n"),
            0u);
  EXPECT_EQ(spd_deadlocks("T1|fork(T2)|1\nT2|acq(b)|2\nT2|acq(a)|3\nT2|rel(a)|4\nT2|rel(b)|5\n"
                          "T1|join(T2)|6\nT1|acq(a)|7\nT1|acq(b)|8\nT1|rel(b)|9\nT1|rel(a)|10\n"),
            0u);
  // Read-read on read-write locks.
  EXPECT_EQ(spd_deadlocks("T1|racq(a)|1\nT1|racq(b)|2\nT1|rrel(b)|3\nT1|rrel(a)|4\n"
                          "T2|racq(b)|5\nT2|racq(a)|6\nT2|rrel(a)|7\nT2|rrel(b)|8\n"),
            0u);
  // A lock released before the next is taken.
  EXPECT_EQ(spd_deadlocks("T1|acq(a)|1\nT1|rel(a)|2\nT1|acq(b)|3\nT1|rel(b)|4\n"
                          "T2|acq(b)|5\nT2|acq(a)|6\nT2|rel(a)|7\nT2|rel(b)|8\n"),
            0u);
}

TEST(Spd, FindsAbbaThreeLocksAndPhilosophersWithTheirPrefixes) {
  const RaceSink abba = run_engine("spd", parse_trace(kAbba));
  ASSERT_EQ(abba.findings().size(), 1u);
  EXPECT_EQ(abba.findings()[0].deadlock.witness, (std::vector<EventId>{1, 5}));
  EXPECT_EQ(spd_deadlocks("T1|acq(a)|1\nT1|acq(b)|2\nT1|rel(b)|3\nT1|rel(a)|4\n"
                          "T2|acq(b)|5\nT2|acq(c)|6\nT2|rel(c)|7\nT2|rel(b)|8\n"
                          "T3|acq(c)|9\nT3|acq(a)|10\nT3|rel(a)|11\nT3|rel(c)|12\n"),
            1u);
  // Five philosophers, each taking its left fork, then its right one. Appending (not
  // operator+) avoids a bogus -Wrestrict of g++ 12.
  std::string philosophers;
  for (int p = 0; p < 5; ++p) {
    const std::string t = std::string("T").append(std::to_string(p + 1));
    const std::string left = std::to_string(p), right = std::to_string((p + 1) % 5);
    for (const auto& [op, fork] : {std::pair{"acq", left}, std::pair{"acq", right},
                                   std::pair{"rel", right}, std::pair{"rel", left}})
      philosophers.append(t).append("|").append(op).append("(f").append(fork).append(")|1\n");
  }
  EXPECT_EQ(spd_deadlocks(philosophers), 1u);
}

// Sulzmann and Thiemann's Fig. 5: T3's acq(x) waits for x, which T1 holds while it waits at
// join(T2), and T2's acq(y) waits for T3's y. No Def. B.4 deadlock (x is held outside the
// blocked threads), a Def. B.7 one: spd's join steps find it, with a prefix that reaches it.
const char* kFig5 =
    "T1|fork(T3)|1\nT1|acq(x)|2\nT1|fork(T2)|3\nT2|acq(y)|4\nT2|rel(y)|5\nT1|join(T2)|6\n"
    "T1|w(a)|7\nT1|rel(x)|8\nT3|acq(y)|9\nT3|acq(x)|10\nT3|rel(x)|11\nT3|w(a)|12\n"
    "T3|rel(y)|13\n";

uint64_t stat(const RaceSink& sink, std::string_view key) {
  const ExtraStat* s = sink.extras().stat(key);
  return s ? s->value : 0;
}

TEST(Spd, AJoiningHolderMakesACrossThreadDeadlock) {
  const RaceSink spd = run_engine("spd", parse_trace(kFig5));
  ASSERT_EQ(spd.findings().size(), 1u);
  const Deadlock& d = spd.findings()[0].deadlock;
  ASSERT_EQ(d.cycle.size(), 2u);
  EXPECT_EQ(d.cycle[0].event, 4u);
  EXPECT_EQ(d.cycle[1].event, 10u);
  // T3 holds y at its acq(x); T2 holds nothing at its acq(y).
  ASSERT_EQ(d.cycle[1].held.size(), 1u);
  EXPECT_TRUE(d.cycle[0].held.empty());
  // The closure (T1 up to its join, T3's acq(y)) in trace order: T1 waits at join(T2).
  EXPECT_EQ(d.witness, (std::vector<EventId>{1, 2, 3, 9}));
  EXPECT_EQ(stat(spd, "cross_thread_deadlocks"), 1u);
  EXPECT_EQ(stat(spd, "join_patterns"), 1u);
  // The same set as the ground truth's Def. B.7 deadlock.
  const RaceSink exact = run_engine("exact-ct-deadlocks", parse_trace(kFig5));
  ASSERT_EQ(exact.findings().size(), 1u);
  EXPECT_EQ(exact.findings()[0].deadlock.cycle[0].event, 4u);
  EXPECT_EQ(exact.findings()[0].deadlock.cycle[1].event, 10u);
  // Without the join inside T1's section (T1 releases x first) nothing holds x: no deadlock.
  EXPECT_EQ(spd_deadlocks("T1|fork(T3)|1\nT1|acq(x)|2\nT1|fork(T2)|3\nT2|acq(y)|4\n"
                          "T2|rel(y)|5\nT1|rel(x)|6\nT1|join(T2)|7\nT3|acq(y)|8\n"
                          "T3|acq(x)|9\nT3|rel(x)|10\nT3|rel(y)|11\n"),
            0u);
}

// Dense traces (eight threads nesting three of six locks in random orders) have thousands of
// abstract patterns. Within its budgets spd checks them all; with a step budget of 100 the
// search stops and counts the dependencies it did not search from; with the closures' budget
// spent (4 events per trace event plus 4 million) the patterns found later are counted and the
// first three named by their acquires, not checked.
Trace dense_trace(uint64_t events) {
  GeneratorOptions o;
  o.seed = 7;
  o.threads = 8;
  o.events = events;
  o.locks = 6;
  o.nesting = 3;
  o.nest_chance = 0.6;
  o.cs_share = 0.9;
  return generate_trace(o);
}

TEST(Spd, AStepBudgetReachedSaysWhatWasNotSearched) {
  const Trace trace = dense_trace(800);
  EngineOptions options;
  const RaceSink all = run_engine("spd", trace, options);
  EXPECT_EQ(stat(all, "search_stopped"), 0u);
  EXPECT_EQ(stat(all, "unchecked_patterns"), 0u);
  EXPECT_EQ(stat(all, "unsearched_dependencies"), 0u);
  const uint64_t checked = stat(all, "abstract_cycles");
  EXPECT_GT(checked, 20u);
  options.lockorder_search_budget = 100;
  const RaceSink cut = run_engine("spd", trace, options);
  EXPECT_EQ(stat(cut, "search_stopped"), 1u);
  EXPECT_GT(stat(cut, "unsearched_dependencies"), 0u);
  EXPECT_LT(stat(cut, "abstract_cycles"), checked);
  EXPECT_LT(cut.findings().size(), all.findings().size());
}

TEST(Spd, AClosureBudgetReachedCountsAndNamesThePatternsNotChecked) {
  if (std::getenv("RACEPRED_SANITIZED")) GTEST_SKIP() << "4 million closure events";
  EngineOptions options;
  options.lockorder_search_budget = 100000;  // bounds the counting after the closure budget
  const RaceSink sink = run_engine("spd", dense_trace(6000), options);
  EXPECT_EQ(stat(sink, "search_stopped"), 1u);
  EXPECT_GT(stat(sink, "closure_events"), 4u * 6000 + (uint64_t{1} << 22));
  const ExtraStat* unchecked = sink.extras().stat("unchecked_patterns");
  ASSERT_NE(unchecked, nullptr);
  EXPECT_GT(unchecked->value, 1u);
  // The note names three of them by their first acquires: "…; …; …".
  const std::string& note = unchecked->plural;
  ASSERT_NE(note.find("(the first at acquires "), std::string::npos) << note;
  EXPECT_EQ(std::count(note.begin(), note.end(), ';'), 2) << note;
}

// Every Def. B.7 set is listed, not only the first one found: a run of the shape of Fig. 5
// (T0 joins T2 holding l0) with three sets. T2 (acq(l1), event 18) and T3 (acq(l0), event 26)
// are blocked in each; T1 has either finished (prefix 1 3 4 6 8 9 30 …), or waits at its
// acq(l0) (event 30, l0 held by T0), or has not run yet and waits at its first acquire, acq(l1)
// (event 3, spd's witness 1 2 5 7 10 … 23). Before the fix the exact search kept only the
// first set found (every set got the same empty key).
const char* kTwoCrossThreadSets =
    "T0|fork(T1)|1\nT0|fork(T3)|2\nT1|acq(l1)|3\nT1|r(x)|4\nT0|acq(l0)|5\nT1|w(x)|6\nT3|w(y)|7\n"
    "T1|rel(l1)|8\nT1|w(x)|9\nT3|acq(l2)|10\nT0|fork(T2)|11\nT3|r(y)|12\nT2|w(x)|13\nT0|r(x)|14\n"
    "T3|acq(l1)|15\nT3|w(x)|16\nT3|rel(l1)|17\nT2|acq(l1)|18\nT3|rel(l2)|19\nT3|r(y)|20\n"
    "T2|r(y)|21\nT2|rel(l1)|22\nT3|acq(l1)|23\nT0|join(T2)|24\nT0|rel(l0)|25\nT3|acq(l0)|26\n"
    "T3|r(x)|27\nT3|rel(l0)|28\nT3|rel(l1)|29\nT1|acq(l0)|30\nT1|r(x)|31\nT1|rel(l0)|32\n"
    "T0|join(T1)|33\nT0|join(T3)|34\n";

TEST(ExactDeadlocks, EveryCrossThreadSetIsListed) {
  const Searched s = search(kTwoCrossThreadSets);
  std::vector<std::vector<EventId>> sets;
  for (const exact::DeadlockWitness& d : s.result.cross_thread_deadlocks) {
    sets.push_back(ids(s, d.acquires));
    EXPECT_EQ(testing::check_reordering(*s.index, d.prefix), "");
  }
  std::sort(sets.begin(), sets.end());
  EXPECT_EQ(sets, (std::vector<std::vector<EventId>>{{3, 18, 26}, {18, 26}, {18, 26, 30}}));
  EXPECT_TRUE(s.result.deadlocks.empty());  // T0 holds l0 outside the blocked threads
  // spd finds the set with T1 through a join step; it is one of exact's.
  const RaceSink spd = run_engine("spd", *s.trace);
  ASSERT_EQ(spd.findings().size(), 1u);
  std::vector<EventId> steps;
  for (const DeadlockStep& step : spd.findings()[0].deadlock.cycle) steps.push_back(step.event);
  std::sort(steps.begin(), steps.end());
  EXPECT_EQ(steps, (std::vector<EventId>{3, 18, 26}));
}

// A run that deadlocked: each thread's last event is the request it waits at.
const char* kBlockedRun = "T1|acq(a)|1\nT2|acq(b)|2\nT1|req(b)|3\nT2|req(a)|4\n";
// kAbba as RAPID writes it: a request before every acquire, granted at once.
const char* kAbbaWithRequests =
    "T1|req(a)|1\nT1|acq(a)|2\nT1|req(b)|3\nT1|acq(b)|4\nT1|rel(b)|5\nT1|rel(a)|6\n"
    "T2|req(b)|7\nT2|acq(b)|8\nT2|req(a)|9\nT2|acq(a)|10\nT2|rel(a)|11\nT2|rel(b)|12\n";

TEST(ExactDeadlocks, PendingRequestsAreBlockedAcquires) {
  const Searched s = search(kBlockedRun);
  ASSERT_EQ(s.result.deadlocks.size(), 1u);
  EXPECT_EQ(ids(s, s.result.deadlocks[0].acquires), (std::vector<EventId>{3, 4}));
  std::vector<EventId> prefix = ids(s, s.result.deadlocks[0].prefix);
  std::sort(prefix.begin(), prefix.end());
  EXPECT_EQ(prefix, (std::vector<EventId>{1, 2}));
  ASSERT_EQ(s.result.cross_thread_deadlocks.size(), 1u);
  EXPECT_EQ(ids(s, s.result.cross_thread_deadlocks[0].acquires), (std::vector<EventId>{3, 4}));
  // A pending request of a lock nobody holds at the end blocks nothing else: no deadlock, and
  // the other threads' events still complete.
  const Searched free = search("T1|acq(a)|1\nT1|rel(a)|2\nT2|req(a)|3\nT1|w(x)|4\n");
  EXPECT_TRUE(free.result.deadlocks.empty());
  EXPECT_TRUE(free.result.cross_thread_deadlocks.empty());
}

TEST(ExactDeadlocks, GrantedRequestsChangeNothing) {
  const Searched s = search(kAbbaWithRequests);
  ASSERT_EQ(s.result.deadlocks.size(), 1u);
  EXPECT_EQ(ids(s, s.result.deadlocks[0].acquires), (std::vector<EventId>{4, 10}));
  EXPECT_EQ(testing::check_reordering(*s.index, s.result.deadlocks[0].prefix), "");
}

TEST(Spd, PendingRequestsAreStepsAndGrantedOnesChangeNothing) {
  const RaceSink blocked = run_engine("spd", parse_trace(kBlockedRun));
  ASSERT_EQ(blocked.findings().size(), 1u);
  std::vector<EventId> steps;
  for (const DeadlockStep& step : blocked.findings()[0].deadlock.cycle) steps.push_back(step.event);
  std::sort(steps.begin(), steps.end());
  EXPECT_EQ(steps, (std::vector<EventId>{3, 4}));
  EXPECT_EQ(blocked.findings()[0].deadlock.witness, (std::vector<EventId>{1, 2}));
  const RaceSink granted = run_engine("spd", parse_trace(kAbbaWithRequests));
  ASSERT_EQ(granted.findings().size(), 1u);
  EXPECT_EQ(granted.findings()[0].deadlock.witness, (std::vector<EventId>{1, 2, 3, 7, 8, 9}));
  // A request of a lock nobody else holds, or of a lock the thread holds itself, is no step.
  EXPECT_EQ(spd_deadlocks("T1|acq(a)|1\nT1|req(b)|2\nT2|acq(b)|3\nT2|rel(b)|4\n"), 0u);
  EXPECT_EQ(spd_deadlocks("T1|acq(a)|1\nT1|req(a)|2\nT2|acq(b)|3\nT2|req(a)|4\n"), 0u);
  EXPECT_EQ(run_engine("lockorder", parse_trace(kBlockedRun)).findings().size(), 1u);
}

// rreq(l), a pending read request, waits only for a write hold of l: T2 holds b and asks for a
// in read mode. When T1 holds a in write mode, T2 waits and the two threads deadlock; when T1
// holds a in read mode, T2's read request would be granted, so there is no deadlock (a write
// request, req(a), would wait for the read hold). exact, spd and lockorder agree.
TEST(Requests, APendingReadRequestWaitsOnlyForAWriteHold) {
  const char* kWriteHold = "T1|acq(a)|1\nT2|acq(b)|2\nT1|req(b)|3\nT2|rreq(a)|4\n";
  const char* kReadHold = "T1|racq(a)|1\nT2|acq(b)|2\nT1|req(b)|3\nT2|rreq(a)|4\n";
  const char* kReadHoldWriteRequest = "T1|racq(a)|1\nT2|acq(b)|2\nT1|req(b)|3\nT2|req(a)|4\n";
  for (const char* text : {kWriteHold, kReadHold, kReadHoldWriteRequest}) {
    SCOPED_TRACE(text);
    const bool deadlock = text != kReadHold;
    const Searched s = search(text);
    ASSERT_EQ(s.result.deadlocks.size(), deadlock ? 1u : 0u);
    EXPECT_EQ(s.result.cross_thread_deadlocks.size(), deadlock ? 1u : 0u);
    if (deadlock) {
      EXPECT_EQ(ids(s, s.result.deadlocks[0].acquires), (std::vector<EventId>{3, 4}));
    }
    const RaceSink spd = run_engine("spd", parse_trace(text));
    ASSERT_EQ(spd.findings().size(), deadlock ? 1u : 0u);
    if (deadlock) {
      std::vector<EventId> steps;
      for (const DeadlockStep& step : spd.findings()[0].deadlock.cycle) steps.push_back(step.event);
      std::sort(steps.begin(), steps.end());
      EXPECT_EQ(steps, (std::vector<EventId>{3, 4}));
    }
    EXPECT_EQ(run_engine("lockorder", parse_trace(text)).findings().size(), deadlock ? 1u : 0u);
  }
  // A granted read request changes nothing: racq(a) follows it.
  const Searched granted =
      search("T1|racq(a)|1\nT2|acq(b)|2\nT2|rreq(a)|3\nT2|racq(a)|4\nT1|req(b)|5\n");
  EXPECT_TRUE(granted.result.deadlocks.empty());
}

// Every engine: a request before each acquire, granted at once, changes no verdict (the race
// on x and the ABBA deadlock stay what they are).
TEST(Requests, GrantedRequestsChangeNoEnginesVerdict) {
  const std::string plain =
      "T0|fork(T1)|f1\nT0|fork(T2)|f2\nT1|acq(a)|a1\nT1|w(x)|w1\nT1|acq(b)|b1\nT1|rel(b)|b2\n"
      "T1|rel(a)|a2\nT2|acq(b)|b3\nT2|acq(a)|a3\nT2|rel(a)|a4\nT2|rel(b)|b4\nT2|w(x)|w2\n"
      "T0|join(T1)|j1\nT0|join(T2)|j2\n";
  std::string requested;
  size_t start = 0;
  while (start < plain.size()) {
    const size_t end = plain.find('\n', start);
    const std::string line = plain.substr(start, end + 1 - start);
    const size_t acq = line.find("|acq(");
    if (acq != std::string::npos)
      requested.append(line.substr(0, acq)).append("|req(").append(line.substr(acq + 5));
    requested.append(line);
    start = end + 1;
  }
  const Trace a = parse_trace(plain), b = parse_trace(requested);
  ASSERT_EQ(b.size(), a.size() + 4);
  for (const EngineInfo& info : engine_registry()) {
    SCOPED_TRACE(info.name);
    const RaceSink without = run_engine(info, a), with = run_engine(info, b);
    EXPECT_EQ(with.races().size(), without.races().size());
    EXPECT_EQ(with.findings().size(), without.findings().size());
  }
}

// Every engine accepts read requests: an rreq before each racq, granted at once, and a pending
// one at the end of a thread change no race engine's verdict (the race on x, none on y).
TEST(Requests, ReadRequestsChangeNoEnginesVerdict) {
  const std::string plain =
      "T0|fork(T1)|f1\nT0|fork(T2)|f2\nT1|racq(a)|a1\nT1|r(y)|r1\nT1|w(x)|w1\nT1|rrel(a)|a2\n"
      "T2|acq(a)|a3\nT2|w(y)|w3\nT2|rel(a)|a4\nT2|w(x)|w2\nT0|join(T1)|j1\nT0|join(T2)|j2\n"
      "T3|acq(b)|b1\n";
  std::string requested;
  size_t start = 0;
  while (start < plain.size()) {
    const size_t end = plain.find('\n', start);
    const std::string line = plain.substr(start, end + 1 - start);
    const size_t acq = line.find("|racq(");
    if (acq != std::string::npos)
      requested.append(line.substr(0, acq)).append("|rreq(").append(line.substr(acq + 6));
    requested.append(line);
    start = end + 1;
  }
  requested += "T0|rreq(b)|b2\n";  // T0 waits for b, which T3 holds in write mode
  const Trace a = parse_trace(plain), b = parse_trace(requested);
  ASSERT_EQ(b.size(), a.size() + 2);
  for (const EngineInfo& info : engine_registry()) {
    SCOPED_TRACE(info.name);
    const RaceSink without = run_engine(info, a), with = run_engine(info, b);
    EXPECT_EQ(with.races().size(), without.races().size());
    EXPECT_EQ(with.findings().size(), without.findings().size());
  }
}

struct Output {
  int code;
  std::string out;
};

Output racepred(const std::string& args) {
  const std::string command = std::string(RACEPRED_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

// The budgets as command-line options: on the dense trace, --deadlock-budget 100 stops spd's
// search (search_stopped, fewer patterns checked, fewer deadlocks) and lockorder's; a closure
// budget larger than the default's 4 events per trace event checks the patterns the default
// leaves unchecked. Out-of-range values are usage errors.
TEST(DeadlockBudgetCommand, ASmallBudgetStopsTheSearchAndALargerOneFindsMore) {
  const std::string path = ::testing::TempDir() + "racepred_dense_budget.std";
  write_trace(dense_trace(800), InputFormat::Std, path, WriteOptions{});
  // The engines' results by name: {"spd": …, "lockorder": …}.
  const auto run = [&](const std::string& options) {
    const Output out =
        racepred("analyze -q --format json -e spd,lockorder " + options + " " + path);
    EXPECT_EQ(out.code, 1) << out.out;  // deadlocks found
    const nlohmann::json doc = nlohmann::json::parse(out.out);
    nlohmann::json by_name;
    for (const auto& r : doc["results"]) by_name[r["engine"].get<std::string>()] = r;
    return by_name;
  };
  const auto extra = [](const nlohmann::json& engine, const char* name) -> uint64_t {
    return engine["extras"].contains(name) ? engine["extras"][name].get<uint64_t>() : 0;
  };
  const nlohmann::json small = run("--deadlock-budget 100");
  const nlohmann::json large = run("--deadlock-budget 100000000");
  for (const char* e : {"spd", "lockorder"}) {
    SCOPED_TRACE(e);
    EXPECT_EQ(extra(small[e], "search_stopped"), 1u);
    EXPECT_EQ(extra(large[e], "search_stopped"), 0u);
    EXPECT_LT(small[e]["findings"].size(), large[e]["findings"].size());
  }
  EXPECT_LT(extra(small["spd"], "abstract_cycles"), extra(large["spd"], "abstract_cycles"));
  EXPECT_GT(extra(small["spd"], "unsearched_dependencies"), 0u);
  // The closure budget: dense_trace(6000) spends the default one (4 events per trace event plus
  // 4 million) and leaves patterns unchecked; 1024 per event checks more of them.
  std::remove(path.c_str());
  if (std::getenv("RACEPRED_SANITIZED")) GTEST_SKIP() << "millions of closure events";
  write_trace(dense_trace(6000), InputFormat::Std, path, WriteOptions{});
  const nlohmann::json closure_small = run("--deadlock-budget 100000");
  const nlohmann::json closure_large = run("--deadlock-budget 100000 --spd-closure-budget 1024");
  EXPECT_GT(extra(closure_small["spd"], "unchecked_patterns"),
            extra(closure_large["spd"], "unchecked_patterns"));
  EXPECT_LT(extra(closure_small["spd"], "abstract_cycles"),
            extra(closure_large["spd"], "abstract_cycles"));
  const Output bad = racepred("analyze -e spd --deadlock-budget 0 " + path);
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("is not a whole number from 1 to"), std::string::npos) << bad.out;
  std::remove(path.c_str());
}

TEST(ExactDeadlocksCommand, TextAndJson) {
  const std::string fig5 = std::string(RACEPRED_EXAMPLES_DIR) + "/exact/fig05_stuck.std";
  const Output text = racepred("exact --deadlocks " + fig5);
  EXPECT_EQ(text.code, 1) << text.out;  // a (cross-thread) deadlock
  EXPECT_NE(text.out.find("predictable deadlocks (Def. B.4): 0"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("cross-thread predictable deadlocks (Def. B.7): 1"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("dc-tp races without a predictable race: 1  (e7, e12)"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("Def. B.8: Critical-2"), std::string::npos) << text.out;

  const std::string abba = std::string(RACEPRED_EXAMPLES_DIR) + "/deadlock/abba.std";
  const Output json = racepred("exact --deadlocks --format json " + abba);
  EXPECT_EQ(json.code, 1) << json.out;
  const auto doc = nlohmann::json::parse(json.out);
  const auto& engine = doc["results"][0];
  ASSERT_EQ(engine["findings"].size(), 1u) << json.out;
  EXPECT_EQ(engine["findings"][0]["kind"], "deadlock");
  EXPECT_EQ(engine["findings"][0]["witness"].size(), 2u);
  EXPECT_EQ(engine["counts"]["deadlock"], 1);
  EXPECT_EQ(engine["cross_thread_deadlocks"].size(), 1u);
  EXPECT_EQ(engine["critical"]["wcp"]["critical_1"], false);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
