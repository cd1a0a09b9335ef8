// Races and the sink every engine reports into (docs/ENGINES.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "racepred/trace/debug_check.hpp"
#include "racepred/trace/event.hpp"

namespace racepred {

// One side of a race: the access event and what a report needs to name it.
struct Access {
  EventId event = kNoEvent;  // kNoEvent: the engine knows only the later event
  ThreadId thread = 0;
  LocationId location = 0;
  Op op = Op::Read;

  static Access of(EventId id, const Event& e) { return Access{id, e.thread, e.location, e.op}; }
  bool known() const { return event != kNoEvent; }
};

// A race pair (first < second in trace order) on `variable`.
struct Race {
  Access first;
  Access second;
  VariableId variable = 0;

  // Output order: by (first, second).
  friend bool operator<(const Race& a, const Race& b) {
    return a.first.event != b.first.event ? a.first.event < b.first.event
                                          : a.second.event < b.second.event;
  }
};

// Detection order: by (second, first). The sink keeps the races that come first in this order.
inline bool detected_before(const Race& a, const Race& b) {
  return a.second.event != b.second.event ? a.second.event < b.second.event
                                          : a.first.event < b.first.event;
}

// ReadRead only comes from `goldilocks`, whose discipline (Elmas and Qadeer §3) orders reads too.
enum class RaceKind : uint8_t { WriteWrite, WriteRead, ReadWrite, ReadRead, Unknown };
RaceKind race_kind(const Race& race);
// "write-write", "write-read", "read-write", "read-read" (first access's op first);
// "unknown" if the first access is unknown.
std::string_view race_kind_name(RaceKind kind);

// A cross-thread guard lock (Sulzmann and Thiemann §6.3): `lock` held by `thread` around an access
// of another thread (acq <PWR access <PWR rel), i.e. an element (lock, thread) of LH_pwr beyond
// LH_S.
struct GuardLock {
  LockId lock = 0;
  ThreadId thread = 0;
  bool read = false;  // the guarding section holds the lock in read mode
  friend bool operator==(const GuardLock&, const GuardLock&) = default;
  friend auto operator<=>(const GuardLock&, const GuardLock&) = default;
};
// The guard locks an engine found for the two accesses of a race.
struct RaceGuards {
  std::vector<GuardLock> first;
  std::vector<GuardLock> second;
};

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
class RaceSink {
 public:
  explicit RaceSink(size_t max_kept = 1000, size_t max_listed = SIZE_MAX)
      : max_kept_(max_kept), max_listed_(max_listed) {
    pair_cache_.fill(UINT64_MAX);
  }

  void report(const Race& race);
  // A race with the cross-thread guard locks found for its accesses (pwr-cs, pwr-e); kept with
  // the race if the race is kept. Enables the guard statistics below (tracks_guards()).
  void report(const Race& race, std::span<const GuardLock> first_guards,
              std::span<const GuardLock> second_guards);
  // Fig. 12 of Sulzmann and Thiemann: a race of the engine's base method (e.g. pwr) that a
  // cross-thread guard lock removed, and the number of guard-lock confirmations (line 7 of RELEASE
  // in Alg. 1).
  void report_guarded(const Race& race);
  void add_guard_confirmations(uint64_t n) {
    tracks_guards_ = true;
    guard_confirmations_ += n;
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
  // Read-read pairs among them (only goldilocks reports them: its discipline orders reads too).
  // They are discipline violations, not data races: reports say so, and they alone do not
  // make a run exit with code 1.
  uint64_t read_read_count() const { return read_read_count_; }
  uint64_t data_race_count() const { return race_count_ - read_read_count_; }
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
  // Guard statistics: true once an engine reported guards or confirmations.
  bool tracks_guards() const { return tracks_guards_; }
  uint64_t guard_confirmations() const { return guard_confirmations_; }
  // Location pairs all of whose races were removed by a guard lock (Fig. 12 "cs guarded"):
  // pairs of report_guarded() races that no reported race has. Valid after finalize().
  uint64_t cs_guarded_location_pairs() const { return cs_guarded_; }
  // The guard locks of a kept race, or null when it has none (after finalize()).
  const RaceGuards* guards(const Race& race) const;

 private:
  size_t max_kept_;
  size_t max_listed_;
  uint64_t race_count_ = 0;
  uint64_t read_read_count_ = 0;
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
  std::unordered_set<uint64_t> guarded_pairs_;
  std::map<std::pair<EventId, EventId>, RaceGuards> guards_;
  bool tracks_guards_ = false;
  uint64_t guard_confirmations_ = 0;
  uint64_t cs_guarded_ = 0;
  // Debug builds: every (first, second) reported, to check that none comes twice.
  RACEPRED_DEBUG_ONLY(std::set<std::pair<EventId, EventId>> reported_once_;)
};

}  // namespace racepred
