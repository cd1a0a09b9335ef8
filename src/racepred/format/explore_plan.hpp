// The plan of an execution (docs/EXPLORE.md, "The plan"): instead of asking `racepred explore`
// over the channel at every choice point, the controlled scheduler of the runtime
// (recorder/controlled.cpp) makes the choices itself, as the strategy would, and writes every
// choice point into a shared memory region that racepred reads once the execution has ended.
// racepred then tells its strategy each point in order (Strategy::choose) and checks that the
// strategy chooses what the runtime chose, so an execution is the same either way.
//
// The region (a memfd named by RACEPRED_SCHEDULE_PLAN_FD, mapped by both ends): a PlanHeader,
// the prefix entries, then the choice point records (PointRecord + n ChoiceThread each).
// racepred writes the header and the prefix before the execution starts; the runtime appends
// records. When the runtime cannot plan a point (the region is full, a thread number beyond
// kPlanThreads) it sets `live` and asks over the channel from that point on, as without a plan.
//
// The Planner below is the strategies' choice code for the runtime, kept step for step with
// strategy.cpp (Fairness, options_of, ReplayStrategy), random.cpp (RandomWalk, Pct) and dfs.cpp
// (Dfs::choose on its prefix): plain arrays, no allocation, the C++ library's random engine and
// distribution (header templates, the same on both ends).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <random>

#include "racepred/format/explore_channel.hpp"

namespace racepred::format::explore {

enum PlanKind : uint32_t {
  kPlanNone = 0,    // ask over the channel at every choice point (as without a region)
  kPlanPrefix = 1,  // follow the prefix entries, then the default choice (dfs, replay)
  kPlanRandom = 2,  // a uniformly random allowed candidate (RandomWalk)
  kPlanPct = 3,     // PCT priorities and change points (Pct)
};

inline constexpr uint32_t kPlanMagic = 0x4e414c50;  // "PLAN"
// Threads a planned execution may number (fairness and PCT keep a slot per thread).
inline constexpr uint32_t kPlanThreads = 256;
// An entry's index that any candidate with the entry's tid matches (replay).
inline constexpr uint32_t kPlanAnyIndex = 0xffffffff;

struct PlanEntry {
  uint32_t tid = 0;    // the thread chosen
  uint32_t index = 0;  // at this candidate index (dfs), or kPlanAnyIndex (replay)
};

struct PlanHeader {
  uint32_t magic = kPlanMagic;
  uint32_t kind = kPlanNone;
  uint64_t seed = 0;    // random, pct: the engine's seed for this execution
  uint64_t points = 0;  // pct: the choice points of the longest execution so far (k)
  uint32_t depth = 0;   // pct: d
  uint32_t reserved = 0;
  uint64_t prefix = 0;          // entries that follow the header
  uint64_t records_offset = 0;  // from the region's start, 8-aligned
  uint64_t size = 0;            // the region's size
  // Written by the runtime.
  uint64_t records = 0;        // choice point records written
  uint64_t records_bytes = 0;  // their bytes
  uint32_t live = 0;           // 1: the points after the records were asked over the channel
  uint32_t reserved2 = 0;
};

struct PointRecord {
  uint8_t timeouts = 0;
  uint8_t current_op = 0;  // as ChoiceMsg's: what the current thread is blocked at, or kOpNone
  uint8_t reserved[2] = {};
  uint32_t current = 0;
  uint32_t n = 0;       // ChoiceThread that follow
  uint32_t chosen = 0;  // the index chosen
  uint64_t seq = 0;
};

inline constexpr size_t plan_record_size(uint32_t n) {
  return sizeof(PointRecord) + n * sizeof(ChoiceThread);
}

// The strategies' choice at a point, in the runtime. start() before the first point; choose()
// at each, in order; false when it cannot (then the rest is asked over the channel).
class Planner {
 public:
  void start(const PlanHeader& h, const PlanEntry* prefix) {
    kind_ = h.kind;
    prefix_ = prefix;
    prefix_size_ = h.prefix;
    depth_ = h.depth ? h.depth : 1;
    // Only the threads the last execution used: a fork server's execution starts from the
    // server's untouched tables and writes (faults in) only the pages of its own threads.
    for (uint32_t t = 0; t < touched_; ++t) {
      last_[t] = Last{};
      priority_[t] = 0;
      seen_[t] = false;
    }
    touched_ = 0;
    if (kind_ == kPlanRandom || kind_ == kPlanPct) rng_.seed(h.seed);
    changes_ = 0;
    if (kind_ == kPlanPct) {
      const uint64_t k = h.points ? h.points : 1;
      for (uint32_t i = 1; i < depth_ && changes_ < kMaxChanges; ++i)
        change_[changes_++] = std::uniform_int_distribution<uint64_t>(1, k)(rng_);
    }
  }

  bool choose(const ChoiceThread* c, uint32_t n, uint32_t current, bool timeouts, uint64_t index,
              uint32_t& chosen) {
    if (n == 0 || n > kMaxChoiceThreads) return false;
    if (current >= kPlanThreads) return false;
    for (uint32_t i = 0; i < n; ++i)
      if (c[i].tid >= kPlanThreads) return false;
    const bool gives_way = gives_way_of(c, n, current);
    uint32_t allowed_n = 0;
    bool current_runs = false;
    const uint32_t def = options(c, n, current, timeouts, gives_way, allowed_n, current_runs);
    (void)current_runs;
    switch (kind_) {
      case kPlanPrefix:
        chosen = def;
        if (index < prefix_size_) {
          const PlanEntry& e = prefix_[index];
          if (e.index == kPlanAnyIndex) {
            for (uint32_t i = 0; i < n; ++i)
              if (c[i].tid == e.tid) chosen = i;
          } else if (e.index < n && c[e.index].tid == e.tid) {
            chosen = e.index;
          }
        }
        return true;
      case kPlanRandom: {
        const uint32_t m = without_spurious(c, allowed_n);
        chosen = pick_[std::uniform_int_distribution<size_t>(0, m - 1)(rng_)];
        return true;
      }
      case kPlanPct: {
        for (uint32_t i = 0; i < n; ++i) priority_of(c[i].tid);
        priority_of(current);
        for (uint32_t i = 0; i < changes_; ++i)
          if (change_[i] == index + 1) priority_[current] = i + 1;
        if (gives_way && priority_[current] > depth_) priority_[current] = depth_;
        const uint32_t m = without_spurious(c, allowed_n);
        uint32_t best = pick_[0];
        for (uint32_t j = 0; j < m; ++j)
          if (priority_[c[pick_[j]].tid] > priority_[c[best].tid]) best = pick_[j];
        chosen = best;
        return true;
      }
      default:
        return false;
    }
  }

 private:
  static bool is_spurious(const ChoiceThread& c) { return c.times_out && c.op == kOpCondWait; }

  // Fairness::gives_way (strategy.cpp).
  bool gives_way_of(const ChoiceThread* c, uint32_t n, uint32_t tid) {
    const ChoiceThread* cur = nullptr;
    for (uint32_t i = 0; i < n; ++i)
      if (c[i].tid == tid) cur = &c[i];
    if (!cur || cur->op == kOpAccess) return false;
    if (cur->op == kOpYield || cur->op == kOpSleep) return true;
    touch(tid);
    Last& last = last_[tid];
    if (cur->op == kOpAtomic && last.op == kOpAtomic && last.obj == cur->obj)
      ++last.repeats;
    else
      last.repeats = 0;
    last.op = cur->op;
    last.obj = cur->obj;
    if (last.repeats + 1 >= kSpinRepeats) {
      last.repeats = 0;
      return true;
    }
    return false;
  }

  // options_of (strategy.cpp): fills allowed_ and returns the default index.
  uint32_t options(const ChoiceThread* c, uint32_t n, uint32_t tid, bool timeouts, bool gives_way,
                   uint32_t& allowed_n, bool& current_runs) {
    uint32_t current = UINT32_MAX;
    for (uint32_t i = 0; i < n; ++i)
      if (c[i].tid == tid) current = i;
    current_runs = current != UINT32_MAX && !gives_way && !timeouts && !is_spurious(c[current]);
    allowed_n = 0;
    for (uint32_t i = 0; i < n; ++i)
      if (i != current || !gives_way || n == 1) allowed_[allowed_n++] = i;
    if (current_runs) return current;
    uint32_t def = UINT32_MAX;
    for (uint32_t j = 0; j < allowed_n; ++j) {
      const uint32_t i = allowed_[j];
      if (is_spurious(c[i])) continue;
      if (def == UINT32_MAX) def = i;
      if (c[i].tid > tid) {
        def = i;
        break;
      }
    }
    return def == UINT32_MAX ? allowed_[0] : def;
  }

  // random.cpp's without_spurious: into pick_, returns its size.
  uint32_t without_spurious(const ChoiceThread* c, uint32_t allowed_n) {
    uint32_t m = 0;
    for (uint32_t j = 0; j < allowed_n; ++j)
      if (!is_spurious(c[allowed_[j]])) pick_[m++] = allowed_[j];
    if (m == 0)
      for (uint32_t j = 0; j < allowed_n; ++j) pick_[m++] = allowed_[j];
    return m;
  }

  void touch(uint32_t tid) {
    if (tid >= touched_) touched_ = tid + 1;
  }

  void priority_of(uint32_t tid) {
    touch(tid);
    if (seen_[tid]) return;
    seen_[tid] = true;
    priority_[tid] = depth_ + (rng_() >> 8);
  }

  static constexpr uint32_t kSpinRepeats = 3;  // strategy.hpp's
  static constexpr uint32_t kMaxChanges = 64;
  struct Last {
    uint8_t op = 0;
    uint64_t obj = 0;
    uint32_t repeats = 0;
  };
  uint32_t kind_ = kPlanNone;
  const PlanEntry* prefix_ = nullptr;
  uint64_t prefix_size_ = 0;
  uint32_t depth_ = 1;
  uint32_t changes_ = 0;
  uint32_t touched_ = 0;  // the threads below it may have state in last_, priority_, seen_
  uint64_t change_[kMaxChanges] = {};
  Last last_[kPlanThreads];
  uint64_t priority_[kPlanThreads] = {};
  bool seen_[kPlanThreads] = {};
  uint32_t allowed_[kMaxChoiceThreads] = {};
  uint32_t pick_[kMaxChoiceThreads] = {};
  std::mt19937_64 rng_;
};

}  // namespace racepred::format::explore
