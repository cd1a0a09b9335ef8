#include "racepred/engines/witness_source.hpp"

#include <algorithm>

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
      case Op::ReadRequest:
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

void ClosureWitnesses::extend(uint32_t access) {
  // The access's own predecessors as the engine's clocks before it have them: thread order and
  // the fork of its thread, not a read's last write (SHB checks a read before it joins its last
  // write, so a read races with that write: both stay enabled).
  const ThreadId t = index_.event(access).thread;
  include(t, index_.index_in_thread(access));
  if (index_.first_of(t) == access && index_.fork_of(t) != kNoIndex)
    include(index_.event(index_.fork_of(t)).thread, index_.index_in_thread(index_.fork_of(t)) + 1);
  while (!work_.empty()) {
    const ThreadId u = work_.back();
    work_.pop_back();
    const std::vector<uint32_t>& events = index_.thread_events(u);
    // bound_[u] may grow while its events are scanned: scan until it stops.
    while (scanned_[u] < bound_[u]) {
      const uint32_t i = events[scanned_[u]++];
      ++steps_;
      for (uint32_t k = start_[i]; k < start_[i + 1]; ++k) {
        const uint32_t p = preds_[k];
        include(index_.event(p).thread, index_.index_in_thread(p) + 1);
      }
    }
  }
}

void ClosureWitnesses::clear() {
  for (const uint32_t t : touched_) bound_[t] = scanned_[t] = 0;
  touched_.clear();
}

std::vector<std::vector<std::pair<ThreadId, uint32_t>>> ClosureWitnesses::cuts(
    std::span<const std::pair<uint32_t, uint32_t>> pairs) {
  using Cut = std::vector<std::pair<ThreadId, uint32_t>>;
  // Each access's closure once, the accesses of a thread in thread order: one growing closure
  // per thread.
  std::vector<uint32_t> accesses;
  accesses.reserve(pairs.size() * 2);
  for (const auto& [a, b] : pairs) {
    accesses.push_back(a);
    accesses.push_back(b);
  }
  std::sort(accesses.begin(), accesses.end(), [&](uint32_t a, uint32_t b) {
    const ThreadId ta = index_.event(a).thread, tb = index_.event(b).thread;
    return ta != tb ? ta < tb : a < b;
  });
  accesses.erase(std::unique(accesses.begin(), accesses.end()), accesses.end());
  std::vector<Cut> of(accesses.size());
  for (size_t k = 0; k < accesses.size(); ++k) {
    if (k > 0 && index_.event(accesses[k - 1]).thread != index_.event(accesses[k]).thread) clear();
    extend(accesses[k]);
    Cut& cut = of[k];
    for (const uint32_t t : touched_) cut.emplace_back(t, bound_[t]);
    std::sort(cut.begin(), cut.end());
  }
  clear();
  const auto cut_of = [&](uint32_t access) -> const Cut& {
    const auto it =
        std::lower_bound(accesses.begin(), accesses.end(), access, [&](uint32_t a, uint32_t b) {
          const ThreadId ta = index_.event(a).thread, tb = index_.event(b).thread;
          return ta != tb ? ta < tb : a < b;
        });
    return of[static_cast<size_t>(it - accesses.begin())];
  };
  // A pair's closure is the union of its accesses' (both downward closed): the larger count.
  std::vector<Cut> out;
  out.reserve(pairs.size());
  for (const auto& [a, b] : pairs) {
    const Cut &x = cut_of(a), &y = cut_of(b);
    Cut merged;
    merged.reserve(x.size() + y.size());
    size_t i = 0, j = 0;
    while (i < x.size() || j < y.size()) {
      if (j == y.size() || (i < x.size() && x[i].first < y[j].first)) {
        merged.push_back(x[i++]);
      } else if (i == x.size() || y[j].first < x[i].first) {
        merged.push_back(y[j++]);
      } else {
        merged.emplace_back(x[i].first, std::max(x[i].second, y[j].second));
        ++i;
        ++j;
      }
    }
    out.push_back(std::move(merged));
  }
  return out;
}

std::vector<std::optional<RaceWitness>> closure_witnesses(const TraceIndex& index,
                                                          std::span<const Race> races,
                                                          ClosureWitnesses::Order order) {
  std::vector<std::optional<RaceWitness>> out(races.size());
  if (races.empty()) return out;
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  std::vector<size_t> which;
  for (size_t k = 0; k < races.size(); ++k) {
    const Race& race = races[k];
    const uint32_t first =
        race.first.known() ? ClosureWitnesses::position(index, race.first.event) : kNoIndex;
    const uint32_t second = ClosureWitnesses::position(index, race.second.event);
    if (first == kNoIndex || second == kNoIndex)
      continue;  // an engine that knows only the later access: nothing to close
    pairs.emplace_back(first, second);
    which.push_back(k);
  }
  ClosureWitnesses closure(index, order);
  std::vector<std::vector<std::pair<ThreadId, uint32_t>>> cuts = closure.cuts(pairs);
  for (size_t k = 0; k < which.size(); ++k) out[which[k]] = RaceWitness{std::move(cuts[k]), {}};
  return out;
}

}  // namespace racepred
