#include "racepred/clock/thread_clocks.hpp"

#include <algorithm>
#include <iterator>
#include <string>

#include "racepred/trace/error.hpp"

namespace racepred {

void clock_overflow(ThreadId i) {
  throw InputError("thread #" + std::to_string(i) + " has more than " + std::to_string(Clock(-1)) +
                   " events: its 32-bit vector-clock entry would wrap around; split the trace");
}

namespace {
size_t default_budget = 256;
}

size_t ThreadClocks::default_slot_budget() {
  return default_budget;
}
void ThreadClocks::set_default_slot_budget(size_t budget) {
  default_budget = budget;
}

ThreadId ThreadClocks::thread_at(uint32_t s, Clock k) const {
  if (!mapped_) return s;
  const std::vector<Tenant>& t = tenants_[s];
  // The last tenant whose first clock is at most k (the first tenant starts at 1; k = 0 is
  // nobody's epoch and maps to it).
  auto it =
      std::upper_bound(t.begin(), t.end(), k, [](Clock c, const Tenant& x) { return c < x.first; });
  return it == t.begin() ? t.front().thread : std::prev(it)->thread;
}

void ThreadClocks::start_mapping() {
  mapped_ = true;
  slot_of_.resize(std::max(slot_of_.size(), threads_), kNoSlot);
  tenants_.resize(threads_);
  for (size_t t = 0; t < threads_; ++t) {
    slot_of_[t] = static_cast<uint32_t>(t);
    tenants_[t] = {Tenant{1, static_cast<ThreadId>(t)}};
  }
  for (ThreadId j : joined_) retire(j);
  joined_.clear();
  joined_.shrink_to_fit();
}

bool ThreadClocks::new_slot(ThreadId t) {
  if (t >= slot_of_.size())
    slot_of_.resize(std::max<size_t>(size_t{t} + 1, slot_of_.size() * 3 / 2), kNoSlot);
  const uint32_t s = static_cast<uint32_t>(threads_);
  slot_of_[t] = s;
  tenants_.push_back({Tenant{1, t}});
  return grow(s);
}

bool ThreadClocks::take_free_slot(ThreadId i, ThreadId j) {
  add_thread(i);
  const Clock* ti = th(i);
  // The most recently freed slots first; a bounded look keeps a fork O(1) in slot count.
  const size_t n = free_.size();
  for (size_t q = n; q > 0 && q + 16 > n; --q) {
    const FreeSlot f = free_[q - 1];
    if (ti[f.slot] < f.last) continue;
    free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(q - 1));
    Clock* tj = th_.row(f.slot);
    copy_clock(tj, ti, stride());
    increment_clock(tj[f.slot], j);  // Th(j) = Th(i) with the slot's entry past the old thread
    slot_of_[j] = f.slot;
    tenants_[f.slot].push_back(Tenant{tj[f.slot], j});
    return true;
  }
  return false;
}

void ThreadClocks::retire(ThreadId j) {
  if (!mapped_) {
    joined_.push_back(j);
    return;
  }
  const uint32_t s = slot_of_[j];
  if (s == kNoSlot) return;  // joined twice
  free_.push_back(FreeSlot{s, th_.row(s)[s]});
  slot_of_[j] = kNoSlot;
}

}  // namespace racepred
