// SnapshotPool (clock/snapshot_pool.hpp): reference counting, reuse, and delta snapshots
// (a thread's previous snapshot stored as its difference from the next one, keyframes every
// chain() snapshots) against a plain model that keeps every snapshot as a full row.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <vector>

#include "racepred/clock/snapshot_pool.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

std::vector<Clock> row_of(const SnapshotPool& pool, uint32_t s, size_t stride) {
  const Clock* r = pool.row(s);
  return {r, r + stride};
}

TEST(SnapshotPool, DeltaChainsRebuildEverySnapshot) {
  SnapshotPool pool(SnapshotPool::kChain, SnapshotOptions{.delta_min_stride = 64, .chain = 4});
  const size_t n = 64;
  pool.set_stride(n);
  std::vector<Clock> clock(n, 1);
  std::vector<uint32_t> ids;
  std::vector<std::vector<Clock>> rows;
  for (int k = 0; k < 10; ++k) {  // thread 0's clock, one entry more each time
    if (k % 3 == 0) clock[static_cast<size_t>(k)] += 70000;  // a wide difference now and then
    clock[static_cast<size_t>(k) + 1] += 3;                  // and narrow ones
    const uint32_t s = pool.take(clock.data(), 0);
    pool.ref(s);
    ids.push_back(s);
    rows.push_back(clock);
  }
  // Chains of at most 3 deltas: snapshots 0-2, 4-6 deltas; 3, 7 keyframes; 8 a delta; 9 the tip.
  EXPECT_EQ(pool.deltas(), 7u);
  EXPECT_EQ(pool.full_rows(), 3u);
  for (size_t k = 0; k < ids.size(); ++k) EXPECT_EQ(row_of(pool, ids[k], n), rows[k]) << k;
  // Bases stay while their deltas do: dropping the newer ones keeps the older ones exact.
  for (size_t k = 5; k < ids.size(); ++k) pool.unref(ids[k]);
  EXPECT_EQ(pool.live(), 8u);  // 5..7 stay (the chain of 4), 8 and 9 go
  for (size_t k = 0; k < 5; ++k) EXPECT_EQ(row_of(pool, ids[k], n), rows[k]) << k;
  pool.unref(ids[4]);  // 4 gone: 5, 6, 7 had no other reference
  EXPECT_EQ(pool.live(), 4u);
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(row_of(pool, ids[k], n), rows[k]) << k;
  for (size_t k = 0; k < 4; ++k) pool.unref(ids[k]);
  EXPECT_EQ(pool.live(), 0u);
  EXPECT_EQ(pool.deltas(), 0u);
  EXPECT_EQ(pool.full_rows(), 0u);
  // Reuse: the freed ids and rows are handed out again.
  const uint32_t again = pool.take(clock.data(), 1);
  EXPECT_LT(again, 10u);
  EXPECT_EQ(row_of(pool, again, n), clock);
}

// Sparse mode: a snapshot taken from a list of entries (the PWR family packs a thread's clock
// from ThreadClocks' list) is that list, and row() unpacks it; a freed id taken again starts
// from an empty list.
TEST(SnapshotPool, SparseSnapshotsTakenFromEntries) {
  SnapshotPool pool;
  const size_t n = 16;
  pool.set_stride(n);
  std::vector<Clock> clock(n, 0);
  clock[3] = 7;
  const uint32_t dense = pool.take(clock.data(), 0);
  pool.ref(dense);
  pool.make_sparse();
  ASSERT_TRUE(pool.sparse());
  EXPECT_EQ(row_of(pool, dense, n), clock);
  const std::vector<SnapshotPool::Entry> list = {{5, 2}, {0, 9}, {12, 4}};
  const uint32_t s = pool.take_entries(1, [&](std::vector<SnapshotPool::Entry>& out) {
    EXPECT_TRUE(out.empty());
    out = list;
  });
  pool.ref(s);
  EXPECT_NE(s, dense);
  EXPECT_EQ(pool.thread(s), 1u);
  ASSERT_EQ(pool.entries(s).size(), list.size());
  for (size_t k = 0; k < list.size(); ++k) {
    EXPECT_EQ(pool.entries(s)[k].slot, list[k].slot);
    EXPECT_EQ(pool.entries(s)[k].value, list[k].value);
  }
  std::vector<Clock> expected(n, 0);
  expected[5] = 2;
  expected[0] = 9;
  expected[12] = 4;
  EXPECT_EQ(row_of(pool, s, n), expected);
  EXPECT_EQ(pool.entries(dense).size(), 1u);  // the packed dense snapshot: one non-zero entry
  pool.unref(s);
  EXPECT_EQ(pool.live(), 1u);
  const uint32_t again = pool.take_entries(2, [&](std::vector<SnapshotPool::Entry>& out) {
    EXPECT_TRUE(out.empty());  // not the freed snapshot's list
    out.push_back({1, 1});
  });
  EXPECT_EQ(again, s);
  EXPECT_EQ(pool.entries(again).size(), 1u);
  EXPECT_EQ(row_of(pool, again, n)[1], 1u);
}

TEST(SnapshotPool, NoDeltasBelowTheStrideOrWhenMostEntriesDiffer) {
  SnapshotPool pool(SnapshotPool::kChain, SnapshotOptions{.delta_min_stride = 64});
  pool.set_stride(32);
  std::vector<Clock> clock(32, 0);
  for (Clock k = 1; k < 5; ++k) {
    clock[0] = k;
    pool.ref(pool.take(clock.data(), 0));
  }
  EXPECT_EQ(pool.deltas(), 0u);
  pool.set_stride(64);
  clock.resize(64, 0);
  const uint32_t a = pool.take(clock.data(), 0);
  pool.ref(a);
  for (Clock& c : clock) c += 1;  // every entry differs
  pool.ref(pool.take(clock.data(), 0));
  EXPECT_EQ(pool.deltas(), 0u);
  clock[3] += 1;
  pool.ref(pool.take(clock.data(), 0));
  EXPECT_EQ(pool.deltas(), 1u);
  EXPECT_EQ(pool.row(a)[0], 4u);
}

// The settings are the pool's own: two pools with different options side by side (as two
// engines of one `analyze` run) each store snapshots as theirs say, and a counter counts only
// the deltas of the pools given it.
TEST(SnapshotPool, OptionsArePerPool) {
  std::atomic<size_t> made{0};
  SnapshotPool deltas(SnapshotPool::kChain,
                      SnapshotOptions{.delta_min_stride = 4, .chain = 3, .deltas_made = &made});
  SnapshotPool full;  // the defaults: deltas from 64 slots only
  EXPECT_EQ(deltas.chain(), 3u);
  EXPECT_EQ(full.chain(), SnapshotPool::kChain);
  EXPECT_EQ(SnapshotPool(SnapshotPool::kShortChain).chain(), SnapshotPool::kShortChain);
  deltas.set_stride(8);
  full.set_stride(8);
  std::vector<Clock> clock(8, 1);
  std::vector<uint32_t> a, b;
  for (int k = 0; k < 6; ++k) {
    clock[static_cast<size_t>(k)] += 1;
    a.push_back(deltas.take(clock.data(), 0));
    deltas.ref(a.back());
    b.push_back(full.take(clock.data(), 0));
    full.ref(b.back());
  }
  // Chains of 3: snapshots 0, 1 deltas, 2 a keyframe, 3, 4 deltas, 5 the tip.
  EXPECT_EQ(deltas.deltas(), 4u);
  EXPECT_EQ(made.load(), 4u);
  EXPECT_EQ(full.deltas(), 0u);
  EXPECT_EQ(full.full_rows(), 6u);
  for (size_t k = 0; k < a.size(); ++k)
    EXPECT_EQ(row_of(deltas, a[k], 8), row_of(full, b[k], 8)) << k;
}

// Random takes, refs and unrefs of several threads (with strides growing, and a switch to
// sparse snapshots) against a model of full rows.
TEST(SnapshotPool, RandomUseMatchesFullRows) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Rng rng(seed);
    SnapshotPool pool(SnapshotPool::kChain,
                      SnapshotOptions{.delta_min_stride = 4, .chain = 1 + rng.below(6)});
    size_t stride = 4;
    pool.set_stride(stride);
    std::vector<std::vector<Clock>> clocks(1 + rng.below(5), std::vector<Clock>(stride, 0));
    std::map<uint32_t, std::pair<std::vector<Clock>, int>> live;  // id -> row, references
    const bool go_sparse = rng.chance(0.3);
    for (int step = 0; step < 400; ++step) {
      const uint64_t what = rng.below(10);
      if (what < 4) {  // a thread's clock grows in a few entries (or a lot), then a snapshot
        const size_t t = rng.below(clocks.size());
        auto& c = clocks[t];
        const uint64_t entries = rng.chance(0.2) ? stride : 1 + rng.below(2);
        for (uint64_t j = 0; j < entries; ++j)
          c[rng.below(stride)] += static_cast<Clock>(rng.chance(0.1) ? 100000 : 1 + rng.below(9));
        const uint32_t s = pool.take(c.data(), static_cast<ThreadId>(t));
        ASSERT_EQ(live.count(s), 0u);
        if (rng.chance(0.1)) {
          pool.drop_if_unused(s);
          continue;
        }
        pool.ref(s);
        live[s] = {c, 1};
      } else if (what < 5 && !live.empty()) {
        auto it = live.begin();
        std::advance(it, static_cast<long>(rng.below(live.size())));
        pool.ref(it->first);
        ++it->second.second;
      } else if (what < 8 && !live.empty()) {
        auto it = live.begin();
        std::advance(it, static_cast<long>(rng.below(live.size())));
        pool.unref(it->first);
        if (--it->second.second == 0) live.erase(it);
      } else if (what < 9 && rng.chance(0.05) && stride < 64) {
        stride *= 2;
        pool.set_stride(stride);
        for (auto& c : clocks) c.resize(stride, 0);
        for (auto& [s, v] : live) v.first.resize(stride, 0);
      } else if (go_sparse && step == 300) {
        pool.make_sparse();
      }
      for (const auto& [s, v] : live)
        ASSERT_EQ(row_of(pool, s, stride), v.first) << "seed " << seed << " step " << step;
      ASSERT_LE(pool.live(), live.size() + pool.deltas() + clocks.size()) << seed;
    }
    for (auto& [s, v] : live)
      for (int r = 0; r < v.second; ++r) pool.unref(s);
    EXPECT_EQ(pool.live(), 0u) << seed;
    EXPECT_EQ(pool.deltas(), 0u) << seed;
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
