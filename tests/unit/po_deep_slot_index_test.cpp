// The (variable, lock) index of the rule-(a) slot lists of variables guarded by many locks
// (DeepSlotIndex, engines/po/po_common.hpp): it finds what was inserted, nothing else, and its
// work grows linearly with the number of pairs (deeply nested critical sections make a pair per
// (lock, variable); a scan of the list instead made it quadratic per variable).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "racepred/engines/po/po_common.hpp"

namespace racepred::po {
namespace RACEPRED_TEST_FILE {

TEST(DeepSlotIndex, FindsWhatWasInsertedAndNothingElse) {
  DeepSlotIndex index;
  EXPECT_EQ(index.find(0, 0), DeepSlotIndex::kNone);
  std::mt19937 rng(5);
  std::vector<std::pair<VariableId, LockId>> pairs;
  for (uint32_t k = 0; k < 5000; ++k) {
    const VariableId x = rng() % 40;
    const LockId l = static_cast<LockId>(k);  // distinct locks: every pair is new
    index.insert(x, l, k);
    pairs.emplace_back(x, l);
  }
  EXPECT_EQ(index.size(), pairs.size());
  for (uint32_t k = 0; k < pairs.size(); ++k)
    ASSERT_EQ(index.find(pairs[k].first, pairs[k].second), k);
  // The same lock under another variable, and the high bits of both ids, are other keys.
  EXPECT_EQ(index.find(40, 7), DeepSlotIndex::kNone);
  EXPECT_EQ(index.find(pairs[7].first, 7 | kReadMode), DeepSlotIndex::kNone);
  EXPECT_EQ(index.find(pairs[7].first | 0x80000000u, 7), DeepSlotIndex::kNone);
}

TEST(DeepSlotIndex, IndexesAListOnlyPastTheShallowLength) {
  DeepSlotIndex index;
  std::vector<LockId> locks;
  for (LockId l = 0; l < DeepSlotIndex::kShallow; ++l) {
    locks.push_back(100 + l);
    index.added(3, locks.size(), [&](size_t k) { return locks[k]; });
  }
  EXPECT_EQ(index.size(), 0u);  // short lists are scanned
  for (LockId l = 0; l < 4; ++l) {
    locks.push_back(200 + l);
    index.added(3, locks.size(), [&](size_t k) { return locks[k]; });
  }
  ASSERT_EQ(index.size(), locks.size());
  for (size_t k = 0; k < locks.size(); ++k) EXPECT_EQ(index.find(3, locks[k]), k);
}

// The work (slots visited) of building the slots of one thread's N nested sections on N
// variables, as a release-time rule (a) does (a miss, then the insert, per pair; then a hit):
// 4x the pairs cost at most about 4x the probes.
uint64_t probes_for_nesting(uint32_t n) {
  DeepSlotIndex index;
  std::vector<std::vector<LockId>> lists(n);
  size_t wrong = 0;
  for (LockId l = n; l-- > 0;)  // releases innermost first
    for (VariableId x = 0; x < n; ++x) {
      wrong += index.find(x, l) != DeepSlotIndex::kNone;
      lists[x].push_back(l);
      index.added(x, lists[x].size(), [&](size_t k) { return lists[x][k]; });
    }
  for (VariableId x = 0; x < n; ++x) wrong += index.find(x, n / 2) != n - 1 - n / 2;
  EXPECT_EQ(wrong, 0u);
  return index.probes();
}

TEST(DeepSlotIndex, WorkGrowsLinearlyInThePairs) {
  const uint64_t small = probes_for_nesting(300), large = probes_for_nesting(600);
  const double pairs_ratio = 4.0;  // (600 / 300)^2
  EXPECT_GT(small, 0u);
  EXPECT_LE(static_cast<double>(large), 1.15 * pairs_ratio * static_cast<double>(small))
      << small << " probes for 300, " << large << " for 600";
  // And a small constant per pair: a miss, an insert and a hit.
  EXPECT_LE(large, 12u * 600 * 600);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::po
