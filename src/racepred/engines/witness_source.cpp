#include "racepred/engines/witness_source.hpp"

#include <algorithm>
#include <cmath>

namespace racepred {

ClosureWitnesses::ClosureWitnesses(const TraceIndex& index, Order order) : index_(index) {
  const uint32_t n = static_cast<uint32_t>(index.size());
  start_.reserve(size_t{n} + 1);
  // Per lock: the last write release, and the read releases since it (a write acquire comes
  // after both; earlier sections precede the last write release already).
  std::vector<uint32_t> last_release(index.lock_count(), kNoIndex);
  std::vector<std::vector<uint32_t>> read_releases(index.lock_count());
  for (uint32_t i = 0; i < n; ++i) {
    start_.push_back(static_cast<uint32_t>(preds_.size()));
    const Event& e = index.event(i);
    if (index.first_of(e.thread) == i && index.fork_of(e.thread) != kNoIndex &&
        index.fork_of(e.thread) < i)
      preds_.push_back(index.fork_of(e.thread));
    switch (e.op) {
      case Op::Read:
        if (order == Order::Schedulable && index.last_write(i) != kNoIndex)
          preds_.push_back(index.last_write(i));
        break;
      case Op::Write:
      case Op::Fork:
      case Op::Send:
      case Op::Request:
        break;
      case Op::Acquire:
        if (last_release[e.target] != kNoIndex) preds_.push_back(last_release[e.target]);
        preds_.insert(preds_.end(), read_releases[e.target].begin(), read_releases[e.target].end());
        read_releases[e.target].clear();  // this section's release comes after them
        break;
      case Op::ReadAcquire:
        if (last_release[e.target] != kNoIndex) preds_.push_back(last_release[e.target]);
        break;
      case Op::Release:
        last_release[e.target] = i;
        break;
      case Op::ReadRelease:
        read_releases[e.target].push_back(i);
        break;
      case Op::Join:
        if (e.target < index.thread_count() && index.last_of(e.target) != kNoIndex &&
            index.last_of(e.target) < i)
          preds_.push_back(index.last_of(e.target));
        break;
      case Op::Recv:
        for (const uint32_t s : index.sends_before(i)) preds_.push_back(s);
        break;
    }
  }
  start_.push_back(static_cast<uint32_t>(preds_.size()));
  bound_.assign(index.thread_count(), 0);
  scanned_.assign(index.thread_count(), 0);
}

uint32_t ClosureWitnesses::position(const TraceIndex& index, EventId id) {
  // Ids strictly increase with the position; without gaps the id is the position + 1.
  uint32_t lo = 0, hi = static_cast<uint32_t>(index.size());
  if (id >= 1 && id <= hi && index.id(static_cast<uint32_t>(id - 1)) == id)
    return static_cast<uint32_t>(id - 1);
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (index.id(mid) < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < index.size() && index.id(lo) == id ? lo : kNoIndex;
}

void ClosureWitnesses::include(ThreadId t, uint32_t count) {
  if (count <= bound_[t]) return;
  if (bound_[t] == 0) touched_.push_back(t);
  if (bound_[t] == scanned_[t]) work_.push_back(t);  // not queued yet
  bound_[t] = count;
}

std::vector<uint32_t> ClosureWitnesses::prefix(uint32_t first, uint32_t second) {
  const auto bring_predecessors = [&](uint32_t i) {
    for (uint32_t k = start_[i]; k < start_[i + 1]; ++k) {
      const uint32_t p = preds_[k];
      include(index_.event(p).thread, index_.index_in_thread(p) + 1);
    }
  };
  // The accesses' own predecessors as the engine's clocks before them have them: thread order and
  // the fork of their thread, not a read's last write (SHB checks a read before it joins its
  // last write, so a read races with that write: both stay enabled).
  for (const uint32_t access : {first, second}) {
    const ThreadId t = index_.event(access).thread;
    include(t, index_.index_in_thread(access));
    if (index_.first_of(t) == access && index_.fork_of(t) != kNoIndex)
      include(index_.event(index_.fork_of(t)).thread,
              index_.index_in_thread(index_.fork_of(t)) + 1);
  }
  while (!work_.empty()) {
    const ThreadId t = work_.back();
    work_.pop_back();
    const std::vector<uint32_t>& events = index_.thread_events(t);
    // bound_[t] may grow while its events are scanned: scan until it stops.
    while (scanned_[t] < bound_[t]) bring_predecessors(events[scanned_[t]++]);
  }

  // Linearise in trace order: merge the threads' prefixes by sorting them, or, when the closure
  // covers much of the trace before the pair, by one scan of that stretch.
  size_t size = 0;
  for (const uint32_t t : touched_) size += bound_[t];
  std::vector<uint32_t> out;
  out.reserve(size);
  const uint32_t end = std::max(first, second);
  if (static_cast<double>(size) * std::log2(static_cast<double>(size) + 2) > end) {
    for (uint32_t i = 0; i < end; ++i) {
      const Event& e = index_.event(i);
      if (index_.index_in_thread(i) < bound_[e.thread]) out.push_back(i);
    }
  } else {
    for (const uint32_t t : touched_) {
      const std::vector<uint32_t>& events = index_.thread_events(t);
      out.insert(out.end(), events.begin(), events.begin() + bound_[t]);
    }
    std::sort(out.begin(), out.end());
  }
  for (const uint32_t t : touched_) bound_[t] = scanned_[t] = 0;
  touched_.clear();
  return out;
}

std::vector<std::optional<RaceWitness>> closure_witnesses(const TraceIndex& index,
                                                          std::span<const Race> races,
                                                          ClosureWitnesses::Order order) {
  std::vector<std::optional<RaceWitness>> out;
  out.reserve(races.size());
  if (races.empty()) return out;
  ClosureWitnesses closure(index, order);
  for (const Race& race : races) {
    const uint32_t first =
        race.first.known() ? ClosureWitnesses::position(index, race.first.event) : kNoIndex;
    const uint32_t second = ClosureWitnesses::position(index, race.second.event);
    if (first == kNoIndex || second == kNoIndex) {
      out.emplace_back();  // an engine that knows only the later access: nothing to close
      continue;
    }
    out.push_back(RaceWitness{closure.prefix(first, second)});
  }
  return out;
}

}  // namespace racepred
