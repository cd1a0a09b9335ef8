// Thread slots: the map of thread ids to slots for state of threads × threads (ThreadClocks'
// clocks, Goldilocks' reach tables), with the reuse of the slots of finished threads.
//
// A thread gets a fresh slot (the next number) when it first needs one. When a thread ends (is
// joined), its slot is retired: listed as free with the thread's last clock value (or epoch) in
// it. A thread forked later may take a free slot instead of a fresh one when the engine's test
// says the forking thread already knows every event of the slot's last thread (`reusable`, a
// parameter of take_free: only the engine knows its order); the new thread then continues the
// slot's values past the old thread's. Every slot keeps its threads with their first values
// (tenants), so a value k in slot s names one thread (thread_at): the one whose first value is
// the last at most k. With churn (short-lived threads forked and joined) the slots follow the
// threads alive at once, not all threads ever seen.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

#include "racepred/trace/event.hpp"

namespace racepred {

class SlotMap {
 public:
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  // A slot whose thread ended: `last` is that thread's last value in the slot, `at` whatever
  // else the engine's reuse test needs (Goldilocks: the position of the join in its list).
  struct FreeSlot {
    uint32_t slot;
    uint32_t last;
    uint64_t at;
  };

  // The slot of thread t, kNoSlot if it has none (not seen yet, or it lost its slot).
  uint32_t find(ThreadId t) const { return t < slot_of_.size() ? slot_of_[t] : kNoSlot; }
  // The slot of a thread that has one.
  uint32_t operator[](ThreadId t) const { return slot_of_[t]; }
  // Slots handed out so far (fresh ones; reused slots are counted once).
  size_t slots() const { return tenants_.size(); }
  // Threads that had slot s so far.
  size_t tenant_count(uint32_t s) const { return tenants_[s].size(); }
  // The thread now in slot s.
  ThreadId tenant(uint32_t s) const { return tenants_[s].back().thread; }
  bool has_free() const { return !free_.empty(); }

  // A fresh slot, the next number, for thread t (which has none); its first value is 1.
  uint32_t add(ThreadId t) {
    const auto s = static_cast<uint32_t>(tenants_.size());
    reserve_id(t);
    slot_of_[t] = s;
    tenants_.push_back({Tenant{1, t}});
    vacant_.push_back(0);
    return s;
  }

  // The thread in slot s ended with `last` as its last value there: the slot becomes free.
  // release: the thread loses its slot now (a later event of it gets a fresh one); otherwise it
  // keeps the slot until another thread takes it. False when the slot is free already.
  bool retire(uint32_t s, uint32_t last, uint64_t at, bool release) {
    if (vacant_[s]) return false;
    vacant_[s] = 1;
    free_.push_back(FreeSlot{s, last, at});
    if (release) slot_of_[tenant(s)] = kNoSlot;
    return true;
  }

  // Takes the most recently freed slot f for which reusable(f) holds, off the free list; a
  // bounded look (the last 16 freed) keeps a fork O(1) in the number of slots. The caller then
  // moves a thread in (move_in).
  template <class Reusable>
  std::optional<FreeSlot> take_free(Reusable&& reusable) {
    const size_t n = free_.size();
    for (size_t q = n; q > 0 && q + 16 > n; --q) {
      const FreeSlot f = free_[q - 1];
      if (!reusable(f)) continue;
      free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(q - 1));
      return f;
    }
    return std::nullopt;
  }
  // Thread w takes slot s (from take_free) with `first` as its first value there; the slot's
  // previous thread no longer has it.
  void move_in(ThreadId w, uint32_t s, uint32_t first) {
    const ThreadId previous = tenant(s);
    if (previous < slot_of_.size() && slot_of_[previous] == s) slot_of_[previous] = kNoSlot;
    reserve_id(w);
    slot_of_[w] = s;
    tenants_[s].push_back(Tenant{first, w});
    vacant_[s] = 0;
  }

  // The thread whose value k is in slot s (cold path). k = 0 is nobody's value: the first
  // thread of the slot.
  ThreadId thread_at(uint32_t s, uint32_t k) const {
    const std::vector<Tenant>& t = tenants_[s];
    const auto it = std::upper_bound(t.begin(), t.end(), k,
                                     [](uint32_t c, const Tenant& x) { return c < x.first; });
    return it == t.begin() ? t.front().thread : std::prev(it)->thread;
  }

 private:
  struct Tenant {
    uint32_t first;  // the thread's first value in the slot
    ThreadId thread;
  };
  void reserve_id(ThreadId t) {
    if (t >= slot_of_.size())
      slot_of_.resize(std::max<size_t>(size_t{t} + 1, slot_of_.size() * 3 / 2), kNoSlot);
  }

  std::vector<uint32_t> slot_of_;             // thread → slot, kNoSlot: none
  std::vector<std::vector<Tenant>> tenants_;  // per slot: its threads, by first value
  std::vector<uint8_t> vacant_;               // per slot: listed in free_
  std::vector<FreeSlot> free_;                // retired slots, the most recent last
};

}  // namespace racepred
