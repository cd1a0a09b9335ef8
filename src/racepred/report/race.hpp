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
// Distinct location pairs are counted exactly without storing each one when they come in groups:
// the races of one second event, reported one after another (as every online engine does). The
// first group at a second location is counted by its distinct first locations (a stamp per
// location, no hashing); only when it has at most kGroupList of them are its pairs stored, so a
// later group at that location can tell which pairs are new. A later group at a location whose
// first group was too large to store makes the count a lower bound (location_pairs_lower_bound()),
// as do races counted without their locations (add_uncounted_races).
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
  // Their location pairs are unknown: the location pair count becomes a lower bound.
  void add_uncounted_races(uint64_t n) {
    race_count_ += n;
    if (n > 0) pairs_lower_bound_ = true;
  }
  // Counts the race (first access at `first_location`, `second`) without keeping it: for an
  // engine that reports in detection order once accepting() is false. The race, racy event,
  // racy location and location pair counts stay exact; no allocation or hashing per race in a
  // large group (the flood of many threads writing one variable).
  void count_race(LocationId first_location, const Access& second) {
    ++calls_;
    ++race_count_;
    track_pair(first_location, second.location, second.event);
    if (second.event != marked_event_) [[unlikely]] {
      marked_event_ = second.event;
      mark_racy(second);
    }
  }
  // Counts `n` races of `second` without their pairs, for an engine that knows their first
  // accesses are at n distinct locations, none of them the first location of another race of
  // `second` (e.g. every location of its set of accesses occurs once): the flood of many threads
  // writing one variable, counted without enumerating its pairs. The race, racy event, racy
  // location and location pair counts stay exact. Returns false, counting nothing, when the
  // pairs must come one by one (count_race): the group of `second` is small enough to be stored
  // (at most kGroupList first locations) or a group at its location was stored before.
  // With store_all_location_pairs() they are counted when no race before this group had the
  // second location (has_location_pair() does not know their pairs then).
  bool count_races_in_bulk(uint64_t n, const Access& second) {
    ++calls_;
    if (second.event != group_event_) start_group(second.location, second.event);
    if (group_mode_ == GroupMode::Set) {
      if (!store_all_pairs_ || !group_new_second_) return false;
      counted_pairs_ += n;
      second_state_[second.location] = 2;
    }
    if (group_mode_ == GroupMode::Fresh) {
      if (!group_overflow_ && group_firsts_.size() + n <= kGroupList) return false;
      counted_pairs_ += n;
      group_overflow_ = true;
    }
    race_count_ += n;
    if (second.event != marked_event_) {
      marked_event_ = second.event;
      mark_racy(second);
    }
    return true;
  }
  // One more race of the pair just counted (count_race with the same first location and the
  // same second event): its pair and racy event are known already, only the count changes.
  void count_race_again() {
    ++calls_;
    ++race_count_;
  }
  // Marks `second` as a racy event without reporting a pair (with add_uncounted_races).
  void mark_racy(const Access& second);
  // True while a race reported now would be kept. Online engines report in detection order,
  // so once this is false they may count (add_uncounted_races) instead of enumerating pairs.
  bool accepting() const { return kept_.size() < max_kept_; }

  // Sorts and deduplicates what is kept; call once after the engine finished.
  void finalize();

  uint64_t race_count() const { return race_count_; }
  // Calls of report, count_race and count_races_in_bulk: the engine's work on races (a test
  // measures how it grows with the trace).
  uint64_t calls() const { return calls_; }
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

  // Distinct (first location, second location) pairs over every race reported or counted with
  // its locations; a lower bound when location_pairs_lower_bound().
  uint64_t location_pair_count() const { return reported_pairs_.size() + counted_pairs_; }
  bool location_pairs_lower_bound() const { return pairs_lower_bound_; }
  // The first group at a second location is stored when it has at most this many distinct first
  // locations, so at most kGroupList * (kGroupList + 1) / 2 pairs are stored on a flood.
  static constexpr size_t kGroupList = 1024;
  // How many location pairs are stored one by one (the rest of the count is arithmetic).
  uint64_t stored_location_pairs() const { return reported_pairs_.size(); }
  // Stores every location pair (as the sink did for all engines before groups were counted):
  // for an engine that asks has_location_pair(). Call before the first race.
  void store_all_location_pairs() { store_all_pairs_ = true; }
  // Whether a race at the location pair `key` (location_pair_key) was reported one by one
  // (exact with store_all_location_pairs()).
  // A pair counted in bulk is not known (count_races_in_bulk).
  bool has_location_pair(uint64_t key) const {
    return reported_pairs_.count(key) != 0 || in_open_group(key) || lost_pairs_.count(key) != 0;
  }

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
  uint64_t calls_ = 0;
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
  // Location pairs: the distinct pairs are reported_pairs_ plus counted_pairs_ (see above).
  enum class GroupMode : uint8_t { None, Set, Fresh, Lost };
  void track_pair(LocationId first, LocationId second, EventId event) {
    if (event != group_event_) [[unlikely]] {
      // The common case inline: the last group needs no closing (it was not Fresh) and pairs at
      // this second location are stored one by one (Set): no group bookkeeping.
      if (group_mode_ != GroupMode::Fresh && !store_all_pairs_ && second < second_state_.size() &&
          second_state_[second] == 1) {
        group_event_ = event;
        group_location_ = second;
        group_mode_ = GroupMode::Set;
      } else {
        start_group(second, event);
      }
    }
    if (group_mode_ == GroupMode::Fresh) [[unlikely]] {
      count_fresh(first);
    } else if (group_mode_ == GroupMode::Set) {
      const uint64_t pair = (uint64_t{first} << 32) | second;
      uint64_t& cached = pair_cache_[(pair * 0x9E3779B97F4A7C15ULL) >> 54];
      if (cached != pair) {
        reported_pairs_.insert(pair);
        cached = pair;
      }
    } else if (group_mode_ == GroupMode::Lost && store_all_pairs_) [[unlikely]] {
      lost_pairs_.insert((uint64_t{first} << 32) | second);
    }
  }
  void start_group(LocationId second, EventId event);
  void close_group();
  void count_fresh(LocationId first);
  bool in_open_group(uint64_t key) const;
  EventId group_event_ = kNoEvent;  // the second event of the current group
  LocationId group_location_ = 0;
  GroupMode group_mode_ = GroupMode::None;
  bool group_overflow_ = false;
  uint32_t group_serial_ = 0;
  std::vector<LocationId> group_firsts_;  // a Fresh group's distinct first locations (capped)
  std::vector<uint32_t> first_stamp_;     // by first location + 1 (0: unknown): last group seen
  std::vector<uint8_t> second_state_;     // by second location: 0 none, 1 stored, 2 counted only
  uint64_t counted_pairs_ = 0;            // pairs counted in Fresh groups and not stored
  bool pairs_lower_bound_ = false;
  bool store_all_pairs_ = false;
  bool group_new_second_ = false;  // store_all_pairs_: no group before had this second location
  // store_all_pairs_: pairs at a second location whose pairs were counted in bulk before (not
  // counted again: the location pair count is a lower bound then)
  std::unordered_set<uint64_t> lost_pairs_;
  EventId marked_event_ = kNoEvent;  // the last event count_race() marked racy
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
