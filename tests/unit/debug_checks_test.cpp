// The debug checks of the contracts between driver, engines and sink (trace/debug_check.hpp):
// with RACEPRED_DEBUG_CHECKS (the sanitizer build) each fires on a planted violation; without
// it the same calls go through unchecked, as the release build's hot path must.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/report/race.hpp"
#include "racepred/trace/debug_check.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/generator.hpp"
#include "support/small_traces.hpp"

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
