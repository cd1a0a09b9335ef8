// Races counted without being kept: once the sink keeps no more races, engines only count the
// rest (RaceSink::count_race, add_uncounted_races). On random traces with many threads (small
// enough to list every race) the counts reported with a few races kept equal the counts from
// listing them all, and the distinct location pairs equal a count over the listed races.
// On the flood shape (every thread writes one variable once, each at its own location) the
// location pairs are counted exactly while the sink stores few of them.
// Large sets of concurrent accesses (djit, hb-epochs, hb-adaptive, hb-pairs; the race histories
// of shb, wcp, dc, wdc, dc-tp and wdp; tsan1 and the PWR engines, per lock set) count their
// races without visiting each member (RaceSink::count_races_in_bulk): with the thresholds
// lowered so that they do on small traces, the counts equal those from listing every race, and
// on the flood the engines' work on races grows linearly with the threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

// Many threads on few variables and locations: big groups of partners per racy event, and
// location pairs that repeat across events.
Trace many_threads_trace(uint64_t seed) {
  Rng rng(seed * 104729 + 3);
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 8 + static_cast<uint32_t>(rng.below(40));
  o.events = 200 + rng.below(500);
  o.variables = 1 + static_cast<uint32_t>(rng.below(3));
  o.locks = 1 + static_cast<uint32_t>(rng.below(3));
  o.locations = 2 + static_cast<uint32_t>(rng.below(40));
  o.cs_share = 0.2 * static_cast<double>(rng.below(4));
  o.local_share = 0;
  o.write_share = 0.5;
  const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                              ForkShape::Nested};
  o.shape = shapes[seed % 4];
  return generate_trace(o);
}

// n threads, no forks, each writes x once at its own location.
Trace flood(uint32_t n) {
  std::string text;
  for (uint32_t i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    text.append("T").append(k).append("|w(x)|").append(k).append("\n");
  }
  return parse_checked_trace(text);
}

// Many threads on one or two variables, most accesses at locations of their own (so that large
// sets of concurrent accesses are counted in bulk), in every third trace some at an early
// location again (so that they are counted one by one: two accesses share a location), some in
// critical sections of a few locks, and threads forked and joined by T0 (so that the members
// ordered before an access are taken out of the count).
Trace crowd_trace(uint64_t seed) {
  Rng rng(seed * 7919 + 11);
  // More than RaceSink::kGroupList concurrent accesses, so that groups are counted in bulk.
  const uint32_t threads = 1500 + static_cast<uint32_t>(rng.below(200));
  const uint64_t events = threads + rng.below(200);
  const uint32_t variables = 1 + static_cast<uint32_t>(rng.below(2));
  std::string text;
  uint32_t loc = 0;
  const uint64_t reuse = seed % 3 == 1 ? 10 : 0;  // one line in `reuse` at an early location
  std::set<uint32_t> reused;
  const auto line = [&](uint32_t t, const std::string& op) {
    // A location used again is one of the first few hundred lines': its first racy event had
    // few partners, so the listing run keeps its location pairs exact (RaceSink::kGroupList).
    // Each early location is used at most twice, so that no racy event meets more than
    // kGroupList partners at one location and the listing run's location pairs stay exact.
    uint32_t l = loc;
    if (loc > 0 && reuse > 0 && rng.below(reuse) == 0) {
      const auto early = static_cast<uint32_t>(rng.below(std::min<uint32_t>(loc, 300)));
      if (reused.insert(early).second) l = early;
    }
    if (l == loc) ++loc;
    text.append("T").append(std::to_string(t)).append("|").append(op).append("|L");
    text.append(std::to_string(l)).append("\n");
  };
  const bool forks = seed % 2 == 0;
  std::vector<bool> forked(threads, false), joined(threads, false);
  for (uint64_t k = 0; k < events; ++k) {
    const uint32_t t =
        k < threads ? static_cast<uint32_t>(k) : static_cast<uint32_t>(rng.below(threads));
    if (joined[t]) continue;
    if (forks && t != 0 && !forked[t]) {
      line(0, std::string("fork(T").append(std::to_string(t)).append(")"));
      forked[t] = true;
    }
    std::string op = rng.below(3) == 0 ? "r(x" : "w(x";
    op.append(std::to_string(rng.below(variables))).append(")");
    if (rng.below(12) == 0) {
      const bool m0 = rng.below(2) == 0;
      line(t, m0 ? "acq(m0)" : "acq(m1)");
      line(t, op);
      line(t, m0 ? "rel(m0)" : "rel(m1)");
    } else {
      line(t, op);
    }
    if (forks && t != 0 && rng.below(30) == 0) {
      line(0, std::string("join(T").append(std::to_string(t)).append(")"));
      joined[t] = true;
    }
  }
  return parse_checked_trace(text);
}

// The engines that count large sets in bulk (the HB engines first, kHbBulkEngines of them), and
// options that make every set large and every clock sparse.
constexpr size_t kHbBulkEngines = 4;
constexpr const char* kBulkEngines[] = {"djit", "hb-epochs", "hb-adaptive", "hb-pairs", "shb",
                                        "wcp",  "dc",        "wdc",         "dc-tp",    "wdp"};
// The same with lock sets: the races of a large set are counted per lock set.
constexpr const char* kBulkLockSetEngines[] = {"tsan1", "pwr", "pwr-edges", "pwr-cs", "pwr-e"};
EngineOptions bulk_everywhere() {
  EngineOptions o;
  o.clock_sparse_slots = 2;
  o.bulk_count_from = 1;
  o.sparse_vc_threads = 2;
  return o;
}

// Listing every race of the crowd traces (about a million each) for comparison takes minutes
// under the sanitizers; there (RACEPRED_SANITIZED, `make test-asan`) the bulk counting paths run
// in FloodWorkGrowsLinearly (all fifteen engines) and the Release run compares the counts.
bool skip_listing_crowds() {
  return std::getenv("RACEPRED_SANITIZED") != nullptr;
}

// Under the sanitizers a quarter of the random traces: they look for memory errors on the same
// paths, and the Release run checks the counts on all of them.
uint64_t random_trace_seeds() {
  return skip_listing_crowds() ? 10 : 40;
}

uint64_t distinct_location_pairs(const RaceSink& sink) {
  std::vector<uint64_t> pairs;
  pairs.reserve(sink.races().size());
  for (const Race& race : sink.races()) pairs.push_back(location_pair_key(race));
  std::sort(pairs.begin(), pairs.end());
  return static_cast<uint64_t>(std::unique(pairs.begin(), pairs.end()) - pairs.begin());
}

std::vector<const EngineInfo*> online_engines() {
  std::vector<const EngineInfo*> out;
  for (const EngineInfo& info : engine_registry())
    if (info.mode == EngineMode::Online) out.push_back(&info);
  return out;
}

// `all_checked`: the listing run was compared with its listed races before (a million location
// pairs on the crowd traces, counted once per listing run).
std::string compare(const RaceSink& all, const RaceSink& few, const EngineInfo& info, size_t kept,
                    bool all_checked = false) {
  std::ostringstream why;
  if (all.truncated() || all.location_pairs_lower_bound())
    why << "listing every race lost some";
  else if (!all_checked && all.location_pair_count() != distinct_location_pairs(all))
    why << "location pairs " << all.location_pair_count() << ", listed races have "
        << distinct_location_pairs(all);
  else if (few.race_count() != all.race_count())
    why << "races " << few.race_count() << " vs " << all.race_count();
  else if (few.racy_event_count() != all.racy_event_count())
    why << "racy events " << few.racy_event_count() << " vs " << all.racy_event_count();
  else if (few.racy_location_count() != all.racy_location_count())
    why << "racy locations " << few.racy_location_count() << " vs " << all.racy_location_count();
  else if (few.location_pairs_lower_bound()
               ? few.location_pair_count() > all.location_pair_count()
               : few.location_pair_count() != all.location_pair_count())
    why << "location pairs " << few.location_pair_count() << " vs " << all.location_pair_count();
  if (why.str().empty()) return "";
  return info.name + " (" + std::to_string(kept) + " kept): " + why.str();
}

std::string compare(const EngineInfo& info, const Trace& trace, size_t kept) {
  return compare(run_engine(info, trace, SIZE_MAX), run_engine(info, trace, kept), info, kept);
}

TEST(CountedRacesProperty, CountsWithoutListingEqualCountsFromListing) {
  const std::vector<const EngineInfo*> engines = online_engines();
  ASSERT_GT(engines.size(), 10u);
  uint64_t races = 0;
  for (uint64_t seed = 1; seed <= random_trace_seeds(); ++seed) {
    const Trace trace = many_threads_trace(seed);
    for (const EngineInfo* info : engines)
      for (size_t kept : {size_t{0}, size_t{1}, size_t{7}}) {
        const std::string failure = compare(*info, trace, kept);
        ASSERT_EQ(failure, "") << "seed " << seed;
      }
    races += run_engine("djit", trace, 0).race_count();
  }
  EXPECT_GT(races, 1000u);  // the traces have big groups of races to count
}

TEST(CountedRacesProperty, CountsInBulkEqualCountsFromListing) {
  if (skip_listing_crowds()) GTEST_SKIP() << "Release only: lists millions of races";
  const EngineOptions options = bulk_everywhere();
  uint64_t races = 0;
  std::vector<uint64_t> bulk_calls(std::size(kBulkEngines), 0);
  // Seeds 1-3 are crowds with and without forks and with and without an early location used
  // again; seed 4 a random trace.
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const bool crowd = seed % 4 != 0;
    const Trace trace = crowd ? crowd_trace(seed) : many_threads_trace(seed);
    for (size_t k = 0; k < std::size(kBulkEngines); ++k) {
      // The partial orders on three of the traces (forks or not, an early location used again
      // or not, and a random trace): listing every race of each takes long.
      if (k >= kHbBulkEngines && seed != 1 && seed != 2 && seed != 4) continue;
      const char* name = kBulkEngines[k];
      const EngineInfo* info = find_engine(name);
      ASSERT_NE(info, nullptr) << name;
      const RaceSink all = run_engine(*info, trace, SIZE_MAX);
      for (size_t kept : {size_t{0}, size_t{7}}) {
        const RaceSink few = run_engine(name, trace, options, kept);
        ASSERT_EQ(compare(all, few, *info, kept, kept != 0), "") << "seed " << seed;
        races += few.race_count();
        bulk_calls[k] += few.race_count() - std::min(few.race_count(), few.calls());
      }
    }
  }
  EXPECT_GT(races, 1000000u);
  // Races counted in bulk: fewer sink calls than races, by the HB engines together (hb-epochs
  // and hb-pairs count a set in bulk only when it is all of an access's races) and by each
  // partial order.
  uint64_t hb_bulk_calls = 0;
  for (size_t k = 0; k < kHbBulkEngines; ++k) hb_bulk_calls += bulk_calls[k];
  EXPECT_GT(hb_bulk_calls, 5000u);
  for (size_t k = kHbBulkEngines; k < std::size(kBulkEngines); ++k)
    EXPECT_GT(bulk_calls[k], 1000u) << kBulkEngines[k];
}

// tsan1 and the PWR engines on half the traces (their runs that list every race are slower).
TEST(CountedRacesProperty, LockSetEnginesCountInBulkAsFromListing) {
  if (skip_listing_crowds()) GTEST_SKIP() << "Release only: lists millions of races";
  const EngineOptions options = bulk_everywhere();
  uint64_t races = 0;
  for (const char* name : kBulkLockSetEngines) {
    const EngineInfo* info = find_engine(name);
    ASSERT_NE(info, nullptr) << name;
    uint64_t bulk_calls = 0;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const Trace trace = seed % 4 != 0 ? crowd_trace(seed) : many_threads_trace(seed);
      const RaceSink all = run_engine(*info, trace, SIZE_MAX);
      for (size_t kept : {size_t{0}, size_t{7}}) {
        const RaceSink few = run_engine(name, trace, options, kept);
        ASSERT_EQ(compare(all, few, *info, kept, kept != 0), "") << "seed " << seed;
        races += few.race_count();
        bulk_calls += few.race_count() - std::min(few.race_count(), few.calls());
      }
    }
    EXPECT_GT(bulk_calls, 0u) << name << " counted nothing in bulk";
  }
  EXPECT_GT(races, 100000u);
}

// The flood of N threads: the engines' calls into the sink (one per race listed or counted one
// by one, one per bulk) grow linearly with N once the sets are large, not with the N(N-1)/2
// races. Steps, not seconds: N = 8,000 takes at most ~5 times the calls of N = 2,000.
TEST(CountedRacesProperty, FloodWorkGrowsLinearly) {
  EngineOptions options;
  options.clock_sparse_slots = 64;
  const Trace small = flood(2000), large = flood(8000);
  std::vector<const char*> engines(std::begin(kBulkEngines), std::end(kBulkEngines));
  engines.insert(engines.end(), std::begin(kBulkLockSetEngines), std::end(kBulkLockSetEngines));
  for (const char* name : engines) {
    const RaceSink a = run_engine(name, small, options, 10);
    const RaceSink b = run_engine(name, large, options, 10);
    ASSERT_EQ(b.race_count(), uint64_t{8000} * 7999 / 2) << name;
    EXPECT_EQ(b.location_pair_count(), uint64_t{8000} * 7999 / 2) << name;
    EXPECT_FALSE(b.location_pairs_lower_bound()) << name;
    EXPECT_EQ(b.racy_event_count(), 7999u) << name;
    EXPECT_LE(b.calls(), 5 * a.calls())
        << name << ": " << a.calls() << " calls at N = 2,000, " << b.calls() << " at N = 8,000";
  }
}

TEST(CountedRacesProperty, OnlyCountingEnginesSayTheirPairsAreALowerBound) {
  const Trace trace = many_threads_trace(5);
  ASSERT_GT(run_engine("shb", trace, 0).race_count(), 1u);
  // Counted with their locations: exact.
  for (const char* engine : {"shb", "wcp", "djit", "fasttrack", "hb-pairs", "tsan1", "pwr"})
    EXPECT_FALSE(run_engine(engine, trace, 1).location_pairs_lower_bound()) << engine;
  // lockset counts races by lock-set groups, without their locations.
  const RaceSink lockset = run_engine("lockset", trace, 1);
  ASSERT_TRUE(lockset.truncated());
  EXPECT_TRUE(lockset.location_pairs_lower_bound());
}

TEST(CountedRacesProperty, FloodLocationPairsAreCountedNotStored) {
  constexpr uint64_t n = 2500;
  const Trace trace = flood(n);
  for (const char* engine : {"shb", "djit", "hb-pairs", "tsan1", "wcp", "wdc", "pwr"}) {
    const RaceSink sink = run_engine(engine, trace, 10);
    EXPECT_EQ(sink.race_count(), n * (n - 1) / 2) << engine;
    EXPECT_EQ(sink.racy_event_count(), n - 1) << engine;
    EXPECT_EQ(sink.racy_location_count(), n - 1) << engine;
    EXPECT_EQ(sink.location_pair_count(), n * (n - 1) / 2) << engine;
    EXPECT_FALSE(sink.location_pairs_lower_bound()) << engine;
    // Only the groups of the first kGroupList + 1 racy events are stored one pair at a time.
    EXPECT_LE(sink.stored_location_pairs(), RaceSink::kGroupList * (RaceSink::kGroupList + 1) / 2)
        << engine;
    EXPECT_EQ(sink.races().size(), 10u) << engine;
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
