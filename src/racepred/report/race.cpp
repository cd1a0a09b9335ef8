#include "racepred/report/race.hpp"

#include <algorithm>
#include <unordered_map>

namespace racepred {

RaceKind race_kind(const Race& race) {
  if (!race.first.known()) return RaceKind::Unknown;
  const bool w1 = race.first.op == Op::Write;
  const bool w2 = race.second.op == Op::Write;
  if (w1 && w2) return RaceKind::WriteWrite;
  if (!w1 && !w2) return RaceKind::ReadRead;
  return w1 ? RaceKind::WriteRead : RaceKind::ReadWrite;
}

std::string_view race_kind_name(RaceKind kind) {
  switch (kind) {
    case RaceKind::WriteWrite:
      return "write-write";
    case RaceKind::WriteRead:
      return "write-read";
    case RaceKind::ReadWrite:
      return "read-write";
    case RaceKind::ReadRead:
      return "read-read";
    case RaceKind::Unknown:
      return "unknown";
  }
  return "unknown";
}

namespace {
uint64_t location_pair(const Race& race) {
  const uint64_t first_loc = race.first.known() ? race.first.location : UINT32_MAX;
  return (first_loc << 32) | race.second.location;
}
}  // namespace

void RaceSink::report(const Race& race, std::span<const GuardLock> first_guards,
                      std::span<const GuardLock> second_guards) {
  tracks_guards_ = true;
  report(race);
  if (first_guards.empty() && second_guards.empty()) return;
  // Kept iff it is among the max_kept first in detection order; stale entries are dropped in
  // finalize().
  if (max_kept_ > 0 && (kept_.size() < max_kept_ || !detected_before(kept_.front(), race)))
    guards_[{race.first.event, race.second.event}] = RaceGuards{
        {first_guards.begin(), first_guards.end()}, {second_guards.begin(), second_guards.end()}};
}

void RaceSink::report_guarded(const Race& race) {
  tracks_guards_ = true;
  guarded_pairs_.insert(location_pair(race));
}

const RaceGuards* RaceSink::guards(const Race& race) const {
  const auto it = guards_.find({race.first.event, race.second.event});
  return it == guards_.end() ? nullptr : &it->second;
}

void RaceSink::report(const Race& race) {
  RACEPRED_DCHECK(reported_once_.emplace(race.first.event, race.second.event).second,
                  "an engine reports each race pair at most once");
  ++race_count_;
  if (race.first.known() && race.first.op == Op::Read && race.second.op == Op::Read)
    ++read_read_count_;
  if (!has_first_detected_ || detected_before(race, first_detected_)) {
    first_detected_ = race;
    has_first_detected_ = true;
  }
  const uint64_t pair = location_pair(race);
  uint64_t& cached = pair_cache_[(pair * 0x9E3779B97F4A7C15ULL) >> 54];
  if (cached != pair) {
    reported_pairs_.insert(pair);
    cached = pair;
  }
  if (max_kept_ > 0) {
    if (kept_.size() < max_kept_) {
      kept_.push_back(race);
      std::push_heap(kept_.begin(), kept_.end(), detected_before);
    } else if (detected_before(race, kept_.front())) {
      std::pop_heap(kept_.begin(), kept_.end(), detected_before);
      kept_.back() = race;
      std::push_heap(kept_.begin(), kept_.end(), detected_before);
    }
  }
  mark_racy(race.second);
}

void RaceSink::mark_racy(const Access& access) {
  const EventId second = access.event;
  const size_t word = second / 64;
  if (word >= racy_bits_.size()) racy_bits_.resize(std::max(word + 1, racy_bits_.size() * 2), 0);
  const uint64_t bit = uint64_t{1} << (second % 64);
  if (!(racy_bits_[word] & bit)) {
    racy_bits_[word] |= bit;
    ++racy_event_count_;
  }
  const LocationId loc = access.location;
  if (loc >= location_seen_.size())
    location_seen_.resize(std::max<size_t>(loc + 1, location_seen_.size() * 2), false);
  if (!location_seen_[loc]) {
    location_seen_[loc] = true;
    ++racy_location_count_;
  }
}

void RaceSink::finalize() {
  if (finalized_) return;
  finalized_ = true;
  std::sort(kept_.begin(), kept_.end());
  racy_events_.clear();
  for (size_t w = 0; w < racy_bits_.size() && racy_events_.size() < max_listed_; ++w)
    for (uint64_t bits = racy_bits_[w]; bits && racy_events_.size() < max_listed_; bits &= bits - 1)
      racy_events_.push_back(
          static_cast<EventId>(w * 64 + static_cast<size_t>(__builtin_ctzll(bits))));
  racy_bits_ = {};
  racy_locations_.clear();
  for (size_t l = 0; l < location_seen_.size() && racy_locations_.size() < max_listed_; ++l)
    if (location_seen_[l]) racy_locations_.push_back(static_cast<LocationId>(l));
  if (!guards_.empty()) {
    std::map<std::pair<EventId, EventId>, RaceGuards> kept;
    for (const Race& r : kept_) {
      auto it = guards_.find({r.first.event, r.second.event});
      if (it != guards_.end()) kept.insert(std::move(*it));
    }
    guards_.swap(kept);
  }
  cs_guarded_ = 0;
  for (uint64_t p : guarded_pairs_) cs_guarded_ += reported_pairs_.count(p) == 0;
}

std::vector<LocationPairSummary> RaceSink::location_pairs() const {
  std::unordered_map<uint64_t, LocationPairSummary> pairs;
  for (const Race& race : kept_) {
    const uint64_t first_loc = race.first.known() ? race.first.location : UINT32_MAX;
    auto [it, inserted] = pairs.try_emplace((first_loc << 32) | race.second.location);
    if (inserted || detected_before(race, it->second.example)) it->second.example = race;
    ++it->second.count;
  }
  std::vector<LocationPairSummary> out;
  out.reserve(pairs.size());
  for (const auto& [key, summary] : pairs) out.push_back(summary);
  std::sort(out.begin(), out.end(), [](const LocationPairSummary& a, const LocationPairSummary& b) {
    return detected_before(a.example, b.example);
  });
  return out;
}

}  // namespace racepred
