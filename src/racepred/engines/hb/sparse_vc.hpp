// Per-variable vector clocks that follow the threads that accessed the variable: a
// clock V with the access behind each entry, stored as the entries (thread j, V(j), access) of
// the threads with V(j) != 0, sorted by thread — two inline, then in rows of 4, 8, 16, …
// entries from pools (one per capacity), and as a full row of a VcPool only once the next
// capacity would reach the thread capacity (the stride). djit keeps Wv(x), Rv(x) so; fasttrack's
// shared read clocks and hb-adaptive's clocks do once the thread capacity reaches
// EngineOptions::sparse_vc_threads (below it they keep their full rows: one index per access, no
// search). Visiting the entries in thread order gives the reports of a full row in the same order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "racepred/clock/rows.hpp"
#include "racepred/engines/hb/location_engine.hpp"

namespace racepred::hbloc {

class SparseVcs {
 public:
  static constexpr uint32_t kInline = 2;
  static constexpr uint8_t kClasses = 20;          // sparse rows of 4, 8, …, 2^21 entries
  static constexpr uint8_t kDense = kClasses + 1;  // size class of a full row
  struct Entry {
    Clock k = 0;
    ThreadId j = 0;
    Partner who;
  };
  // n entries sorted by thread, inline (cls 0) or in a row of sparse_[cls - 1]; cls kDense: the
  // VcPool's row `row`, indexed by thread, and n its non-zero entries.
  // A large V (track_class() and up) marks the locations of its accesses (marks_, shared by every
  // V of the store): `repeats` once a location was marked before, so while it is false the
  // accesses of V are at distinct locations that no other large V holds (count_unordered).
  struct Vc {
    Entry inline_entries[kInline];
    uint32_t n = 0;
    uint32_t row = 0;
    uint8_t cls = 0;
    bool repeats = false;
    bool bulk = false;       // large and !repeats: countable (one test on the common path)
    bool small_row = false;  // a full row made while the stride was small: marks nothing yet
  };
  // V is large from rows of `entries` entries on (EngineOptions::bulk_count_from).
  void large_from(uint64_t entries) {
    track_class_ = 1;
    while (track_class_ < kDense && capacity(track_class_) < entries) ++track_class_;
  }
  uint8_t track_class() const { return track_class_; }

  SparseVcs() {
    for (uint32_t c = 0; c < kClasses; ++c) sparse_[c].set_stride(capacity(c + 1));
  }

  bool dense(const Vc& v) const { return v.cls == kDense; }
  const Entry* entries(const Vc& v) const {
    return v.cls == 0 ? v.inline_entries : sparse_[v.cls - 1].row(v.row);
  }
  const Clock* clocks(const Vc& v) const { return pool_.clocks(v.row); }
  const Partner* who(const Vc& v) const {
    return const_cast<VcPool&>(pool_).who(v.row);  // VcPool has no const who()
  }
  // True when the stride reaches the size of a large V: the engine then promotes its full rows.
  bool set_stride(size_t stride) {
    const bool was = pool_.stride() >= capacity(track_class_);
    pool_.set_stride(stride);
    return !was && stride >= capacity(track_class_);
  }
  // A full row made while the stride was small marks its locations from now on.
  void promote(Vc& v) {
    if (v.cls != kDense || !v.small_row) return;
    v.small_row = false;
    v.repeats = false;
    const Clock* c = pool_.clocks(v.row);
    const Partner* who = pool_.who(v.row);
    for (size_t j = 0; j < pool_.stride(); ++j)
      if (c[j] != 0) v.repeats |= mark(who[j].location);
    v.bulk = !v.repeats;
  }

  // True iff some V(j) > th[j].
  bool any_unordered(const Vc& v, const Clock* th, size_t stride) const {
    if (v.cls == kDense) return racepred::any_unordered(pool_.clocks(v.row), th, stride);
    const Entry* d = entries(v);
    for (uint32_t q = 0; q < v.n; ++q)
      if (d[q].k > th[d[q].j]) return true;
    return false;
  }

  // V(i) = k, remembering the access.
  void set(Vc& v, ThreadId i, Clock k, Partner who, size_t stride) {
    if (v.cls == kDense) {
      Clock& c = pool_.clocks(v.row)[i];
      v.n += c == 0;
      c = k;
      pool_.who(v.row)[i] = who;
      if (v.bulk) [[unlikely]]
        mark_one(v, who.location);
      return;
    }
    if (v.bulk) [[unlikely]]
      mark_one(v, who.location);
    Entry* d = entries(v);
    uint32_t q = 0;
    if (v.n <= 16) [[likely]] {
      while (q < v.n && d[q].j < i) ++q;
    } else {
      q = static_cast<uint32_t>(
          std::lower_bound(d, d + v.n, i, [](const Entry& a, ThreadId t) { return a.j < t; }) - d);
    }
    if (q < v.n && d[q].j == i) {
      d[q].k = k;
      d[q].who = who;
      return;
    }
    if (v.n == capacity(v.cls)) [[unlikely]] {
      enlarge(v, Entry{k, i, who}, stride);
      return;
    }
    for (uint32_t p = v.n; p > q; --p) d[p] = d[p - 1];
    d[q] = Entry{k, i, who};
    ++v.n;
  }

  // V = the non-zero entries of a full row c (n entries) with their accesses `who`.
  void assign(Vc& v, const Clock* c, const Partner* who, size_t n, size_t stride) {
    clear(v);
    for (size_t j = 0; j < n; ++j)
      if (c[j] != 0) set(v, static_cast<ThreadId>(j), c[j], who[j], stride);
  }

  // V = 0; its rows go back to the pools.
  void clear(Vc& v) {
    if (v.cls == kDense)
      pool_.release(v.row);
    else if (v.cls > 0)
      sparse_[v.cls - 1].release(v.row);
    v.cls = 0;
    v.n = 0;
    v.repeats = false;
    v.bulk = false;
    v.small_row = false;
  }

  // Whether count_unordered can count V's entries not HB-before Th(i) without visiting them.
  static bool countable(const Vc& v) { return v.bulk; }
  // Entries of V with V(j) > th[j], for th whose non-zero entries are all in `nonzeros`: every
  // entry but those nonzeros point to (V(j) >= 1 for every entry).
  uint64_t count_unordered(const Vc& v, const Clock* th, std::span<const uint32_t> nonzeros) const {
    uint64_t ordered = 0;
    if (v.cls == kDense) {
      const Clock* c = pool_.clocks(v.row);
      for (const uint32_t j : nonzeros) ordered += c[j] != 0 && c[j] <= th[j];
    } else {
      const Entry* d = entries(v);
      for (const uint32_t j : nonzeros) {
        const Entry* p =
            std::lower_bound(d, d + v.n, j, [](const Entry& a, ThreadId t) { return a.j < t; });
        ordered += p != d + v.n && p->j == j && p->k <= th[j];
      }
    }
    return v.n - ordered;
  }
  // Entries of V (non-zero entries of a full row).
  static uint32_t size(const Vc& v) { return v.n; }

  // V's entries into c (zeroed by the caller, at least `stride` entries).
  void unpack(const Vc& v, Clock* c, size_t stride) const {
    if (v.cls == kDense) {
      std::copy(pool_.clocks(v.row), pool_.clocks(v.row) + stride, c);
      return;
    }
    const Entry* d = entries(v);
    for (uint32_t q = 0; q < v.n; ++q) c[d[q].j] = d[q].k;
  }

 private:
  static constexpr uint32_t capacity(uint32_t cls) { return kInline << cls; }
  Entry* entries(Vc& v) { return v.cls == 0 ? v.inline_entries : sparse_[v.cls - 1].row(v.row); }
  // Marks location l; true if it was marked before.
  bool mark(LocationId l) {
    if (l >= marks_.size()) marks_.resize(std::max<size_t>(size_t{l} + 1, marks_.size() * 2));
    const bool was = marks_[l] != 0;
    marks_[l] = 1;
    return was;
  }
  // (A V with repeats marks no more: its own entries decide only its own count.)
  [[gnu::noinline]] void mark_one(Vc& v, LocationId l) {
    v.repeats |= mark(l);
    v.bulk = !v.repeats;
  }
  // V reaches track_class(): the locations of its entries are marked.
  void mark_all(Vc& v, const Entry* d, uint32_t n) {
    for (uint32_t q = 0; q < n; ++q) v.repeats |= mark(d[q].who.location);
  }

  // V is full: the next size class (the new entry inserted), or a full row once the sparse
  // form would be as large as the thread capacity.
  [[gnu::noinline]] void enlarge(Vc& v, const Entry& fresh, size_t stride) {
    const Entry* old = entries(v);
    const uint8_t next = static_cast<uint8_t>(v.cls + 1);
    if (next <= kClasses && capacity(next) < stride) {
      const uint32_t row = sparse_[next - 1].allocate();
      Entry* d = sparse_[next - 1].row(row);
      uint32_t q = 0, p = 0;
      bool placed = false;
      for (; q < v.n; ++q) {
        if (!placed && old[q].j > fresh.j) {
          d[p++] = fresh;
          placed = true;
        }
        d[p++] = old[q];
      }
      if (!placed) d[p++] = fresh;
      if (v.cls > 0) sparse_[v.cls - 1].release(v.row);
      v.row = row;
      v.cls = next;
      v.n = p;
      if (next == track_class_) {
        mark_all(v, d, p);
        v.bulk = !v.repeats;
      }
      return;
    }
    const uint32_t row = pool_.allocate();
    Clock* c = pool_.clocks(row);
    std::fill(c, c + stride, Clock{0});
    Partner* who = pool_.who(row);
    for (uint32_t q = 0; q < v.n; ++q) {
      c[old[q].j] = old[q].k;
      who[old[q].j] = old[q].who;
    }
    c[fresh.j] = fresh.k;
    who[fresh.j] = fresh.who;
    if (stride < capacity(track_class_)) {
      v.repeats = true;  // a full row of few threads: not counted in bulk (until promote)
      v.small_row = true;
    } else if (v.cls < track_class_) {
      mark_all(v, old, v.n);
      v.repeats |= mark(fresh.who.location);
    }
    if (v.cls > 0) sparse_[v.cls - 1].release(v.row);
    v.row = row;
    v.n += 1;  // (fresh.j had no entry)
    v.cls = kDense;
    v.bulk = !v.repeats;
  }

  RowPool<Entry> sparse_[kClasses];  // sparse clocks of 4 … 2^21 entries
  VcPool pool_;                      // full rows of the clocks with more threads
  std::vector<uint8_t> marks_;       // by location: held by a large V (see Vc)
  uint8_t track_class_ = 7;          // rows of 256 entries
};

// Indices of Vc records handed out and given back (fasttrack's and hb-adaptive's sparse
// clocks live here; a variable keeps the index).
class VcTable {
 public:
  uint32_t allocate() {
    const uint32_t r = ids_.take();
    if (r >= vcs_.size()) vcs_.emplace_back();
    return r;
  }
  void release(uint32_t r) {
    store.clear(vcs_[r]);
    ids_.give_back(r);
  }
  SparseVcs::Vc& operator[](uint32_t r) { return vcs_[r]; }
  const SparseVcs::Vc& operator[](uint32_t r) const { return vcs_[r]; }

  SparseVcs store;

 private:
  std::vector<SparseVcs::Vc> vcs_;
  IdRecycler ids_;
};

}  // namespace racepred::hbloc
