// wdp's lock-set filtered race history (engines/po/lockset_history.hpp): interned lock sets and
// their tests against the plain set operations, and the history against FilteredHistory (the
// per-thread version sdp keeps) on random access sequences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "racepred/clock/vector_clock.hpp"
#include "racepred/engines/po/lockset_history.hpp"
#include "racepred/engines/po/po_common.hpp"

namespace racepred::po {
namespace RACEPRED_TEST_FILE {

std::vector<LockId> random_set(std::mt19937& rng, bool modes) {
  std::vector<LockId> s;
  const int n = static_cast<int>(rng() % 4);
  for (int k = 0; k < n; ++k) {
    // Locks 0..5 and 64..69 share mask bits: the exact test must decide.
    LockId l = static_cast<LockId>(rng() % 6 + (rng() % 2) * 64);
    if (modes && rng() % 2 == 0) l |= kReadMode;
    if (std::none_of(s.begin(), s.end(), [&](LockId m) { return lock_of(m) == lock_of(l); }))
      s.push_back(l);
  }
  std::sort(s.begin(), s.end());
  return s;
}

bool plain_disjoint(const std::vector<LockId>& a, const std::vector<LockId>& b) {
  for (LockId l : a)
    if (std::find(b.begin(), b.end(), l) != b.end()) return false;
  return true;
}
bool plain_disjoint_rw(const std::vector<LockId>& a, const std::vector<LockId>& b) {
  for (LockId la : a)
    for (LockId lb : b)
      if (lock_of(la) == lock_of(lb) && !(is_read_mode(la) && is_read_mode(lb))) return false;
  return true;
}

TEST(LockSets, InternGivesOneIdPerSetAndZeroForTheEmptySet) {
  LockSets sets;
  EXPECT_EQ(sets.intern({}), 0u);
  const uint32_t a = sets.intern({1, 2});
  const uint32_t b = sets.intern({2});
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(sets.intern({1, 2}), a);
  EXPECT_EQ(sets.intern({2}), b);
  EXPECT_EQ(sets.intern({}), 0u);
  const auto la = sets.locks(a);
  EXPECT_EQ(std::vector<LockId>(la.begin(), la.end()), (std::vector<LockId>{1, 2}));
  EXPECT_EQ(sets.size(), 3u);
}

TEST(LockSets, TestsEqualThePlainSetOperations) {
  std::mt19937 rng(13);
  LockSets sets;
  for (int k = 0; k < 20000; ++k) {
    const bool modes = k % 2 == 1;
    const std::vector<LockId> x = random_set(rng, modes), y = random_set(rng, modes);
    const uint32_t a = sets.intern(x), b = sets.intern(y);
    const auto la = sets.locks(a);
    ASSERT_EQ(std::vector<LockId>(la.begin(), la.end()), x);
    ASSERT_EQ(sets.disjoint(a, b), plain_disjoint(x, y));
    ASSERT_EQ(sets.disjoint_rw(a, b), plain_disjoint_rw(x, y));
    ASSERT_EQ(sets.includes(a, b), std::includes(x.begin(), x.end(), y.begin(), y.end()));
  }
}

struct Collect {
  std::vector<std::tuple<EventId, ThreadId, Op, EventId>> reports;
  void report(Partner who, ThreadId u, Op kind, EventId id, const Event&) {
    reports.emplace_back(who.event, u, kind, id);
  }
};

// Random accesses of a few threads with random lock sets and clocks (slot == thread, no reuse):
// the same reports, in the same order, as FilteredHistory.
TEST(SlotFilteredHistory, ReportsWhatFilteredHistoryReports) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    const bool modes = round % 2 == 1;
    FilteredHistory plain;
    SlotFilteredHistory slots;
    if (modes) {
      plain.allow_read_modes();
      slots.allow_read_modes();
    }
    const ThreadId threads = 2 + static_cast<ThreadId>(rng() % 5);
    std::vector<Clock> own(threads, 1);
    Collect a, b;
    for (EventId id = 1; id <= 300; ++id) {
      Event e;
      e.thread = static_cast<ThreadId>(rng() % threads);
      e.op = rng() % 2 == 0 ? Op::Read : Op::Write;
      e.target = static_cast<uint32_t>(rng() % 4);
      e.location = static_cast<LocationId>(id);
      const std::vector<LockId> held = random_set(rng, modes);
      VectorClock known;
      std::vector<Clock> row(threads, 0);
      for (ThreadId u = 0; u < threads; ++u) {
        row[u] = u == e.thread ? own[u] : static_cast<Clock>(rng() % (own[u] + 1));
        known.set(u, row[u]);
      }
      const uint32_t h = slots.lock_sets().intern(held);
      plain.check(a, id, e, known, held);
      slots.check(b, id, e, row.data(), h);
      plain.record(id, e, own[e.thread], held);
      slots.record(id, e, e.thread, own[e.thread], h);
      if (rng() % 3 == 0) ++own[e.thread];
    }
    ASSERT_EQ(a.reports, b.reports) << "round " << round;
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::po
