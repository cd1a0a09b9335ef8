// djit: the lecture's VC_RaceLoc with the O(1) update (Sulzmann, "Dynamic data race prediction",
// "Race pairs versus race locations", "Optimization - Update time stamp instead of full
// synchronization").
#include <algorithm>
#include <string>
#include <vector>

#include "racepred/engines/hb/location_engine.hpp"
#include "racepred/engines/hb/reference.hpp"
#include "racepred/engines/hb/sparse_vc.hpp"

namespace racepred {
namespace hbloc {
namespace {

// Algorithm VC_RaceLoc_Optimized (Sulzmann, "Dynamic data race prediction"): Wv(x), Rv(x) are
// vector clocks; a read or write updates only its own entry, Wv(x)(i) = Th(i)(i), which the lecture
// proves equivalent to Wv(x) = sync(Wv(x), Th(i)). So Wv(x)(j) is the clock of thread j's last
// write of x. Next to each entry we keep the access that set it, to name the partner of a race.
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

// The registered djit: the same Wv(x), Rv(x), stored per variable as sparse clocks
// (engines/hb/sparse_vc.hpp): memory follows the threads that accessed each variable, not
// variables × threads. The checks visit the entries in thread order, as the full row does, so
// the reports are DjitDense's in the same order
// (tests/properties/representation_property_test.cpp).
class Djit final : public LocationEngine<Djit> {
 public:
  using LocationEngine::LocationEngine;

  void read(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    check_vc(vcs_, vars_[x].w, Op::Write, th, id, e);
    vcs_.set(vars_[x].r, e.thread, th[e.thread], Partner{id, e.location}, stride());
  }

  void write(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    check_vc(vcs_, vars_[x].w, Op::Write, th, id, e);
    check_vc(vcs_, vars_[x].r, Op::Read, th, id, e);
    vcs_.set(vars_[x].w, e.thread, th[e.thread], Partner{id, e.location}, stride());
  }

  void set_stride(size_t stride) { vcs_.set_stride(stride); }

  std::string show_w(VariableId x, size_t width) const { return show(x, false, width); }
  std::string show_r(VariableId x, size_t width) const { return show(x, true, width); }

 private:
  struct Var {
    SparseVcs::Vc w, r;
  };

  [[gnu::noinline]] void grow(size_t x) { vars_.resize(std::max(x + 1, vars_.size() * 3 / 2)); }

  std::string show(VariableId x, bool read, size_t width) const {
    std::vector<Clock> c(std::max(width, stride()), 0);
    if (x < vars_.size()) vcs_.unpack(read ? vars_[x].r : vars_[x].w, c.data(), stride());
    return show_vc(c.data(), width);
  }

  std::vector<Var> vars_;
  SparseVcs vcs_;
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
