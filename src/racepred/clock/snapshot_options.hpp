// The settings of SnapshotPool (clock/snapshot_pool.hpp), apart so that EngineContext can carry
// them without the pool.
#pragma once

#include <atomic>
#include <cstddef>

namespace racepred {

// How a SnapshotPool stores its snapshots; the defaults are what the engines run with. The
// engines take them from their options (snapshot_delta_stride, snapshot_chain in
// engines/options.def), which tests lower to exercise deltas on small traces.
struct SnapshotOptions {
  // Snapshots may be deltas from this stride (the pool's thread capacity) on.
  size_t delta_min_stride = 64;
  // The longest chain of deltas plus its keyframe (0: the pool's own, SnapshotPool::kChain or
  // kShortChain).
  size_t chain = 0;
  // When set, counts the deltas made (tests: the options took effect). Atomic: `analyze` runs
  // several engines, each with its own pools, on threads of their own.
  std::atomic<size_t>* deltas_made = nullptr;
};

}  // namespace racepred
