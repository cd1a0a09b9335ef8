// The lock-order deadlock engine: what the example traces cannot show (bounded memory on loops
// and deep nesting, the cycle bound, phases of fork/join, held locks without sites, the CLI).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "racepred/driver/run.hpp"
#include "racepred/io/reader.hpp"
#include "support/cli_run.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using testing::CliResult;
using testing::run_racepred;
using testing::shell_quote;

uint64_t stat(const RaceSink& sink, const std::string& key) {
  for (const ExtraStat& s : sink.extras().stats)
    if (s.key == key) return s.value;
  ADD_FAILURE() << "no stat " << key;
  return 0;
}

std::vector<const Finding*> deadlocks(const RaceSink& sink) {
  std::vector<const Finding*> out;
  for (const Finding& f : sink.findings())
    if (f.kind == FindingKind::Deadlock) out.push_back(&f);
  return out;
}

std::vector<EventId> requests(const Finding& f) {
  std::vector<EventId> events;
  for (const DeadlockStep& step : f.deadlock.cycle) events.push_back(step.event);
  return events;
}

// T1 takes a then b, T2 b then a, `times` times each.
std::string abba(int times) {
  std::string t;
  for (int i = 0; i < times; ++i)
    t += "T1|acq(a)|1\nT1|acq(b)|2\nT1|rel(b)|3\nT1|rel(a)|4\n"
         "T2|acq(b)|5\nT2|acq(a)|6\nT2|rel(a)|7\nT2|rel(b)|8\n";
  return t;
}

TEST(LockOrder, RepeatedOrdersAddNoDependencies) {
  const RaceSink once = run_engine("lockorder", parse_trace(abba(1)));
  const RaceSink many = run_engine("lockorder", parse_trace(abba(1000)));
  EXPECT_EQ(stat(once, "lock_dependencies"), 2u);
  EXPECT_EQ(stat(many, "lock_dependencies"), 2u);
  ASSERT_EQ(deadlocks(many).size(), 1u);
  EXPECT_EQ(requests(*deadlocks(many)[0]), (std::vector<EventId>{2, 6}));
  EXPECT_EQ(many.race_count(), 0u);
}

// One thread nests n locks and releases them; a second thread does the same in the same order.
std::string nested(int n) {
  std::string t;
  for (const char* thread : {"T1", "T2"}) {
    for (int i = 0; i < n; ++i) t += std::string(thread) + "|acq(l" + std::to_string(i) + ")|1\n";
    for (int i = n; i-- > 0;) t += std::string(thread) + "|rel(l" + std::to_string(i) + ")|2\n";
  }
  return t;
}

TEST(LockOrder, DeepNestingInOneOrderHasNoCycleToSearch) {
  for (int n : {500, 2000}) {
    const RaceSink sink = run_engine("lockorder", parse_trace(nested(n)));
    // One dependency per nested acquire (not one edge per pair of locks) and no lock on a cycle.
    EXPECT_EQ(stat(sink, "lock_dependencies"), 2u * static_cast<uint64_t>(n - 1));
    EXPECT_EQ(stat(sink, "locks_on_cycles"), 0u);
    EXPECT_TRUE(deadlocks(sink).empty());
  }
}

TEST(LockOrder, DeepHoldsAreListedWithoutTheirSites) {
  // T1 holds 20 locks and requests b; T2 holds b and requests l0.
  std::string t;
  for (int i = 0; i < 20; ++i) t += "T1|acq(l" + std::to_string(i) + ")|1\n";
  t += "T1|acq(b)|2\nT1|rel(b)|3\n";
  for (int i = 20; i-- > 0;) t += "T1|rel(l" + std::to_string(i) + ")|4\n";
  t += "T2|acq(b)|5\nT2|acq(l0)|6\nT2|rel(l0)|7\nT2|rel(b)|8\n";
  const RaceSink sink = run_engine("lockorder", parse_trace(t));
  ASSERT_EQ(deadlocks(sink).size(), 1u);
  const Deadlock& d = deadlocks(sink)[0]->deadlock;
  ASSERT_EQ(d.cycle.size(), 2u);
  const DeadlockStep& t1 = d.cycle[0].thread == 0 ? d.cycle[0] : d.cycle[1];
  const DeadlockStep& t2 = d.cycle[0].thread == 0 ? d.cycle[1] : d.cycle[0];
  EXPECT_EQ(t1.held.size(), 20u);
  for (const HeldLock& h : t1.held) EXPECT_EQ(h.acquired, kNoEvent);
  ASSERT_EQ(t2.held.size(), 1u);
  EXPECT_EQ(t2.held[0].acquired, 43u);  // T2|acq(b): after T1's 20 + 2 + 20 events
}

// The five dining philosophers: a cycle of five locks.
std::string philosophers() {
  std::string t;
  for (int i = 0; i < 5; ++i) {
    const std::string p = "P" + std::to_string(i), l = "f" + std::to_string(i),
                      r = "f" + std::to_string((i + 1) % 5);
    t += p + "|acq(" + l + ")|1\n" + p + "|acq(" + r + ")|2\n" + p + "|rel(" + r + ")|3\n" + p +
         "|rel(" + l + ")|4\n";
  }
  return t;
}

TEST(LockOrder, MaxCycleBoundsTheSearch) {
  EngineOptions options;
  options.max_cycle = 4;
  EXPECT_TRUE(deadlocks(run_engine("lockorder", parse_trace(philosophers()), options)).empty());
  options.max_cycle = 5;
  const RaceSink sink = run_engine("lockorder", parse_trace(philosophers()), options);
  ASSERT_EQ(deadlocks(sink).size(), 1u);
  EXPECT_EQ(deadlocks(sink)[0]->deadlock.cycle.size(), 5u);
}

TEST(LockOrder, AStoppedSearchSaysSoAndKeepsTheShortCycles) {
  // ABBA and the five philosophers in one trace (different locks): a budget too small for the
  // five-lock cycle still finds the two-lock one, which is searched first.
  const std::string t = abba(1) + philosophers();
  EngineOptions options;
  const RaceSink all = run_engine("lockorder", parse_trace(t), options);
  EXPECT_EQ(deadlocks(all).size(), 2u);
  for (const ExtraStat& s : all.extras().stats) EXPECT_NE(s.key, "search_stopped");
  options.lockorder_search_budget = 8;
  const RaceSink cut = run_engine("lockorder", parse_trace(t), options);
  ASSERT_EQ(deadlocks(cut).size(), 1u);
  EXPECT_EQ(deadlocks(cut)[0]->deadlock.cycle.size(), 2u);
  EXPECT_EQ(stat(cut, "search_stopped"), 1u);
}

TEST(LockOrder, AnOrderAfterAForkIsANewPhase) {
  // T1's first a→b is before the fork of T2 (ordered), its second after it (concurrent with
  // T2's b→a): a deadlock at the second one.
  const std::string t =
      "T1|acq(a)|1\nT1|acq(b)|2\nT1|rel(b)|3\nT1|rel(a)|4\nT1|fork(T2)|5\n"
      "T1|acq(a)|6\nT1|acq(b)|7\nT1|rel(b)|8\nT1|rel(a)|9\n"
      "T2|acq(b)|10\nT2|acq(a)|11\nT2|rel(a)|12\nT2|rel(b)|13\nT1|join(T2)|14\n";
  const RaceSink sink = run_engine("lockorder", parse_trace(t));
  EXPECT_EQ(stat(sink, "lock_dependencies"), 3u);
  ASSERT_EQ(deadlocks(sink).size(), 1u);
  EXPECT_EQ(requests(*deadlocks(sink)[0]), (std::vector<EventId>{7, 11}));
}

TEST(LockOrder, GuardHeldInReadModeByBothDoesNotGuard) {
  // Both hold g in read mode around their inverted orders: read holds do not exclude each
  // other, so the deadlock stays; in write mode by one of them it is guarded.
  const std::string shared =
      "T1|racq(g)|1\nT1|acq(a)|2\nT1|acq(b)|3\nT1|rel(b)|4\nT1|rel(a)|5\nT1|rrel(g)|6\n"
      "T2|racq(g)|7\nT2|acq(b)|8\nT2|acq(a)|9\nT2|rel(a)|10\nT2|rel(b)|11\nT2|rrel(g)|12\n";
  EXPECT_EQ(deadlocks(run_engine("lockorder", parse_trace(shared))).size(), 1u);
  const std::string exclusive =
      "T1|racq(g)|1\nT1|acq(a)|2\nT1|acq(b)|3\nT1|rel(b)|4\nT1|rel(a)|5\nT1|rrel(g)|6\n"
      "T2|acq(g)|7\nT2|acq(b)|8\nT2|acq(a)|9\nT2|rel(a)|10\nT2|rel(b)|11\nT2|rel(g)|12\n";
  EXPECT_TRUE(deadlocks(run_engine("lockorder", parse_trace(exclusive))).empty()) << exclusive;
}

TEST(LockOrder, CommandLineReportsTheDeadlockInTextAndJson) {
  const std::string trace = std::string(RACEPRED_EXAMPLES_DIR) + "/deadlock/three_locks.std";
  CliResult text = run_racepred("analyze -e lockorder " + shell_quote(trace));
  EXPECT_EQ(text.code, 1) << text.err;
  EXPECT_NE(text.out.find("WARNING: deadlock (engine lockorder"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Cycle in lock order graph: a => b => c => a"), std::string::npos)
      << text.out;
  CliResult json = run_racepred("analyze -e lockorder --format json " + shell_quote(trace));
  EXPECT_EQ(json.code, 1) << json.err;
  EXPECT_NE(json.out.find("\"kind\": \"deadlock\""), std::string::npos) << json.out;
  CliResult none =
      run_racepred("analyze -e lockorder " +
                   shell_quote(std::string(RACEPRED_EXAMPLES_DIR) + "/deadlock/guard_lock.std"));
  EXPECT_EQ(none.code, 0) << none.out << none.err;
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
