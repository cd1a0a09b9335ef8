// The per-access bookkeeping of the rule-(a) engines (engines/po/nesting.hpp, po_common.hpp):
// PodVector (the nesting log's array), SectionLog's log of accesses inside open sections and
// SparseHistory's latest access per thread, updated in place for a thread already listed.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "racepred/engines/po/nesting.hpp"
#include "racepred/engines/po/po_common.hpp"

namespace racepred::po {
namespace RACEPRED_TEST_FILE {

std::vector<uint32_t> values(std::span<const uint32_t> s) {
  return {s.begin(), s.end()};
}

TEST(PodVector, KeepsItsValuesThroughGrowthEraseAndMoves) {
  PodVector<uint32_t> v;
  EXPECT_TRUE(v.empty());
  for (uint32_t k = 0; k < 100; ++k) v.push_back(k * 3);  // several growths
  ASSERT_EQ(v.size(), 100u);
  for (uint32_t k = 0; k < 100; ++k) ASSERT_EQ(v[k], k * 3);
  v.erase(v.begin() + 10);
  EXPECT_EQ(v.size(), 99u);
  EXPECT_EQ(v[9], 27u);
  EXPECT_EQ(v[10], 33u);
  EXPECT_EQ(v.back(), 297u);
  v.erase(v.end() - 1);
  EXPECT_EQ(v.back(), 294u);
  v.resize_down(3);
  EXPECT_EQ(values(v), (std::vector<uint32_t>{0, 3, 6}));
  PodVector<uint32_t> w(std::move(v));
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(values(w), (std::vector<uint32_t>{0, 3, 6}));
  v = std::move(w);
  v.pop_back();
  EXPECT_EQ(values(v), (std::vector<uint32_t>{0, 3}));
  v.clear();
  EXPECT_TRUE(v.empty());
  v.push_back(7);
  EXPECT_EQ(values(v), (std::vector<uint32_t>{7}));
}

Event access(ThreadId t, Op op, VariableId x, LocationId loc = 0) {
  Event e;
  e.thread = t;
  e.op = op;
  e.target = x;
  e.location = loc;
  return e;
}

TEST(SectionLog, LogsAccessesOnlyInsideSectionsAndSkipsTheInnermostRepeat) {
  SectionLog log(false, 8);
  // Outside every section nothing is logged.
  EXPECT_EQ(log.access(access(0, Op::Write, 1)), SectionLog::kNoPos);
  EXPECT_FALSE(SectionLog::holds(log.thread(0)));
  log.acquire(0, 5, 0, true);
  ASSERT_TRUE(SectionLog::holds(log.thread(0)));
  EXPECT_EQ(values(SectionLog::active(log.thread(0))), (std::vector<uint32_t>{5}));
  SectionLog::Thread& th = log.thread(0);
  log.access<1>(th, 1);
  log.access<1>(th, 1);  // a repeat: skipped
  log.access<0>(th, 2);
  log.access<1>(th, 3);
  log.acquire(0, 6, 1, true);
  log.access<1>(log.thread(0), 3);  // a repeat, but not yet inside the inner section: logged
  log.access<0>(log.thread(0), 4);
  SectionLog::Released inner, outer;
  uint64_t steps = 0;
  ASSERT_TRUE(log.release(0, 6, inner, steps));
  EXPECT_EQ(values(inner.writes), (std::vector<uint32_t>{3}));
  EXPECT_EQ(values(inner.reads), (std::vector<uint32_t>{4}));
  EXPECT_EQ(values(SectionLog::active(log.thread(0))), (std::vector<uint32_t>{5}));
  ASSERT_TRUE(log.release(0, 5, outer, steps));
  EXPECT_EQ(values(outer.writes), (std::vector<uint32_t>{1, 3, 3}));
  EXPECT_EQ(values(outer.reads), (std::vector<uint32_t>{2, 4}));
  EXPECT_FALSE(SectionLog::holds(log.thread(0)));
  EXPECT_FALSE(log.release(0, 5, outer, steps));  // not held
}

TEST(SectionLog, GivesLogPositionsInsideDeepSectionsOnly) {
  SectionLog log(false, 1);  // the second open section is deep
  log.acquire(0, 1, 0, true);
  EXPECT_EQ(log.access<1>(log.thread(0), 7), SectionLog::kNoPos);
  log.acquire(0, 2, 0, true);
  EXPECT_TRUE(log.in_deep(0));
  EXPECT_EQ(log.access<1>(log.thread(0), 8), 1u);  // the write log's second entry
  EXPECT_EQ(log.access<0>(log.thread(0), 8), 0u);  // the read log's first
}

// The clock rows SparseHistory::check reads only for large variables (none here).
const ThreadClocks kNoRows;

// Collects what SparseHistory::check reports.
struct Reports {
  std::vector<std::pair<ThreadId, EventId>> found;
  void report(Partner who, ThreadId u, Op, EventId, const Event&) {
    found.emplace_back(u, who.event);
  }
  // Every race is reported one by one (large variables are not counted in bulk here).
  bool counting() const { return false; }
  bool count_in_bulk(uint64_t, EventId, const Event&) { return false; }
};

TEST(SparseHistory, KeepsTheLatestAccessOfEveryThreadWhicheverIsListedLast) {
  SparseHistory h;
  // Threads 0, 1, 2 (slots 0, 1, 2) write x = 4 at local time 1.
  for (ThreadId t = 0; t < 3; ++t) h.record(10 + t, access(t, Op::Write, 4), t, 1);
  // Thread 0 writes again (time 5) and so does thread 1 (time 6): updates of entries that are not
  // the list's last.
  h.record(20, access(0, Op::Write, 4), 0, 5);
  h.record(21, access(1, Op::Write, 4, 9), 1, 6, true);
  // A write of thread 3 that knows thread 0 up to 4, 1 up to 6 and 2 up to 0: races with 0's
  // latest write (event 20) and 2's (event 12), not with 0's older one or 1's.
  Reports r;
  const Clock known[4] = {4, 6, 0, 0};
  h.check(r, 30, access(3, Op::Write, 4), known, kNoRows, 0);
  EXPECT_EQ(r.found, (std::vector<std::pair<ThreadId, EventId>>{{0, 20}, {2, 12}}));
  // Reads are kept apart from writes, inserted in thread order.
  h.record(40, access(2, Op::Read, 4), 2, 7, false);
  h.record(41, access(0, Op::Read, 4), 0, 8, false);
  h.record(42, access(2, Op::Read, 4), 2, 9, false);
  Reports w;
  const Clock none[4] = {0, 0, 0, 0};
  h.check(w, 50, access(3, Op::Write, 4), none, kNoRows, 0);
  EXPECT_EQ(w.found, (std::vector<std::pair<ThreadId, EventId>>{
                         {0, 20}, {1, 21}, {2, 12}, {0, 41}, {2, 42}}));
}

TEST(SparseHistory, FindsAThreadListedFarFromTheEndOfALongList) {
  SparseHistory h;
  constexpr ThreadId kThreads = 40;  // past the inline scan
  for (ThreadId t = kThreads; t-- > 0;) h.record(100 + t, access(t, Op::Read, 2), t, 1);
  h.record(200, access(3, Op::Read, 2), 3, 2, false);  // an update, not a second entry
  h.record(201, access(39, Op::Read, 2), 39, 2, false);
  Reports r;
  std::vector<Clock> known(kThreads + 1, 1);
  h.check(r, 300, access(kThreads, Op::Write, 2), known.data(), kNoRows, 0);
  EXPECT_EQ(r.found, (std::vector<std::pair<ThreadId, EventId>>{{3, 200}, {39, 201}}));
  Reports all;
  std::vector<Clock> none(kThreads + 1, 0);
  h.check(all, 301, access(kThreads, Op::Write, 2), none.data(), kNoRows, 0);
  ASSERT_EQ(all.found.size(), size_t{kThreads});
  for (ThreadId t = 0; t < kThreads; ++t) EXPECT_EQ(all.found[t].first, t);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::po
