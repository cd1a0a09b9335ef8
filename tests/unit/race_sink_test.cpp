#include <gtest/gtest.h>

#include "racepred/report/race.hpp"

namespace racepred {
namespace {

Race make_race(EventId first, EventId second, LocationId loc1 = 1, LocationId loc2 = 2) {
  return Race{Access{first, 0, loc1, Op::Write}, Access{second, 1, loc2, Op::Read}, 0};
}

TEST(RaceSink, CountsEverythingKeepsFirstInDetectionOrder) {
  RaceSink sink(2);
  sink.report(make_race(5, 9));
  sink.report(make_race(1, 4));
  sink.report(make_race(3, 4));
  sink.report(make_race(2, 7));
  sink.finalize();
  EXPECT_EQ(sink.race_count(), 4u);
  EXPECT_TRUE(sink.truncated());
  ASSERT_EQ(sink.races().size(), 2u);
  EXPECT_EQ(sink.races()[0].first.event, 1u);  // (1,4) and (3,4): second 4 detected first
  EXPECT_EQ(sink.races()[1].first.event, 3u);
  EXPECT_EQ(sink.racy_events(), (std::vector<EventId>{4, 7, 9}));
}

TEST(RaceSink, RacyLocationsAndKinds) {
  RaceSink sink;
  sink.report(make_race(1, 2, 10, 20));
  sink.report(make_race(1, 3, 10, 20));
  sink.mark_racy(Access{8, 0, 30, Op::Write});
  sink.add_uncounted_races(3);
  sink.finalize();
  EXPECT_EQ(sink.race_count(), 5u);
  EXPECT_EQ(sink.racy_locations(), (std::vector<LocationId>{20, 30}));
  EXPECT_EQ(sink.racy_events(), (std::vector<EventId>{2, 3, 8}));
  const auto pairs = sink.location_pairs();
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].count, 2u);
  EXPECT_EQ(race_kind(make_race(1, 2)), RaceKind::WriteRead);
  EXPECT_EQ(race_kind_name(RaceKind::ReadWrite), "read-write");
  EXPECT_EQ(race_kind(Race{}), RaceKind::Unknown);
}

}  // namespace
}  // namespace racepred
