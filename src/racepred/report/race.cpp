#include "racepred/report/race.hpp"

#include <algorithm>
#include <unordered_map>

namespace racepred {

void RaceSink::report(const Race& race) {
  RACEPRED_DCHECK(reported_once_.emplace(race.first.event, race.second.event).second,
                  "an engine reports each race pair at most once");
  ++race_count_;
  if (!has_first_detected_ || detected_before(race, first_detected_)) {
    first_detected_ = race;
    has_first_detected_ = true;
  }
  const uint64_t pair = location_pair_key(race);
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
