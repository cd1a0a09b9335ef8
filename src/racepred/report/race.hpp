// The sink every engine reports its races into (dedupe, caps, counts), and the engine's extras.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "racepred/report/finding.hpp"
#include "racepred/trace/debug_check.hpp"
#include "racepred/trace/event.hpp"

namespace racepred {

// Per pair of source locations: how many races, and the first one detected (text reports).
struct LocationPairSummary {
  Race example;
  uint64_t count = 0;
};

// Receives races from one engine. Contract for engines: report each pair at most once.
// The sink counts every race, keeps the `max_kept` first in detection order (by second event,
// then first; the same whichever order an engine reports in), counts the distinct racy events
// (the `second` events) and racy locations exactly and lists the first `max_listed` of each,
// and groups the kept races by location pair. Memory: the kept races and lists, plus one bit
// per event id up to the last racy event.
// The key of a race's (first location, second location) pair; an unknown first access counts
// as location UINT32_MAX.
inline uint64_t location_pair_key(const Race& race) {
  const uint64_t first_loc = race.first.known() ? race.first.location : UINT32_MAX;
  return (first_loc << 32) | race.second.location;
}

class RaceSink {
 public:
  explicit RaceSink(size_t max_kept = 1000, size_t max_listed = SIZE_MAX)
      : max_kept_(max_kept), max_listed_(max_listed) {
    pair_cache_.fill(UINT64_MAX);
  }

  void report(const Race& race);
  // True when a race reported now would be kept (among the max_kept first in detection order):
  // lets an engine keep its own per-race extras only for races the report lists.
  bool would_keep(const Race& race) const {
    return max_kept_ > 0 && (kept_.size() < max_kept_ || detected_before(race, kept_.front()));
  }
  // For engines that count pairs in bulk (e.g. by equivalence classes): adds `n` races that
  // were not reported one by one. Racy events/locations must still be reported via report().
  void add_uncounted_races(uint64_t n) { race_count_ += n; }
  // Marks `second` as a racy event without reporting a pair (with add_uncounted_races).
  void mark_racy(const Access& second);
  // True while a race reported now would be kept. Online engines report in detection order,
  // so once this is false they may count (add_uncounted_races) instead of enumerating pairs.
  bool accepting() const { return kept_.size() < max_kept_; }

  // Sorts and deduplicates what is kept; call once after the engine finished.
  void finalize();

  uint64_t race_count() const { return race_count_; }
  const std::vector<Race>& races() const { return kept_; }  // sorted after finalize()
  bool truncated() const { return race_count_ > kept_.size(); }
  // The first max_listed racy events (ascending, distinct) and how many there are in all.
  const std::vector<EventId>& racy_events() const { return racy_events_; }
  uint64_t racy_event_count() const { return racy_event_count_; }
  // The first max_listed racy locations (ascending ids) and how many there are in all.
  const std::vector<LocationId>& racy_locations() const { return racy_locations_; }
  uint64_t racy_location_count() const { return racy_location_count_; }
  // True when a list (races, racy events, racy locations) holds fewer entries than its count.
  bool lists_truncated() const {
    return truncated() || racy_events_.size() < racy_event_count_ ||
           racy_locations_.size() < racy_location_count_;
  }
  // The race detected first (smallest in detection order): the one the engines' guarantees
  // speak of ("the first race reported is a predictable race"). Valid when race_count() > 0
  // and at least one race was reported one by one.
  const Race& first_detected() const { return first_detected_; }
  bool has_first_detected() const { return has_first_detected_; }
  // Kept races grouped by (first location, second location), in detection order of their
  // first detected race.
  std::vector<LocationPairSummary> location_pairs() const;
  size_t max_kept() const { return max_kept_; }
  size_t max_listed() const { return max_listed_; }

  // Distinct (first location, second location) pairs over every race reported one by one.
  uint64_t location_pair_count() const { return reported_pairs_.size(); }
  // Whether a race at the location pair `key` (location_pair_key) was reported one by one.
  bool has_location_pair(uint64_t key) const { return reported_pairs_.count(key) != 0; }

  // A finding that is not a race (a deadlock, a failure); rare, kept in full.
  void add_finding(Finding finding) { findings_.push_back(std::move(finding)); }
  const std::vector<Finding>& findings() const { return findings_; }
  // Findings of `kind`: races by the kind of their pair (the read-read ones as the engine
  // counted them in its extras), the others as added.
  uint64_t count(FindingKind kind) const;
  // Some finding that makes a run exit with code 1 (fails_run).
  bool any_failing() const;

  // What the engine reports beyond races (filled in by the engine in finish()).
  EngineExtras& extras() { return extras_; }
  const EngineExtras& extras() const { return extras_; }

 private:
  size_t max_kept_;
  size_t max_listed_;
  uint64_t race_count_ = 0;
  std::vector<Race> kept_;  // a max-heap by detected_before while collecting
  Race first_detected_;
  bool has_first_detected_ = false;
  std::vector<uint64_t> racy_bits_;  // bit per event id: is it a racy event
  uint64_t racy_event_count_ = 0;
  std::vector<EventId> racy_events_;  // filled by finalize()
  std::vector<bool> location_seen_;
  uint64_t racy_location_count_ = 0;
  std::vector<LocationId> racy_locations_;  // filled by finalize()
  bool finalized_ = false;
  std::unordered_set<uint64_t> reported_pairs_;
  // Location pairs known to be in reported_pairs_, direct-mapped by a hash (UINT64_MAX: empty;
  // no pair has a second location of UINT32_MAX): an engine reports the same few pairs again and
  // again, and the set's insert was most of report()'s cost.
  static constexpr size_t kPairCache = 1024;
  std::array<uint64_t, kPairCache> pair_cache_;
  std::vector<Finding> findings_;
  EngineExtras extras_;
  // Debug builds: every (first, second) reported, to check that none comes twice.
  RACEPRED_DEBUG_ONLY(std::set<std::pair<EventId, EventId>> reported_once_;)
};

}  // namespace racepred
