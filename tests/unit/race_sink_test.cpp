#include <gtest/gtest.h>

#include "racepred/report/race.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

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

Race at(EventId first, EventId second, LocationId loc1, LocationId loc2) {
  return Race{Access{first, 0, loc1, Op::Write}, Access{second, 1, loc2, Op::Write}, 0};
}

TEST(RaceSink, CountedRacesKeepEveryCountExact) {
  // Event 10 at location 100 races with events 1..5 at locations 1, 2, 2, 3, 3; event 11 at
  // location 100 with events 6 (location 4) and 1 (location 1); event 12 at location 101 with 2.
  RaceSink listed;
  RaceSink counted(0);
  const std::vector<Race> races = {at(1, 10, 1, 100), at(2, 10, 2, 100), at(3, 10, 2, 100),
                                   at(4, 10, 3, 100), at(5, 10, 3, 100), at(6, 11, 4, 100),
                                   at(1, 11, 1, 100), at(2, 12, 2, 101)};
  for (const Race& r : races) {
    listed.report(r);
    counted.count_race(r.first.location, r.second);
  }
  for (RaceSink* sink : {&listed, &counted}) {
    sink->finalize();
    EXPECT_EQ(sink->race_count(), 8u);
    EXPECT_EQ(sink->racy_event_count(), 3u);
    EXPECT_EQ(sink->racy_location_count(), 2u);
    // (1,100) (2,100) (3,100) (4,100) (2,101)
    EXPECT_EQ(sink->location_pair_count(), 5u);
    EXPECT_FALSE(sink->location_pairs_lower_bound());
  }
  EXPECT_TRUE(counted.races().empty());
}

TEST(RaceSink, LargeFirstGroupIsCountedNotStored) {
  // Event 5000 at location 1 races with kGroupList + 10 events at distinct locations: counted,
  // not stored.
  const uint32_t n = RaceSink::kGroupList + 10;
  RaceSink sink(0);
  for (uint32_t i = 0; i < n; ++i) sink.count_race(1000 + i, Access{5000, 1, 1, Op::Write});
  sink.count_race(7, Access{5001, 1, 2, Op::Write});  // another location: exact
  EXPECT_EQ(sink.location_pair_count(), n + 1u);
  EXPECT_FALSE(sink.location_pairs_lower_bound());
  EXPECT_LE(sink.stored_location_pairs(), 1u);
  // Location 1 again: which of its pairs are new is unknown, the count says it is a lower bound.
  sink.count_race(1000, Access{5002, 1, 1, Op::Write});
  sink.finalize();
  EXPECT_EQ(sink.location_pair_count(), n + 1u);
  EXPECT_TRUE(sink.location_pairs_lower_bound());
  EXPECT_EQ(sink.race_count(), n + 2u);
}

TEST(RaceSink, StoreAllLocationPairsAnswersMembership) {
  RaceSink sink;
  sink.store_all_location_pairs();
  sink.report(at(1, 3, 10, 20));
  EXPECT_TRUE(sink.has_location_pair(location_pair_key(at(1, 3, 10, 20))));
  EXPECT_FALSE(sink.has_location_pair(location_pair_key(at(1, 3, 11, 20))));
  EXPECT_EQ(sink.stored_location_pairs(), 1u);
}

// With every pair stored, the races of a group at a second location no race had before may be
// counted in bulk (their pairs are not stored); a later group there is counted without telling
// its pairs new (a lower bound) and its pairs are still known to has_location_pair.
TEST(RaceSink, StoreAllLocationPairsCountsANewSecondLocationInBulk) {
  RaceSink sink(0);
  sink.store_all_location_pairs();
  sink.report(make_race(1, 3, 10, 20));
  EXPECT_FALSE(sink.count_races_in_bulk(5, Access{4, 1, 20, Op::Write}));  // 20 had a race
  sink.report(make_race(1, 5, 10, 21));  // the group of event 5 at location 21, then in bulk
  EXPECT_TRUE(sink.count_races_in_bulk(4, Access{5, 1, 21, Op::Write}));
  EXPECT_EQ(sink.race_count(), 6u);
  EXPECT_EQ(sink.location_pair_count(), 6u);
  EXPECT_FALSE(sink.location_pairs_lower_bound());
  sink.report(make_race(2, 6, 12, 21));  // 21 again: is (12, 21) new?
  EXPECT_TRUE(sink.has_location_pair(location_pair_key(make_race(2, 6, 12, 21))));
  EXPECT_FALSE(sink.count_races_in_bulk(3, Access{7, 1, 20, Op::Write}));
  sink.finalize();
  EXPECT_EQ(sink.race_count(), 7u);
  EXPECT_EQ(sink.location_pair_count(), 6u);
  EXPECT_TRUE(sink.location_pairs_lower_bound());
  EXPECT_EQ(sink.racy_event_count(), 3u);  // 3, 5, 6
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
