// racepred confirm following a witness (explore/witness_order.hpp): the plan a witness gives
// (steps by thread, their places in the witness, the racing accesses' positions) and the
// chooser's answers at the choice points the runtime would send, one per visible operation.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "racepred/explore/witness_order.hpp"
#include "racepred/format/explore_channel.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/witness/checker.hpp"

namespace racepred::explore {
namespace RACEPRED_TEST_FILE {

namespace ch = format::explore;
using StepKind = WitnessPlan::StepKind;

// main writes 0x2000 in its critical section; the worker writes it after two sections of its
// own. The witness runs the worker's sections first: both writes are then enabled.
constexpr const char* kReversal =
    "T0|fork(T1)|L1\n"
    "T0|acq(0x1000)|L2\n"
    "T0|w(0x2000)|L3\n"
    "T0|rel(0x1000)|L4\n"
    "T1|acq(0x1000)|L5\n"
    "T1|w(0x3000)|L6\n"
    "T1|rel(0x1000)|L7\n"
    "T1|acq(0x1000)|L5\n"
    "T1|w(0x3000)|L6\n"
    "T1|rel(0x1000)|L7\n"
    "T1|w(0x2000)|L8\n"
    "T0|join(T1)|L9\n";

witness::Witness reversal_witness() {
  witness::Witness w;
  w.engine = "test";
  w.notion = witness::Notion::Enabled;
  w.first = 3;
  w.second = 11;
  w.prefix = {1, 5, 6, 7, 8, 9, 10, 2};
  return w;
}

Candidate cand(uint32_t tid, uint8_t op, uint64_t obj = 0, uint8_t point = 0) {
  Candidate c;
  c.tid = tid;
  c.op = op;
  c.obj = obj;
  c.point = point;
  return c;
}

ChoicePoint at(uint32_t current, std::vector<Candidate> candidates) {
  ChoicePoint p;
  p.current = current;
  p.candidates = std::move(candidates);
  return p;
}

constexpr uint8_t kLock = ch::kOpMutexLock, kUnlock = 7, kCreate = ch::kOpThreadCreate,
                  kAccess = ch::kOpAccess, kRun = ch::kOpNone;

TEST(WitnessOrder, PlanHasEachThreadsStepsInTheWitnessOrder) {
  const Trace trace = parse_checked_trace(kReversal);
  const witness::Witness w = reversal_witness();
  ASSERT_TRUE(witness::Checker(trace).check(w).valid());
  const WitnessPlan plan = plan_witness(trace, trace, w);
  ASSERT_EQ(plan.error, "");
  EXPECT_EQ(plan.witness_events, 8u);
  ASSERT_EQ(plan.steps.size(), 2u);
  // T0: fork (first in T'), acquire (last in T'), then release and join after T'.
  ASSERT_EQ(plan.steps[0].size(), 4u);
  EXPECT_EQ(plan.steps[0][0].kind, StepKind::Fork);
  EXPECT_EQ(plan.steps[0][0].rank, 0u);
  EXPECT_EQ(plan.steps[0][1].kind, StepKind::Acquire);
  EXPECT_EQ(plan.steps[0][1].rank, 7u);
  EXPECT_EQ(plan.steps[0][2].rank, WitnessPlan::kNotInWitness);
  EXPECT_EQ(plan.steps[0][3].kind, StepKind::Join);
  ASSERT_EQ(plan.steps[1].size(), 4u);
  EXPECT_EQ(plan.steps[1][0].rank, 1u);
  EXPECT_EQ(plan.steps[1][3].kind, StepKind::Release);
  EXPECT_EQ(plan.steps[1][3].rank, 6u);
  EXPECT_EQ(plan.race[0].thread, 0u);
  EXPECT_EQ(plan.race[0].steps_before, 2u);
  EXPECT_EQ(plan.race[0].address, 0x2000u);
  EXPECT_EQ(plan.race[1].thread, 1u);
  EXPECT_EQ(plan.race[1].steps_before, 4u);
  EXPECT_EQ(plan.race[1].arrivals_before, 0u);
  ASSERT_GT(plan.lock_address.size(), 0u);
  EXPECT_EQ(plan.lock_address[plan.steps[0][1].object], 0x1000u);
}

// The runtime's points of an execution that follows the program as recorded: the worker's two
// sections run before main's, then both writes are held and run back to back, later first.
TEST(WitnessOrder, RunsTheWorkersSectionsFirstThenBothAccesses) {
  const Trace trace = parse_checked_trace(kReversal);
  const WitnessPlan plan = plan_witness(trace, trace, reversal_witness());
  WitnessOrder order(plan, true);
  const auto pick = [&](ChoicePoint p) { return p.candidates[order.choose(p)].tid; };
  EXPECT_EQ(pick(at(0, {cand(0, kCreate)})), 0u);                       // fork
  EXPECT_EQ(pick(at(0, {cand(0, kLock, 0x1000), cand(1, kRun)})), 1u);  // T1 first
  EXPECT_EQ(pick(at(1, {cand(0, kLock, 0x1000), cand(1, kLock, 0x1000)})), 1u);
  EXPECT_EQ(pick(at(1, {cand(1, kUnlock, 0x1000)})), 1u);  // main waits for the lock
  EXPECT_EQ(pick(at(1, {cand(0, kLock, 0x1000), cand(1, kLock, 0x1000)})), 1u);
  EXPECT_EQ(pick(at(1, {cand(1, kUnlock, 0x1000)})), 1u);
  // The worker at its write (access point 2) is held: main takes the lock.
  EXPECT_EQ(pick(at(1, {cand(0, kLock, 0x1000), cand(1, kAccess, 0x2000, 2)})), 0u);
  EXPECT_FALSE(order.first_ran());
  // Both at their writes: the later (the worker's) first, then main's.
  EXPECT_EQ(pick(at(0, {cand(0, kAccess, 0x2000, 1), cand(1, kAccess, 0x2000, 2)})), 1u);
  EXPECT_TRUE(order.first_ran());
  EXPECT_FALSE(order.raced());
  EXPECT_EQ(pick(at(1, {cand(0, kAccess, 0x2000, 1), cand(1, kAccess, 0x3000, 0)})), 0u);
  EXPECT_TRUE(order.raced());
  EXPECT_EQ(order.divergence(), "");
  EXPECT_EQ(order.steps_run(), 6u);  // the fork, the worker's four, main's acquire
}

TEST(WitnessOrder, InTheRecordedOrderTheEarlierAccessRunsFirst) {
  const Trace trace = parse_checked_trace(kReversal);
  const WitnessPlan plan = plan_witness(trace, trace, reversal_witness());
  WitnessOrder order(plan, false);
  const auto pick = [&](ChoicePoint p) { return p.candidates[order.choose(p)].tid; };
  pick(at(0, {cand(0, kCreate)}));
  pick(at(0, {cand(0, kLock, 0x1000), cand(1, kRun)}));
  for (int i = 0; i < 2; ++i) {
    pick(at(1, {cand(0, kLock, 0x1000), cand(1, kLock, 0x1000)}));
    pick(at(1, {cand(1, kUnlock, 0x1000)}));
  }
  pick(at(1, {cand(0, kLock, 0x1000), cand(1, kAccess, 0x2000, 2)}));
  EXPECT_EQ(pick(at(0, {cand(0, kAccess, 0x2000, 1), cand(1, kAccess, 0x2000, 2)})), 0u);
  EXPECT_EQ(pick(at(0, {cand(0, kUnlock, 0x1000), cand(1, kAccess, 0x2000, 2)})), 1u);
  EXPECT_TRUE(order.raced());
}

// The worker takes another lock than the recorded run: the steering stops and names the event,
// the thread, what it did and what the witness has; later choices are the default.
TEST(WitnessOrder, AnotherLockIsADivergenceNamingTheEvent) {
  const Trace trace = parse_checked_trace(kReversal);
  const WitnessPlan plan = plan_witness(trace, trace, reversal_witness());
  WitnessOrder order(plan, true);
  const auto pick = [&](ChoicePoint p) { return p.candidates[order.choose(p)].tid; };
  pick(at(0, {cand(0, kCreate)}));
  pick(at(0, {cand(0, kLock, 0x1000), cand(1, kRun)}));
  EXPECT_EQ(pick(at(1, {cand(0, kLock, 0x1000), cand(1, kLock, 0x4000)})), 1u);  // default
  EXPECT_EQ(order.divergence(),
            "diverged at event 5 (thread T1 did lock of 0x4000 where the witness has acquire of "
            "0x1000 at L5)");
  EXPECT_FALSE(order.raced());
}

// The racing thread reaches its access at another address (another element of an array): the
// variable does not agree.
TEST(WitnessOrder, TheRacingAccessMustBeOfTheSameVariable) {
  const Trace trace = parse_checked_trace(kReversal);
  const WitnessPlan plan = plan_witness(trace, trace, reversal_witness());
  WitnessOrder order(plan, true);
  const auto pick = [&](ChoicePoint p) { return p.candidates[order.choose(p)].tid; };
  pick(at(0, {cand(0, kCreate)}));
  pick(at(0, {cand(0, kLock, 0x1000), cand(1, kRun)}));
  for (int i = 0; i < 2; ++i) {
    pick(at(1, {cand(0, kLock, 0x1000), cand(1, kLock, 0x1000)}));
    pick(at(1, {cand(1, kUnlock, 0x1000)}));
  }
  pick(at(1, {cand(0, kLock, 0x1000), cand(1, kAccess, 0x2008, 2)}));
  EXPECT_EQ(order.divergence(),
            "diverged at event 11 (thread T1 did memory access of 0x2008 where the witness has "
            "write of 0x2000 at L8)");
}

// After the execution, its trace is compared with the recorded run over the witness's events:
// an access at another address (both named by address) is the first difference.
TEST(WitnessOrder, TheExecutionsTraceIsComparedOverTheWitness) {
  const Trace trace = parse_checked_trace(kReversal);
  const WitnessPlan plan = plan_witness(trace, trace, reversal_witness());
  WitnessOrder order(plan, true);
  const auto pick = [&](ChoicePoint p) { return p.candidates[order.choose(p)].tid; };
  pick(at(0, {cand(0, kCreate)}));
  pick(at(0, {cand(0, kLock, 0x1000), cand(1, kRun)}));  // binds T1 to runtime tid 1
  EXPECT_EQ(compare_with_witness(plan, order, trace, trace), "");
  std::string other(kReversal);
  other.replace(other.find("T1|w(0x3000)|L6\nT1|rel(0x1000)|L7\nT1|acq"), 12, "T1|w(0x3008)");
  const Trace run = parse_checked_trace(other);
  EXPECT_EQ(compare_with_witness(plan, order, run, run),
            "diverged at event 6 (thread T1 did write of 0x3008 at L6 where the witness has "
            "write of 0x3000 at L6)");
}

// pthread_create may pass another hook (pthread_once) before the child exists: its creator goes
// on, although its own next event is after the witness.
TEST(WitnessOrder, ACreatorFinishesTheCreationFirst) {
  const Trace trace = parse_checked_trace(kReversal);
  const WitnessPlan plan = plan_witness(trace, trace, reversal_witness());
  WitnessOrder order(plan, true);
  const auto pick = [&](ChoicePoint p) { return p.candidates[order.choose(p)].tid; };
  constexpr uint8_t kOnce = 26;
  pick(at(0, {cand(0, kCreate)}));
  EXPECT_EQ(pick(at(0, {cand(0, kOnce, 0x7000)})), 0u);
  EXPECT_EQ(pick(at(0, {cand(0, kLock, 0x1000), cand(1, kRun)})), 1u);
  EXPECT_EQ(order.divergence(), "");
}

// A racing thread that reaches its next lock instead of its access took another path.
TEST(WitnessOrder, ARacingThreadMustReachItsAccess) {
  const Trace trace = parse_checked_trace(kReversal);
  const WitnessPlan plan = plan_witness(trace, trace, reversal_witness());
  WitnessOrder order(plan, true);
  const auto pick = [&](ChoicePoint p) { return p.candidates[order.choose(p)].tid; };
  pick(at(0, {cand(0, kCreate)}));
  pick(at(0, {cand(0, kLock, 0x1000), cand(1, kRun)}));
  for (int i = 0; i < 2; ++i) {
    pick(at(1, {cand(0, kLock, 0x1000), cand(1, kLock, 0x1000)}));
    pick(at(1, {cand(1, kUnlock, 0x1000)}));
  }
  pick(at(1, {cand(0, kLock, 0x1000), cand(1, kLock, 0x1000)}));
  EXPECT_EQ(order.divergence(),
            "diverged at event 11 (thread T1 did lock of 0x1000 where the witness has write of "
            "0x2000 at L8)");
}

// A thread spinning at hooks that are no steps (an atomic flag the witness does not order)
// ends the steering after a bounded number of choices, with a message.
TEST(WitnessOrder, ASpinThatNeverReachesTheWitnessEnds) {
  const Trace trace = parse_checked_trace(kReversal);
  const WitnessPlan plan = plan_witness(trace, trace, reversal_witness());
  WitnessOrder order(plan, true);
  const auto pick = [&](ChoicePoint p) { return p.candidates[order.choose(p)].tid; };
  constexpr uint8_t kAtomic = ch::kOpAtomic;
  pick(at(0, {cand(0, kCreate)}));
  pick(at(0, {cand(0, kLock, 0x1000), cand(1, kRun)}));
  int runs = 0;
  while (order.divergence().empty() && runs < 100000) {
    pick(at(1, {cand(1, kAtomic, 0x6000)}));  // main waits (for what the flag's writer holds)
    ++runs;
  }
  EXPECT_LT(runs, 100000);
  EXPECT_NE(order.divergence().find("thread T1 ran 20000 operations without reaching the "
                                    "witness's next event"),
            std::string::npos)
      << order.divergence();
}

// A condition wait is one step (its release comes before the hook, in the thread's run); an
// earlier access at a racing location counts as an arrival before the racing one.
TEST(WitnessOrder, ConditionWaitsAreOneStepAndEarlierArrivalsAreCounted) {
  const Trace trace = parse_checked_trace(
      "T0|fork(T1)|L1\n"
      "T1|acq(0x1000)|L2\n"
      "T1|rel(0x1000)|L3\n"
      "T1|recv(0x5000)|L3\n"
      "T1|acq(0x1000)|L3\n"
      "T1|rel(0x1000)|L4\n"
      "T1|w(0x2000)|L5\n"
      "T1|w(0x2000)|L5\n"
      "T0|send(0x5000)|L6\n"
      "T0|w(0x2000)|L7\n");
  witness::Witness w;
  w.notion = witness::Notion::Enabled;
  w.first = 8;
  w.second = 10;
  w.prefix = {1, 2, 3, 9, 4, 5, 6, 7};
  ASSERT_TRUE(witness::Checker(trace).check(w).valid());
  const WitnessPlan plan = plan_witness(trace, trace, w);
  ASSERT_EQ(plan.error, "");
  ASSERT_EQ(plan.steps[1].size(), 3u);
  EXPECT_EQ(plan.steps[1][0].kind, StepKind::Acquire);
  EXPECT_EQ(plan.steps[1][1].kind, StepKind::CondWait);
  EXPECT_EQ(plan.lock_address[plan.steps[1][1].cv], 0x5000u);
  EXPECT_EQ(plan.steps[1][2].kind, StepKind::Release);
  EXPECT_EQ(plan.race[0].thread, 1u);
  EXPECT_EQ(plan.race[0].steps_before, 3u);
  EXPECT_EQ(plan.race[0].arrivals_before, 1u);  // the first w(0x2000) at L5
  EXPECT_EQ(plan.race[1].steps_before, 1u);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::explore
