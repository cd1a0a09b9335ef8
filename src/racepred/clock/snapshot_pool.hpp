// Reference-counted clock snapshots with delta and sparse representations: the clocks of
// threads at releases (or writes) that many later events refer to, stored once each.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "racepred/clock/rows.hpp"
#include "racepred/clock/snapshot_options.hpp"
#include "racepred/clock/thread_clocks.hpp"
#include "racepred/clock/vector_clock.hpp"

namespace racepred {

// Clock rows in chunks of kRows rows: growing adds a chunk and never copies the rows already
// there, so a table of many snapshots peaks at its size, not at 2.5× it (ClockRows' geometric
// growth copies everything).
class ChunkedRows {
 public:
  static constexpr size_t kRows = 1024;
  Clock* row(size_t r) { return chunks_[r / kRows].data() + (r % kRows) * stride_; }
  const Clock* row(size_t r) const { return chunks_[r / kRows].data() + (r % kRows) * stride_; }
  size_t stride() const { return stride_; }
  // Makes rows [0, n) valid (new rows are zero).
  void ensure_rows(size_t n) {
    while (chunks_.size() * kRows < n) chunks_.emplace_back(kRows * stride_, Clock{0});
  }
  void set_stride(size_t stride) {
    if (stride == stride_) return;
    const size_t keep = std::min(stride, stride_);
    for (auto& chunk : chunks_) {
      std::vector<Clock> c(kRows * stride, 0);
      for (size_t r = 0; r < kRows; ++r)
        std::copy(chunk.begin() + static_cast<std::ptrdiff_t>(r * stride_),
                  chunk.begin() + static_cast<std::ptrdiff_t>(r * stride_ + keep),
                  c.begin() + static_cast<std::ptrdiff_t>(r * stride));
      chunk.swap(c);
    }
    stride_ = stride;
  }

 private:
  std::vector<std::vector<Clock>> chunks_;
  size_t stride_ = kClockBlock;
};

// Reference-counted clock snapshots (the clock of a thread at a release), shared by everything
// that refers to that release: rule-(a) slots and rule-(b) critical-section lists. One copy per
// release instead of one per slot; snapshots are reused once nothing refers to them.
//
// Delta snapshots (many threads): from `delta_min_stride` (SnapshotOptions, 64) to 1024 slots a
// snapshot may be stored as the entries in which it differs from its thread's next snapshot (its
// base; a bitmap of the differing slots and their values, as 16-bit differences when all fit), not
// as a full row: a thread's consecutive snapshots differ in few entries (tradebeans, 236 threads:
// 47 of 256 on average). The newest snapshot of each thread (its tip) is a full row; when the
// thread takes the next one, the tip, if still referenced, becomes a delta against the new one
// (a reverse delta: the snapshot used most, the tip, stays direct). A base is referenced by its
// deltas, so it lives as long as they do. Every `chain()`-th snapshot of a thread stays a
// full row (a keyframe), and so does one that differs in more than half the entries: row()
// rebuilds a delta snapshot from a full row and at most chain() - 1 deltas. Exact: the
// rebuilt row is the row that was taken, entry for entry.
class SnapshotPool {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  // An entry (slot, value) of a sparse snapshot: ThreadClocks' sparse clocks join it directly.
  using Entry = ThreadClocks::Entry;
  // A new snapshot of `clock` (a row of the pool's stride) taken by thread t, with no reference.
  uint32_t take(const Clock* clock, ThreadId t) {
    const uint32_t s = new_snapshot(t);
    if (sparse_) [[unlikely]] {
      pack(s, clock);
      return s;
    }
    const uint32_t r = row_ids_.take();
    rows_.ensure_rows(row_ids_.used());
    row_[s] = r;
    copy_clock(rows_.row(r), clock, rows_.stride());
    if (rows_.stride() >= delta_min_stride_ && rows_.stride() <= kDeltaMaxStride) [[unlikely]]
      link(s, t);
    return s;
  }
  void ref(uint32_t s) { ++refs_[s]; }
  void unref(uint32_t s) {
    if (s != kNone && --refs_[s] == 0) release(s);
  }
  // Frees a snapshot nothing referred to after all.
  void drop_if_unused(uint32_t s) {
    if (refs_[s] == 0) release(s);
  }
  // The snapshot as a row of the pool's stride. Sparse mode and delta snapshots: a rebuilt
  // copy, valid until the next call of row().
  const Clock* row(uint32_t s) const {
    if (sparse_) [[unlikely]]
      return unpacked(s);
    if (row_[s] == kNone) [[unlikely]]
      return rebuilt(s);
    return rows_.row(row_[s]);
  }
  ThreadId thread(uint32_t s) const { return thread_[s]; }
  // Sparse mode: a new snapshot taken by thread t whose non-zero entries fill(list) appends to
  // the empty `list` (e.g. ThreadClocks::pack_slot: no pass over the stride), with no reference.
  template <class Fill>
  uint32_t take_entries(ThreadId t, Fill fill) {
    const uint32_t s = new_snapshot(t);
    if (s >= packed_.size()) packed_.resize(size_t{s} + 1);
    std::vector<Packed>& p = packed_[s];
    p.clear();
    fill(p);
    if (p.capacity() > 2 * p.size() + 8) p.shrink_to_fit();
    return s;
  }
  // Sparse mode: the non-zero entries of snapshot s, in no particular order (valid while s
  // lives; row() is not needed, nor is its copy invalidated).
  std::span<const Entry> entries(uint32_t s) const { return packed_[s]; }
  // Sparse mode: the slots of the non-zero entries of the row row() handed out last (a join of
  // it can cost those: ThreadClocks::join_into_slot with a list).
  std::span<const uint32_t> row_nonzeros() const { return scratch_nz_; }
  void set_stride(size_t stride) {
    rows_.set_stride(stride);
    if (sparse_) scratch_.resize(stride, 0);
    rebuilt_ = kNone;
  }
  size_t live() const { return refs_.size() - free_.size(); }
  // Snapshots stored as deltas, and full rows in use (tests, measurements).
  size_t deltas() const { return deltas_; }
  size_t full_rows() const { return row_ids_.in_use(); }
  // Sparse snapshots (many threads): each snapshot is the list of its non-zero
  // entries instead of a row of the stride (a thread's clock knows few of 20,000 threads).
  // Engines switch when their clocks do (ThreadClocks::sparse()); every snapshot so far is
  // packed and the rows are freed. Results are the same: row() hands out the same row.
  bool sparse() const { return sparse_; }
  void make_sparse() {
    if (sparse_) return;
    packed_.resize(refs_.size());
    for (uint32_t s = 0; s < refs_.size(); ++s)
      if (row_[s] != kNone || delta_[s] != kNone) pack(s, row(s));
    for (uint32_t s = 0; s < refs_.size(); ++s) {  // no more bases: deltas are packed too
      row_[s] = kNone;
      delta_[s] = kNone;
      const uint32_t b = base_[s];
      base_[s] = kNone;
      if (b != kNone && --refs_[b] == 0) free_.push_back(b);
    }
    deltas_ = 0;
    rebuilt_ = kNone;
    arena_ = Arena();
    row_ids_ = IdRecycler();
    tip_.clear();
    run_.clear();
    const size_t stride = rows_.stride();
    rows_ = ChunkedRows();
    rows_.set_stride(stride);
    scratch_.assign(stride, 0);
    sparse_ = true;
  }

  // Up to 1024 slots: beyond, the engines' clocks go sparse, or (shb) stay dense rows of
  // thousands of entries, where one pass per snapshot costs more than it saves.
  static constexpr size_t kDeltaMaxStride = 1024;
  // `chain`: the most snapshots of a thread in a row of which all but the last are deltas
  // (kChain; shorter where old snapshots are read often: the dc family), unless the options
  // set one.
  static constexpr size_t kChain = 16, kShortChain = 4;
  explicit SnapshotPool(size_t chain = kChain, const SnapshotOptions& options = {})
      : delta_min_stride_(options.delta_min_stride),
        chain_(options.chain != 0 ? options.chain : chain),
        deltas_made_(options.deltas_made) {}
  size_t chain() const { return chain_; }

 private:
  using Packed = Entry;
  uint32_t new_snapshot(ThreadId t) {
    uint32_t s;
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
    } else {
      s = static_cast<uint32_t>(refs_.size());
      refs_.push_back(0);
      thread_.push_back(0);
      row_.push_back(kNone);
      base_.push_back(kNone);
      delta_.push_back(kNone);
    }
    thread_[s] = t;
    if (s == rebuilt_) rebuilt_ = kNone;
    return s;
  }
  void pack(uint32_t s, const Clock* clock) {
    if (s >= packed_.size()) packed_.resize(size_t{s} + 1);
    std::vector<Packed>& p = packed_[s];
    p.clear();
    for (size_t k = 0, n = rows_.stride(); k < n; ++k)
      if (clock[k] != 0) p.push_back(Packed{static_cast<uint32_t>(k), clock[k]});
    if (p.capacity() > 2 * p.size() + 8) p.shrink_to_fit();
  }
  [[gnu::noinline]] const Clock* unpacked(uint32_t s) const {
    for (const uint32_t k : scratch_nz_) scratch_[k] = 0;
    scratch_nz_.clear();
    for (const Packed& e : packed_[s]) {
      scratch_[e.slot] = e.value;
      scratch_nz_.push_back(e.slot);
    }
    return scratch_.data();
  }

  // ---- Delta snapshots ----
  // A delta, in words of `arena_`: [words | kNarrow][size][bitmap: words][values: one per set
  // bit, uint32, or with kNarrow the uint16 difference base - value (mod 2^32), two a word].
  static constexpr uint32_t kNarrow = uint32_t{1} << 31;
  static uint32_t load32(const unsigned char* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static uint16_t load16(const unsigned char* p) {
    uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  // Deltas in chunks of words handed out and given back by size (no allocation per delta).
  class Arena {
   public:
    static constexpr size_t kChunk = size_t{1} << 18;
    uint32_t allocate(size_t words) {
      if (words < free_.size() && !free_[words].empty()) {
        const uint32_t at = free_[words].back();
        free_[words].pop_back();
        return at;
      }
      if (chunks_.empty() || used_ + words > kChunk) {
        chunks_.emplace_back(new uint32_t[kChunk]);
        used_ = 0;
      }
      const size_t at = (chunks_.size() - 1) * kChunk + used_;
      used_ += words;
      return static_cast<uint32_t>(at);
    }
    void release(uint32_t at, size_t words) {
      if (words >= free_.size()) free_.resize(std::max(words + 1, free_.size() * 3 / 2));
      free_[words].push_back(at);
    }
    uint32_t* at(uint32_t a) { return chunks_[a / kChunk].get() + a % kChunk; }
    const uint32_t* at(uint32_t a) const { return chunks_[a / kChunk].get() + a % kChunk; }

   private:
    std::vector<std::unique_ptr<uint32_t[]>> chunks_;
    size_t used_ = 0;
    std::vector<std::vector<uint32_t>> free_;  // by size
  };

  // s (full, just taken by t) becomes t's tip; the previous tip, if referenced and not a
  // keyframe, becomes a delta against s.
  [[gnu::noinline]] void link(uint32_t s, ThreadId t) {
    if (t >= tip_.size()) {
      tip_.resize(std::max<size_t>(size_t{t} + 1, tip_.size() * 3 / 2), kNone);
      run_.resize(tip_.size(), 0);
    }
    const uint32_t p = tip_[t];
    tip_[t] = s;
    if (p == kNone) return;
    if (run_[t] + 1 >= chain() || !encode(p, s)) {  // p stays a full row: a keyframe
      run_[t] = 0;
      return;
    }
    ++run_[t];
  }
  // Stores p as a delta against s (both full rows); false (nothing changed) when p differs
  // from s in more than half the entries.
  bool encode(uint32_t p, uint32_t s) {
    const size_t n = rows_.stride();
    const Clock* a = rows_.row(row_[p]);
    const Clock* b = rows_.row(row_[s]);
    // The bitmap of the differing entries and their count; narrow iff every difference b - a
    // (zero where equal) fits in 16 bits.
    const size_t words = (n + 31) / 32;
    masks_.resize(words);
    uint32_t count = 0;
    Clock high = 0;
    for (size_t k = 0; k < n; ++k) high |= (b[k] - a[k]) >> 16;
    for (size_t w = 0; w < words; ++w) {
      const size_t k0 = 32 * w, m_n = std::min<size_t>(32, n - k0);
      uint32_t m = 0;
#if defined(__SSE2__)
      if (m_n == 32) {
        for (size_t j = 0; j < 32; j += 4) {
          const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + k0 + j));
          const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + k0 + j));
          const int equal = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(x, y)));
          m |= static_cast<uint32_t>(~equal & 0xF) << j;
        }
      } else
#endif
        for (size_t j = 0; j < m_n; ++j) m |= static_cast<uint32_t>(a[k0 + j] != b[k0 + j]) << j;
      masks_[w] = m;
      count += static_cast<uint32_t>(std::popcount(m));
    }
    const bool narrow = high == 0;
    const size_t size = 2 + words + (narrow ? (count + 1) / 2 : count);
    if (2 * size_t{count} > n || size > Arena::kChunk) return false;
    const uint32_t at = arena_.allocate(size);
    uint32_t* d = arena_.at(at);
    d[0] = static_cast<uint32_t>(words) | (narrow ? kNarrow : 0);
    d[1] = static_cast<uint32_t>(size);
    std::copy(masks_.begin(), masks_.end(), d + 2);
    auto* out = reinterpret_cast<unsigned char*>(d + 2 + words);
    for (size_t w = 0; w < words; ++w)
      for (uint32_t m = masks_[w]; m != 0; m &= m - 1) {
        const size_t k = 32 * w + static_cast<size_t>(std::countr_zero(m));
        if (narrow) {
          const uint16_t v = static_cast<uint16_t>(b[k] - a[k]);
          std::memcpy(out, &v, 2);
          out += 2;
        } else {
          std::memcpy(out, &a[k], 4);
          out += 4;
        }
      }
    row_ids_.give_back(row_[p]);
    row_[p] = kNone;
    delta_[p] = at;
    base_[p] = s;
    ++refs_[s];
    ++deltas_;
    if (deltas_made_ != nullptr) [[unlikely]]
      deltas_made_->fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  // row(s) of a delta snapshot: its chain's full row, then the deltas back to s.
  [[gnu::noinline]] const Clock* rebuilt(uint32_t s) const {
    const size_t n = rows_.stride();
    if (s == rebuilt_) return delta_scratch_.data();  // (a snapshot's row never changes)
    rebuilt_ = s;
    path_.clear();
    uint32_t f = s;
    for (; row_[f] == kNone; f = base_[f]) path_.push_back(f);
    delta_scratch_.resize(n);
    Clock* out = delta_scratch_.data();
    copy_clock(out, rows_.row(row_[f]), n);
    for (size_t i = path_.size(); i-- > 0;) {
      const uint32_t* d = arena_.at(delta_[path_[i]]);
      const bool narrow = (d[0] & kNarrow) != 0;
      const size_t words = std::min<size_t>(d[0] & ~kNarrow, (n + 31) / 32);
      const uint32_t* bits = d + 2;
      const auto* in = reinterpret_cast<const unsigned char*>(bits + (d[0] & ~kNarrow));
      for (size_t w = 0; w < words; ++w)
        for (uint32_t m = bits[w]; m != 0; m &= m - 1) {
          const size_t k = 32 * w + static_cast<size_t>(std::countr_zero(m));
          if (narrow) {
            out[k] -= load16(in);
            in += 2;
          } else {
            out[k] = load32(in);
            in += 4;
          }
        }
    }
    return out;
  }
  // Nothing refers to s any more: its row or delta is freed, and its base unreferenced. Out of
  // line, so that unref() (a decrement and a test) inlines into the engines.
  [[gnu::noinline]] void release(uint32_t s) {
    for (;;) {
      free_.push_back(s);
      const ThreadId t = thread_[s];
      if (t < tip_.size() && tip_[t] == s) {
        tip_[t] = kNone;
        run_[t] = 0;
      }
      if (row_[s] != kNone) {
        row_ids_.give_back(row_[s]);
        row_[s] = kNone;
        return;
      }
      if (delta_[s] == kNone) return;  // sparse mode
      arena_.release(delta_[s], arena_.at(delta_[s])[1]);
      delta_[s] = kNone;
      --deltas_;
      const uint32_t b = base_[s];
      base_[s] = kNone;
      if (--refs_[b] != 0) return;
      s = b;
    }
  }

  size_t delta_min_stride_;
  size_t chain_;
  std::atomic<size_t>* deltas_made_;
  bool sparse_ = false;
  std::vector<std::vector<Packed>> packed_;  // sparse mode: per snapshot, its non-zero entries
  mutable std::vector<Clock> scratch_;       // sparse mode: row()
  mutable std::vector<uint32_t> scratch_nz_;
  ChunkedRows rows_;    // full rows (dense mode)
  IdRecycler row_ids_;  // rows of rows_ in use
  std::vector<uint32_t> refs_;
  std::vector<ThreadId> thread_;
  std::vector<uint32_t> row_;    // per snapshot: its full row, or kNone (a delta, or free)
  std::vector<uint32_t> base_;   // per delta snapshot: the snapshot it is a delta against
  std::vector<uint32_t> delta_;  // per delta snapshot: its delta in arena_, or kNone
  Arena arena_;
  std::vector<uint32_t> free_;
  std::vector<uint32_t> tip_;  // per thread: its newest snapshot (a full row), or kNone
  std::vector<uint32_t> run_;  // per thread: deltas since its last keyframe
  size_t deltas_ = 0;
  std::vector<uint32_t> masks_;               // encode(): the bitmap
  mutable std::vector<uint32_t> path_;        // rebuilt(): the deltas to apply
  mutable std::vector<Clock> delta_scratch_;  // rebuilt(): the row handed out
  mutable uint32_t rebuilt_ = kNone;          // the snapshot in delta_scratch_
};

}  // namespace racepred
