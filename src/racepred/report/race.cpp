#include "racepred/report/race.hpp"

#include <algorithm>
#include <unordered_map>

namespace racepred {

void RaceSink::report(const Race& race) {
  RACEPRED_DCHECK(reported_once_.emplace(race.first.event, race.second.event).second,
                  "an engine reports each race pair at most once");
  ++calls_;
  ++race_count_;
  if (!has_first_detected_ || detected_before(race, first_detected_)) {
    first_detected_ = race;
    has_first_detected_ = true;
  }
  track_pair(race.first.known() ? race.first.location : UINT32_MAX, race.second.location,
             race.second.event);
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

void RaceSink::start_group(LocationId second, EventId event) {
  close_group();
  group_event_ = event;
  group_location_ = second;
  if (second >= second_state_.size())
    second_state_.resize(std::max<size_t>(size_t{second} + 1, second_state_.size() * 2), 0);
  if (store_all_pairs_) {
    // Every pair is stored, but not those of a group counted in bulk (count_races_in_bulk): a
    // later group at its second location cannot tell its pairs new.
    uint8_t& state = second_state_[second];
    group_new_second_ = state == 0;
    if (state == 2) {
      group_mode_ = GroupMode::Lost;
      pairs_lower_bound_ = true;
    } else {
      state = 1;
      group_mode_ = GroupMode::Set;
    }
    return;
  }
  switch (second_state_[second]) {
    case 0:
      group_mode_ = GroupMode::Fresh;
      group_firsts_.clear();
      group_overflow_ = false;
      if (++group_serial_ == 0) {  // wrapped: forget every stamp
        std::fill(first_stamp_.begin(), first_stamp_.end(), 0);
        group_serial_ = 1;
      }
      break;
    case 1:
      group_mode_ = GroupMode::Set;
      break;
    default:  // the first group here was counted, not stored: new pairs cannot be told apart
      group_mode_ = GroupMode::Lost;
      pairs_lower_bound_ = true;
      break;
  }
}

void RaceSink::count_fresh(LocationId first) {
  // Stamps are indexed by location + 1 so that the unknown location (UINT32_MAX) is slot 0.
  const size_t slot = first == UINT32_MAX ? 0 : size_t{first} + 1;
  if (slot >= first_stamp_.size())
    first_stamp_.resize(std::max(slot + 1, first_stamp_.size() * 2), 0);
  if (first_stamp_[slot] == group_serial_) return;
  first_stamp_[slot] = group_serial_;
  ++counted_pairs_;
  if (group_firsts_.size() < kGroupList)
    group_firsts_.push_back(first);
  else
    group_overflow_ = true;
}

void RaceSink::close_group() {
  if (group_mode_ == GroupMode::Fresh) {
    if (!group_overflow_) {
      for (LocationId first : group_firsts_)
        reported_pairs_.insert((uint64_t{first} << 32) | group_location_);
      counted_pairs_ -= group_firsts_.size();
    }
    second_state_[group_location_] = group_overflow_ ? 2 : 1;
  }
  group_mode_ = GroupMode::None;
  group_event_ = kNoEvent;
}

bool RaceSink::in_open_group(uint64_t key) const {
  if (group_mode_ != GroupMode::Fresh || (key & UINT32_MAX) != group_location_) return false;
  const auto first = static_cast<LocationId>(key >> 32);
  const size_t slot = first == UINT32_MAX ? 0 : size_t{first} + 1;
  return slot < first_stamp_.size() && first_stamp_[slot] == group_serial_;
}

void RaceSink::finalize() {
  if (finalized_) return;
  finalized_ = true;
  close_group();
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
}

uint64_t RaceSink::count(FindingKind kind) const {
  switch (kind) {
    case FindingKind::DataRace:
      return race_count_ - extras_.read_read_pairs;
    case FindingKind::ReadReadViolation:
      return extras_.read_read_pairs;
    case FindingKind::Deadlock:
    case FindingKind::Failure:
      return static_cast<uint64_t>(std::count_if(
          findings_.begin(), findings_.end(), [kind](const Finding& f) { return f.kind == kind; }));
  }
  return 0;
}

bool RaceSink::any_failing() const {
  for (FindingKind kind : kFindingKinds)
    if (fails_run(kind) && count(kind) > 0) return true;
  return false;
}

std::vector<LocationPairSummary> RaceSink::location_pairs() const {
  std::unordered_map<uint64_t, LocationPairSummary> pairs;
  for (const Race& race : kept_) {
    auto [it, inserted] = pairs.try_emplace(location_pair_key(race));
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
