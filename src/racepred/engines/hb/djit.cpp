// djit: the lecture's VC_RaceLoc with the O(1) update (Sulzmann, "Dynamic data race prediction",
// "Race pairs versus race locations", "Optimization - Update time stamp instead of full
// synchronization").
#include <algorithm>
#include <string>
#include <vector>

#include "racepred/engines/hb/location_engine.hpp"
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
// DjitDense (tests/support/hb_dense.cpp) keeps Wv(x), Rv(x) as full rows (the test reference);
// Djit (the registered engine) keeps the same vector clocks sparse while few threads accessed x.
// The registered djit: the same Wv(x), Rv(x), stored per variable as sparse clocks
// (engines/hb/sparse_vc.hpp): memory follows the threads that accessed each variable, not
// variables × threads. The checks visit the entries in thread order, as the full row does, so
// the reports are DjitDense's in the same order
// (tests/properties/representation_property_test.cpp).
class Djit final : public LocationEngine<Djit> {
 public:
  explicit Djit(EngineContext& context) : LocationEngine(context) { vcs_.large_from(bulk_from()); }

  void read(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    check_vc(vcs_, vars_[x].w, Op::Write, th, id, e, true);
    vcs_.set(vars_[x].r, e.thread, th[e.thread], Partner{id, e.location}, stride());
  }

  void write(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    check_vc(vcs_, vars_[x].w, Op::Write, th, id, e, SparseVcs::size(vars_[x].r) == 0);
    check_vc(vcs_, vars_[x].r, Op::Read, th, id, e, SparseVcs::size(vars_[x].w) == 0);
    vcs_.set(vars_[x].w, e.thread, th[e.thread], Partner{id, e.location}, stride());
  }

  void set_stride(size_t stride) {
    if (vcs_.set_stride(stride))
      for (Var& v : vars_) {
        vcs_.promote(v.w);
        vcs_.promote(v.r);
      }
  }

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

}  // namespace racepred
