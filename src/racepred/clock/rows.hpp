// Per-id rows of clocks (or of anything clock-shaped) sharing one stride, in one contiguous
// array: Th and Rel of the vector-clock engines, Wv(x)/Rv(x) of djit, the sets of hb-epochs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "racepred/clock/vector_clock.hpp"

namespace racepred {

// The stride of every clock row is a power of two ≥ 4, so loops go in fixed blocks of 4 that
// the compiler turns into one vector operation each.
inline constexpr size_t kClockBlock = 4;

// Rows of T sharing one stride (the thread capacity), zero-initialised. Rows grow
// geometrically; the stride grows when a thread id beyond it appears (rare: the data is copied
// row by row). No allocation once the trace's threads and names have been seen.
template <class T>
class ClockRows {
 public:
  T* row(size_t r) { return data_.data() + r * stride_; }
  const T* row(size_t r) const { return data_.data() + r * stride_; }
  size_t rows() const { return rows_; }
  size_t stride() const { return stride_; }

  // Makes rows [0, n) valid (new rows are zero / default).
  void ensure_rows(size_t n) {
    if (n <= rows_) return;
    const size_t grown = std::max<size_t>({n, rows_ + rows_ / 2, 16});
    data_.resize(grown * stride_);
    rows_ = grown;
  }
  void set_stride(size_t stride) {
    if (stride == stride_) return;
    std::vector<T> data(rows_ * stride);
    const size_t keep = std::min(stride, stride_);
    for (size_t r = 0; r < rows_; ++r)
      std::copy(data_.begin() + r * stride_, data_.begin() + r * stride_ + keep,
                data.begin() + r * stride);
    data_.swap(data);
    stride_ = stride;
  }

 private:
  std::vector<T> data_;
  size_t rows_ = 0;
  size_t stride_ = kClockBlock;
};

// dst = dst ⊔ src over n entries (n a multiple of kClockBlock): sync(V, V') of the papers.
inline void join_clocks(Clock* dst, const Clock* src, size_t n) {
  for (size_t j = 0; j < n; j += kClockBlock)
    for (size_t k = 0; k < kClockBlock; ++k) dst[j + k] = std::max(dst[j + k], src[j + k]);
}
// dst = src over n entries.
inline void copy_clock(Clock* dst, const Clock* src, size_t n) {
  for (size_t j = 0; j < n; j += kClockBlock)
    for (size_t k = 0; k < kClockBlock; ++k) dst[j + k] = src[j + k];
}
// True iff some a[j] > th[j]: the access recorded in a[j] is not happens-before the holder of
// th. Branch-free over the whole stride so that the compiler vectorises it.
inline bool any_unordered(const Clock* a, const Clock* th, size_t n) {
  unsigned bad = 0;
  for (size_t j = 0; j < n; j += kClockBlock)
    for (size_t k = 0; k < kClockBlock; ++k) bad |= static_cast<unsigned>(a[j + k] > th[j + k]);
  return bad != 0;
}
// True iff a <= snap in every entry but `own` (a snapshot of a thread's clock taken before
// stays valid for it while only its own entry grew). a[own] is restored before returning.
inline bool dominated_but_own(Clock* a, const Clock* snap, size_t own, size_t n) {
  const Clock saved = a[own];
  a[own] = snap[own];
  const bool within = !any_unordered(a, snap, n);
  a[own] = saved;
  return within;
}

}  // namespace racepred

namespace racepred {

// Ids handed out and given back (a free list): an id given back is handed out again before a
// new one, so the ids in use stay below the most ever in use at once.
class IdRecycler {
 public:
  // A given-back id, or the next new one (then used() grew: the caller makes room for it).
  uint32_t take() {
    if (!free_.empty()) {
      const uint32_t r = free_.back();
      free_.pop_back();
      return r;
    }
    return used_++;
  }
  void give_back(uint32_t r) { free_.push_back(r); }
  // Ids ever handed out.
  uint32_t used() const { return used_; }
  // Ids handed out and not given back.
  size_t in_use() const { return used_ - free_.size(); }

 private:
  std::vector<uint32_t> free_;
  uint32_t used_ = 0;
};

// Rows of one stride handed out and given back (a free list): per-variable state that needs a
// full row only while several threads' accesses can still race takes one from the pool and
// returns it when it shrinks again, so memory follows what is live, not variables × threads.
// A row's contents are whatever its last user left.
template <class T>
class RowPool {
 public:
  uint32_t allocate() {
    const uint32_t r = ids_.take();
    rows_.ensure_rows(ids_.used());
    return r;
  }
  void release(uint32_t r) { ids_.give_back(r); }
  T* row(uint32_t r) { return rows_.row(r); }
  const T* row(uint32_t r) const { return rows_.row(r); }
  void set_stride(size_t stride) { rows_.set_stride(stride); }
  size_t stride() const { return rows_.stride(); }
  // Rows handed out and not given back.
  size_t in_use() const { return ids_.in_use(); }

 private:
  ClockRows<T> rows_;
  IdRecycler ids_;
};

}  // namespace racepred
