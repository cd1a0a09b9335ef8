// The debug checks of the contracts between driver, engines and sink (trace/debug_check.hpp):
// with RACEPRED_DEBUG_CHECKS (the sanitizer build) each fires on a planted violation; without
// it the same calls go through unchecked, as the release build's hot path must.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "racepred/clock/thread_clocks.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/report/race.hpp"
#include "racepred/trace/debug_check.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/generator.hpp"
#include "support/small_traces.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

// Counts what it is given.
class CountingEngine : public Engine {
 public:
  void on_events(std::span<const EventId> ids, std::span<const Event>) override {
    events += ids.size();
  }
  size_t events = 0;
};

Race race(EventId first, EventId second) {
  return Race{Access{first, 0, 1, Op::Write}, Access{second, 1, 2, Op::Write}, 0};
}

void feed(Engine& engine, std::vector<EventId> ids) {
  const std::vector<Event> events(ids.size(), Event{Op::Write, 0, 0, 0});
  engine.feed(ids, events);
}

TEST(DebugChecks, IncreasingIdsAndDistinctPairsPass) {
  CountingEngine engine;
  feed(engine, {1, 2, 5});
  feed(engine, {6, 9});
  engine.on_event(10, Event{});
  EXPECT_EQ(engine.events, 6u);
  RaceSink sink;
  sink.report(race(1, 3));
  sink.report(race(2, 3));
  sink.report(race(kNoEvent, 4));
  EXPECT_EQ(sink.race_count(), 3u);
}

// The contract the sink check guards, on the real engines: no engine reports a pair twice (an
// uncapped sink lists every report). In the debug build the check aborts first. The engines
// built on the exact search are left out: they are exponential on these traces.
TEST(DebugChecks, EveryEngineReportsEachPairOnce) {
  const int n = testing::property_iterations(150);
  size_t races = 0;
  for (const EngineInfo& info : engine_registry()) {
    if (info.family == "exact") continue;
    for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
      GeneratorOptions options = testing::medium_trace_options(seed);
      if (seed % 3 == 0) options.read_lock_share = 0.3;
      const Trace trace = generate_trace(options);
      RaceSink sink;
      try {
        sink = run_engine(info, trace);
      } catch (const InputError&) {  // an engine without a rule for read-write locks
        ASSERT_GT(options.read_lock_share, 0) << info.name;
        continue;
      }
      std::set<std::pair<EventId, EventId>> pairs;
      for (const Race& r : sink.races())
        ASSERT_TRUE(pairs.emplace(r.first.event, r.second.event).second)
            << info.name << " reported (" << r.first.event << ", " << r.second.event << ") twice, "
            << testing::trace_context(seed, trace);
      races += pairs.size();
    }
  }
  EXPECT_GT(races, 0u);
}

// Rows of ThreadClocks held across calls as the engines hold them (RowRef): the event's own
// thread's row across acquire, release and tick; looked up again after the clocks grew; in
// sparse mode across the clocks of a few other threads; after slot reuse, the new thread's.
// With the debug checks on, every use below is checked and passes.
TEST(DebugChecks, ThreadClocksRowsUsedWithinTheirLifetimePass) {
  ThreadClocks clocks;
  clocks.add_thread(1);
  ThreadClocks::RowRef t0 = clocks.th_ref(0);
  clocks.acquire(0, 0);
  clocks.release(0, 0);
  clocks.tick(0);
  EXPECT_EQ(t0[0], 2u);
  EXPECT_EQ(t0.get(), clocks.th(0));
  clocks.fork(0, 5);  // a new thread: the rows may move, so the row is looked up again
  t0 = clocks.th_ref(0);
  EXPECT_EQ(t0[0], 2u);

  ThreadClocks sparse;
  sparse.sparse_beyond(2);
  sparse.add_thread(11);
  ASSERT_TRUE(sparse.sparse());
  ThreadClocks::RowRef s0 = sparse.th_ref(0);
  for (ThreadId u = 1; u <= 6; ++u) sparse.th(u);  // fewer than kResident - 1 other rows
  sparse.tick(0);
  EXPECT_EQ(s0[0], 2u);

  ThreadClocks reuse;
  reuse.reuse_slots_beyond(2);
  reuse.fork(0, 1);
  reuse.join(0, 1);
  reuse.fork(0, 2);  // takes thread 1's slot
  ASSERT_EQ(reuse.slot(2), 1u);
  const ThreadClocks::RowRef t2 = reuse.th_ref(2);
  EXPECT_GT(t2[1], 1u);  // past thread 1's last clock value in the slot
}

#ifndef RACEPRED_DEBUG_CHECKS
// Without the checks a RowRef is the bare pointer: nothing is added to the engines' hot path.
static_assert(sizeof(ThreadClocks::RowRef) == sizeof(Clock*));
#endif

// A row used past its lifetime: after the clocks grew, after it was packed (sparse mode, the
// clocks of kResident other threads asked for), after its slot passed to another thread.
TEST(ThreadClocksDeathTest, RowsUsedPastTheirLifetime) {
#ifndef RACEPRED_DEBUG_CHECKS
  GTEST_SKIP() << "RACEPRED_DEBUG_CHECKS is off (on in the ASan+UBSan build, or with "
                  "-DRACEPRED_DEBUG_CHECKS=ON): a RowRef is then the bare pointer, unchecked";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ThreadClocks clocks;
        clocks.add_thread(0);
        const ThreadClocks::RowRef t0 = clocks.th_ref(0);
        clocks.add_thread(100);
        (void)t0[0];
      },
      "used after the clocks grew");
  EXPECT_DEATH(
      {
        ThreadClocks clocks;
        clocks.sparse_beyond(2);
        clocks.add_thread(11);
        const ThreadClocks::RowRef t0 = clocks.th_ref(0);
        for (ThreadId u = 1; u <= 8; ++u) clocks.th(u);
        (void)t0[0];
      },
      "used after it was packed");
  EXPECT_DEATH(
      {
        ThreadClocks clocks;
        clocks.reuse_slots_beyond(2);
        clocks.fork(0, 1);
        clocks.join(0, 1);
        const ThreadClocks::RowRef t1 = clocks.th_ref_at_slot(1);
        clocks.fork(0, 2);  // thread 2 takes slot 1
        (void)t1[1];
      },
      "used after its slot passed to another thread");
#endif
}

#ifdef RACEPRED_DEBUG_CHECKS

class DebugChecksDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(DebugChecksDeathTest, TheMacroChecks) {
  RACEPRED_DCHECK(1 + 1 == 2, "arithmetic");
  EXPECT_DEATH(RACEPRED_DCHECK(1 + 1 == 3, "planted"), "debug check failed: planted");
}

TEST_F(DebugChecksDeathTest, EventIdsIntoAnEngineIncrease) {
  EXPECT_DEATH(
      {
        CountingEngine engine;
        feed(engine, {1, 3, 2});
      },
      "event ids into an engine strictly increase");
  EXPECT_DEATH(
      {
        CountingEngine engine;
        feed(engine, {1, 4});
        feed(engine, {4, 5});  // across batches too
      },
      "event ids into an engine strictly increase");
  EXPECT_DEATH(
      {
        CountingEngine engine;
        engine.on_event(7, Event{});
        engine.on_event(6, Event{});
      },
      "event ids into an engine strictly increase");
}

TEST_F(DebugChecksDeathTest, APairIsReportedOnce) {
  EXPECT_DEATH(
      {
        RaceSink sink;
        sink.report(race(1, 3));
        sink.report(race(2, 3));
        sink.report(race(1, 3));
      },
      "reports each race pair at most once");
}

#else

// The release build: the checks compile to nothing and do not evaluate their condition.
TEST(DebugChecks, OffWithoutDebugChecks) {
  int evaluated = 0;
  RACEPRED_DCHECK(++evaluated == 0, "not evaluated");
  EXPECT_EQ(evaluated, 0);
  CountingEngine engine;
  feed(engine, {3, 2});
  EXPECT_EQ(engine.events, 2u);
  RaceSink sink;
  sink.report(race(1, 3));
  sink.report(race(1, 3));
  EXPECT_EQ(sink.race_count(), 2u);
}

#endif

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
