// The clock kit's settings from the engine options (engines/options.def): every engine on
// ThreadClocks or SnapshotPool sets them up here, so a test that lowers a threshold reaches
// them all through EngineContext::options.
#pragma once

#include <cstdint>

#include "racepred/clock/snapshot_options.hpp"
#include "racepred/clock/thread_clocks.hpp"
#include "racepred/engines/options.hpp"

namespace racepred {

// Sparse clocks past options.clock_sparse_slots slots (call before the first event).
inline void set_sparse_threshold(ThreadClocks& clocks, const EngineOptions& options) {
  clocks.sparse_beyond(static_cast<size_t>(options.clock_sparse_slots));
}

// The same, and slots reused past options.clock_slot_budget (2^64 - 1: never). An engine built
// for its annotated view (EngineContext::annotate) reuses no slot, so clocks show by thread.
inline void set_clock_options(ThreadClocks& clocks, const EngineOptions& options,
                              bool annotate = false) {
  set_sparse_threshold(clocks, options);
  clocks.reuse_slots_beyond(annotate ? SIZE_MAX : static_cast<size_t>(options.clock_slot_budget));
}

// How the engine's SnapshotPools store their snapshots.
inline SnapshotOptions snapshot_options(const EngineOptions& options) {
  return SnapshotOptions{.delta_min_stride = static_cast<size_t>(options.snapshot_delta_stride),
                         .chain = static_cast<size_t>(options.snapshot_chain),
                         .deltas_made = options.snapshot_deltas_made};
}

}  // namespace racepred
