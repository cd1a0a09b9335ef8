// The debug checks of the contracts between driver, engines and sink (trace/debug_check.hpp):
// with RACEPRED_DEBUG_CHECKS (the sanitizer build) each fires on a planted violation; without
// it the same calls go through unchecked, as the release build's hot path must.
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <vector>

#include "racepred/engines/engine.hpp"
#include "racepred/report/race.hpp"
#include "racepred/trace/debug_check.hpp"

namespace racepred {
namespace {

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

}  // namespace
}  // namespace racepred
