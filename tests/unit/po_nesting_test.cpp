// Deeply nested critical sections: the rule-(a) engines' (wcp, dc, wdc, dc-tp, wdp;
// engines/po/nesting.hpp) rule-(a) work (EngineOptions::rule_a_steps: slots filled, sections and
// records looked at) and the lock-set table's work on releases out of order and on its
// membership tests grow linearly with the nesting depth, and the records of deep sections give
// the verdicts the slots give.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "racepred/clock/lock_set.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/options.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

enum class Shape {
  Inner,        // T0 releases innermost first; T1 writes without a lock
  Outer,        // T0 releases outermost first (in acquire order)
  SecondOwner,  // T1 takes the same N locks around its writes
};

// T0 takes N locks, writes N variables inside all of them and releases the locks; then T1
// writes the same variables.
std::string nested(int n, Shape shape) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "T0|acq(l" + std::to_string(i) + ")|1\n";
  for (int i = 0; i < n; ++i) s += "T0|w(x" + std::to_string(i) + ")|2\n";
  if (shape == Shape::Outer)
    for (int i = 0; i < n; ++i) s += "T0|rel(l" + std::to_string(i) + ")|3\n";
  else
    for (int i = n; i-- > 0;) s += "T0|rel(l" + std::to_string(i) + ")|3\n";
  if (shape == Shape::SecondOwner)
    for (int i = 0; i < n; ++i) s += "T1|acq(l" + std::to_string(i) + ")|5\n";
  for (int i = 0; i < n; ++i) s += "T1|w(x" + std::to_string(i) + ")|4\n";
  if (shape == Shape::SecondOwner)
    for (int i = n; i-- > 0;) s += "T1|rel(l" + std::to_string(i) + ")|6\n";
  return s;
}

struct Outcome {
  uint64_t steps;
  size_t races;
};
Outcome run(const std::string& engine, int n, Shape shape, uint64_t deep_level = 0) {
  std::atomic<uint64_t> steps{0};
  EngineOptions options;
  options.rule_a_steps = &steps;
  if (deep_level != 0) options.po_deep_level = deep_level;
  const RaceSink sink = run_engine(engine, parse_trace(nested(n, shape)), options);
  return {steps.load(), sink.race_count()};
}

const char* const kEngines[] = {"wcp", "dc", "wdc", "dc-tp", "wdp"};

// 4x the depth: at most about 4x the work (quadratic would be 16x).
TEST(PoNesting, RuleAWorkGrowsLinearlyWithTheDepth) {
  for (const char* engine : kEngines)
    for (Shape shape : {Shape::Inner, Shape::Outer, Shape::SecondOwner}) {
      const Outcome small = run(engine, 1000, shape), large = run(engine, 4000, shape);
      EXPECT_GE(small.steps, 1000u) << engine;  // the probe counts
      EXPECT_LE(static_cast<double>(large.steps), 5.0 * static_cast<double>(small.steps))
          << engine << " shape " << static_cast<int>(shape) << ": " << small.steps
          << " steps at depth 1000, " << large.steps << " at 4000";
      EXPECT_EQ(large.races, 4 * small.races) << engine;
    }
}

// The same races whether every section fills its slots (no deep level within reach) or
// every nested one leaves a record.
TEST(PoNesting, RecordsOfDeepSectionsReportWhatSlotsReport) {
  for (const char* engine : kEngines)
    for (Shape shape : {Shape::Inner, Shape::Outer, Shape::SecondOwner}) {
      const Outcome slots = run(engine, 200, shape, 1000), records = run(engine, 200, shape, 1);
      EXPECT_EQ(records.races, slots.races) << engine << " shape " << static_cast<int>(shape);
      EXPECT_LT(records.steps, slots.steps) << engine;
    }
}

// The lock-set engines' table (clock/lock_set.hpp) releasing N nested locks outermost first:
// every set on the way is right, and the locks acquired again and the nodes made grow linearly
// with N (each release re-interned the remaining set before: quadratic).
uint64_t release_in_acquire_order(uint32_t n) {
  LockSetTable table;
  LockSetTable::NodeId node = LockSetTable::kRoot;
  for (LockId l = 0; l < n; ++l) node = table.acquire(node, 100 + l);  // ids past the mask
  size_t wrong = 0;
  for (LockId l = 0; l < n; ++l) {
    node = table.release(node, 100 + l);
    wrong += table.size(table.set_of(node)) != n - 1 - l || table.holds(node, 100 + l);
    if (l + 1 < n) wrong += !table.holds(node, 100 + l + 1) || !table.holds(node, 100 + n - 1);
  }
  EXPECT_EQ(node, LockSetTable::kRoot);
  EXPECT_EQ(wrong, 0u);
  return table.replayed() + table.node_count();
}

TEST(PoNesting, LockSetsReleasedInAcquireOrderTakeLinearWork) {
  const uint64_t small = release_in_acquire_order(1000), large = release_in_acquire_order(4000);
  EXPECT_LE(static_cast<double>(large), 5.0 * static_cast<double>(small))
      << small << " at depth 1000, " << large << " at 4000";
  // A release out of the middle of the chain keeps the locks acquired before it.
  LockSetTable table;
  LockSetTable::NodeId node = LockSetTable::kRoot;
  for (LockId l : {1, 2, 3, 4}) node = table.acquire(node, l);
  node = table.release(node, 3);
  EXPECT_EQ(table.sorted_locks(table.set_of(node)), (std::vector<LockId>{1, 2, 4}));
  node = table.release(node, 4);  // now the last of the chain: the parent
  EXPECT_EQ(table.sorted_locks(table.set_of(node)), (std::vector<LockId>{1, 2}));
}

// Acquiring N nested locks (ids past the bit test, sets past the sorted lists) tests each time
// that the lock is not held, and releasing them in either order too: the locks visited by those
// membership tests stay a few per acquire and release at every depth (each walked the set
// before: quadratic). Every answer is checked against the locks taken.
uint64_t membership_steps(uint32_t n, bool outermost_first) {
  LockSetTable table;
  LockSetTable::NodeId node = LockSetTable::kRoot;
  size_t wrong = 0;
  for (LockId l = 0; l < n; ++l) {
    wrong += table.holds(node, 100 + l);
    node = table.acquire(node, 100 + l);
    wrong += !table.holds(node, 100 + l) || (l > 0 && !table.holds(node, 100 + l - 1));
    wrong += table.acquire(node, 100 + l) != node;  // held: the same node
  }
  for (LockId k = 0; k < n; ++k) {
    const LockId l = outermost_first ? 100 + k : 100 + n - 1 - k;
    node = table.release(node, l);
    wrong += table.holds(node, l) || table.size(table.set_of(node)) != n - 1 - k;
  }
  EXPECT_EQ(node, LockSetTable::kRoot);
  EXPECT_EQ(wrong, 0u) << n;
  return table.membership_steps();
}

TEST(PoNesting, LockSetMembershipWorkPerLockIsIndependentOfTheDepth) {
  for (const bool outer : {false, true}) {
    const uint64_t small = membership_steps(1000, outer), large = membership_steps(10000, outer);
    EXPECT_GE(small, 1000u);  // the probe counts
    // 10x the depth: at most about 10x the steps (quadratic would be 100x).
    EXPECT_LE(static_cast<double>(large), 12.0 * static_cast<double>(small))
        << small << " steps at depth 1000, " << large << " at 10,000";
    EXPECT_LE(large, uint64_t{10} * 10000);  // a few per acquire and release
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
