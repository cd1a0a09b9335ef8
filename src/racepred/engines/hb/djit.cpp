// djit: the lecture's VC_RaceLoc with the O(1) update (seed 001, "Race pairs versus race
// locations", "Optimization - Update time stamp instead of full synchronization").
#include <algorithm>
#include <string>
#include <vector>

#include "racepred/engines/hb/location_engine.hpp"
#include "racepred/engines/hb/reference.hpp"

namespace racepred {
namespace hbloc {
namespace {

// Algorithm VC_RaceLoc_Optimized (seed 001): Wv(x), Rv(x) are vector clocks; a read or write
// updates only its own entry, Wv(x)(i) = Th(i)(i), which the lecture proves equivalent to
// Wv(x) = sync(Wv(x), Th(i)). So Wv(x)(j) is the clock of thread j's last write of x. Next to
// each entry we keep the access that set it, to name the partner of a race.
//   read(i,x):  Rv(x)(i) = Th(i)(i); if !(Wv(x) < Th(i)) the read is racy
//   write(i,x): if !(Rv(x) < Th(i)) or !(Wv(x) < Th(i)) the write is racy; Wv(x)(i) = Th(i)(i)
// Pairs reported at a racy access e: (last write of thread j, e) for every thread j whose last
// write is not HB-before e, and for a write also (last read of thread j, e) likewise.
//
// DjitDense keeps Wv(x), Rv(x) as full rows (threads × variables: the reference, for tests);
// Djit (the registered engine) keeps the same vector clocks sparse while few threads accessed x.
class DjitDense final : public LocationEngine<DjitDense> {
 public:
  using LocationEngine::LocationEngine;

  void read(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    ensure_variable(x);
    const size_t n = stride();
    const Clock* wv = vc_.row(2 * x);
    if (any_unordered(wv, th, n)) report_unordered(wv, who_.row(2 * x), Op::Write, th, id, e);
    vc_.row(2 * x + 1)[e.thread] = th[e.thread];
    who_.row(2 * x + 1)[e.thread] = Partner{id, e.location};
  }

  void write(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    ensure_variable(x);
    const size_t n = stride();
    Clock* wv = vc_.row(2 * x);
    const Clock* rv = vc_.row(2 * x + 1);
    if (any_unordered(wv, th, n) | any_unordered(rv, th, n)) {
      report_unordered(wv, who_.row(2 * x), Op::Write, th, id, e);
      report_unordered(rv, who_.row(2 * x + 1), Op::Read, th, id, e);
    }
    wv[e.thread] = th[e.thread];
    who_.row(2 * x)[e.thread] = Partner{id, e.location};
  }

  void set_stride(size_t stride) {
    vc_.set_stride(stride);
    who_.set_stride(stride);
  }

  std::string show_w(VariableId x, size_t width) const { return show(2 * size_t{x}, width); }
  std::string show_r(VariableId x, size_t width) const { return show(2 * size_t{x} + 1, width); }

 private:
  void ensure_variable(size_t x) {
    if (2 * x + 1 >= vc_.rows()) {
      vc_.ensure_rows(2 * x + 2);
      who_.ensure_rows(2 * x + 2);
    }
  }
  std::string show(size_t r, size_t width) const {
    std::vector<Clock> c(std::max(width, stride()), 0);
    if (r < vc_.rows()) std::copy(vc_.row(r), vc_.row(r) + stride(), c.begin());
    return show_vc(c.data(), width);
  }

  Rows<Clock> vc_;     // row 2x: Wv(x), row 2x+1: Rv(x) (adjacent: one cache line for 8 threads)
  Rows<Partner> who_;  // the access that set each entry
};

// The registered djit: the same Wv(x), Rv(x), stored per variable as the entries (thread j,
// Wv(x)(j), access) of the threads that accessed x — every other entry is 0 — sorted by thread:
// two inline, then in rows of 4, 8, …, 64 entries from pools (one per capacity), and as a full
// row of the VcPool only once more threads did (and the thread capacity is larger). So memory
// follows the threads that accessed each variable, not variables × threads. The checks visit
// the entries in thread order, as the full row does, so the reports are DjitDense's in the same
// order (tests/properties/representation_property_test.cpp).
class Djit final : public LocationEngine<Djit> {
 public:
  explicit Djit(EngineContext& context) : LocationEngine(context) {
    for (uint32_t c = 0; c < kClasses; ++c) sparse_[c].set_stride(capacity(c + 1));
  }

  void read(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    check(vars_[x].w, Op::Write, th, id, e);
    set(vars_[x].r, th, id, e);
  }

  void write(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    check(vars_[x].w, Op::Write, th, id, e);
    check(vars_[x].r, Op::Read, th, id, e);
    set(vars_[x].w, th, id, e);
  }

  void set_stride(size_t stride) { pool_.set_stride(stride); }

  std::string show_w(VariableId x, size_t width) const { return show(x, false, width); }
  std::string show_r(VariableId x, size_t width) const { return show(x, true, width); }

 private:
  static constexpr uint32_t kInline = 2;
  static constexpr uint8_t kClasses = 5;           // sparse rows of 4, 8, 16, 32, 64 entries
  static constexpr uint8_t kDense = kClasses + 1;  // size class of a full row
  static constexpr uint32_t capacity(uint32_t cls) { return kInline << cls; }
  struct Entry {
    Clock k = 0;
    ThreadId j = 0;
    Partner who;
  };
  // Wv(x) or Rv(x): n entries sorted by thread, inline (cls 0) or in a row of sparse_[cls - 1];
  // cls kDense: the VcPool's row `row`, indexed by thread.
  struct Side {
    Entry inline_entries[kInline];
    uint32_t n = 0;
    uint32_t row = 0;
    uint8_t cls = 0;
  };
  struct Var {
    Side w, r;
  };

  [[gnu::noinline]] void grow(size_t x) { vars_.resize(std::max(x + 1, vars_.size() * 3 / 2)); }
  Entry* entries(Side& s) { return s.cls == 0 ? s.inline_entries : sparse_[s.cls - 1].row(s.row); }
  const Entry* entries(const Side& s) const {
    return s.cls == 0 ? s.inline_entries : sparse_[s.cls - 1].row(s.row);
  }

  void check(const Side& s, Op op, const Clock* th, EventId id, const Event& e) {
    if (s.cls != kDense) [[likely]] {
      const Entry* d = entries(s);
      for (uint32_t q = 0; q < s.n; ++q)
        if (d[q].k > th[d[q].j]) [[unlikely]]
          report(d[q].who, d[q].j, d[q].k, op, id, e);
    } else {
      const Clock* v = pool_.clocks(s.row);
      if (any_unordered(v, th, stride())) report_unordered(v, pool_.who(s.row), op, th, id, e);
    }
  }

  // V(i) = Th(i)(i), remembering the access.
  void set(Side& s, const Clock* th, EventId id, const Event& e) {
    const ThreadId i = e.thread;
    if (s.cls == kDense) {
      pool_.clocks(s.row)[i] = th[i];
      pool_.who(s.row)[i] = Partner{id, e.location};
      return;
    }
    Entry* d = entries(s);
    uint32_t q = 0;
    while (q < s.n && d[q].j < i) ++q;
    if (q < s.n && d[q].j == i) {
      d[q].k = th[i];
      d[q].who = Partner{id, e.location};
      return;
    }
    if (s.n == capacity(s.cls)) [[unlikely]] {
      enlarge(s, th, id, e);
      return;
    }
    for (uint32_t p = s.n; p > q; --p) d[p] = d[p - 1];
    d[q] = Entry{th[i], i, Partner{id, e.location}};
    ++s.n;
  }

  // The side is full: the next size class (the new entry inserted), or a full row once the
  // sparse form would be as large as the thread capacity.
  [[gnu::noinline]] void enlarge(Side& s, const Clock* th, EventId id, const Event& e) {
    const Entry* old = entries(s);
    const uint8_t next = static_cast<uint8_t>(s.cls + 1);
    if (next <= kClasses && capacity(next) < stride()) {
      const uint32_t row = sparse_[next - 1].allocate();
      Entry* d = sparse_[next - 1].row(row);
      uint32_t q = 0, p = 0;
      bool placed = false;
      for (; q < s.n; ++q) {
        if (!placed && old[q].j > e.thread) {
          d[p++] = Entry{th[e.thread], e.thread, Partner{id, e.location}};
          placed = true;
        }
        d[p++] = old[q];
      }
      if (!placed) d[p++] = Entry{th[e.thread], e.thread, Partner{id, e.location}};
      if (s.cls > 0) sparse_[s.cls - 1].release(s.row);
      s.row = row;
      s.cls = next;
      s.n = p;
      return;
    }
    const uint32_t row = pool_.allocate();
    Clock* v = pool_.clocks(row);
    std::fill(v, v + stride(), Clock{0});
    Partner* who = pool_.who(row);
    for (uint32_t q = 0; q < s.n; ++q) {
      v[old[q].j] = old[q].k;
      who[old[q].j] = old[q].who;
    }
    v[e.thread] = th[e.thread];
    who[e.thread] = Partner{id, e.location};
    if (s.cls > 0) sparse_[s.cls - 1].release(s.row);
    s.row = row;
    s.cls = kDense;
    s.n = 0;
  }

  std::string show(VariableId x, bool read, size_t width) const {
    std::vector<Clock> c(std::max(width, stride()), 0);
    if (x < vars_.size()) {
      const Side& s = read ? vars_[x].r : vars_[x].w;
      if (s.cls == kDense) {
        std::copy(pool_.clocks(s.row), pool_.clocks(s.row) + stride(), c.begin());
      } else {
        const Entry* d = entries(s);
        for (uint32_t q = 0; q < s.n; ++q) c[d[q].j] = d[q].k;
      }
    }
    return show_vc(c.data(), width);
  }

  std::vector<Var> vars_;
  RowPool<Entry> sparse_[kClasses];  // sparse sides of 4 … 64 entries
  VcPool pool_;                      // full rows of the sides with more threads
};

}  // namespace
}  // namespace hbloc

std::unique_ptr<Engine> make_djit(EngineContext& context) {
  return std::make_unique<hbloc::Djit>(context);
}

std::unique_ptr<Engine> make_djit_dense(EngineContext& context) {
  return std::make_unique<hbloc::DjitDense>(context);
}

}  // namespace racepred
