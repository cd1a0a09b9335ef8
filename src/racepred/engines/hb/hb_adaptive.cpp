// hb-adaptive: the lecture's Adaptive_Epoch (Sulzmann, "Dynamic data race prediction", "Adaptive
// approach"). Errata applied: an epoch j#k is unordered with thread i's current access iff k >
// Th(i)(j) (the listing prints `k < Th(i)(j)`), and the write update assigns Wh(x) (the listing
// writes Rh(x)).
#include <algorithm>
#include <string>
#include <vector>

#include "racepred/engines/hb/location_engine.hpp"
#include "racepred/engines/hb/sparse_vc.hpp"

namespace racepred {
namespace hbloc {
namespace {

// Algorithm Adaptive_Epoch (Sulzmann, "Dynamic data race prediction"). Rh(x), Wh(x) are an epoch or
// a vector clock.
//   check:  epoch j#k: race pair (j#k, current) if k > Th(i)(j)
//           V:         racy if !(V < Th(i)); we report (access of V(j), current) for each j
//                      with V(j) > Th(i)(j)
//   update: epoch j#k: k > Th(i)(j) ? [j#k, i#Th(i)(i)] : i#Th(i)(i)
//           V:         V < Th(i) ? i#Th(i)(i) : V(i) = Th(i)(i)
// read checks Wh and updates Rh; write checks Wh and Rh and updates Wh. Initially both are
// [0,…,0]; we start from the bottom epoch 0#0 instead, which every access turns into its own
// epoch exactly as the zero vector clock does. From sparse_vc_threads threads on, a vector clock is
// a sparse clock of vcs_ (sparse_vc.hpp) instead of a full row: memory follows the threads
// that accessed the variable.
class HbAdaptive final : public LocationEngine<HbAdaptive> {
 public:
  explicit HbAdaptive(EngineContext& context)
      : LocationEngine(context), many_threads_(context.options.sparse_vc_threads) {
    vcs_.store.large_from(bulk_from());
  }

  void read(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    ensure_variable(x);
    check(h_[2 * x], Op::Write, th, id, e, true);
    update(h_[2 * x + 1], th, id, e);
  }

  void write(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    ensure_variable(x);
    // A clock's races are counted in bulk only when they are all of e's (the other is empty).
    check(h_[2 * x], Op::Write, th, id, e, empty(h_[2 * x + 1]));
    check(h_[2 * x + 1], Op::Read, th, id, e, empty(h_[2 * x]));
    update(h_[2 * x], th, id, e);
  }

  void set_stride(size_t stride) {
    if (stride >= many_threads_ && pool_.stride() < many_threads_) to_sparse(stride);
    pool_.set_stride(stride);
    if (vcs_.store.set_stride(stride))
      for (const Hybrid& h : h_)
        if (h.vc && h.sparse) vcs_.store.promote(vcs_[h.row]);
  }

  std::string show_w(VariableId x, size_t width) const { return show(2 * size_t{x}, width); }
  std::string show_r(VariableId x, size_t width) const { return show(2 * size_t{x} + 1, width); }

 private:
  static constexpr uint32_t kNoRow = UINT32_MAX;
  struct Hybrid {
    Epoch epoch;            // epoch mode: the last access; vc mode: unused
    Partner who;            // the access of `epoch`
    uint32_t row = kNoRow;  // vc mode: a row of pool_, or of vcs_ if sparse
    bool vc = false;
    bool sparse = false;
  };

  // The thread capacity reaches many_threads_: the full rows become sparse clocks (the rows
  // still have the old stride, pool_.stride()).
  [[gnu::noinline]] void to_sparse(size_t stride) {
    for (Hybrid& h : h_) {
      if (!h.vc || h.sparse) continue;
      const uint32_t r = vcs_.allocate();
      vcs_.store.assign(vcs_[r], pool_.clocks(h.row), pool_.who(h.row), pool_.stride(), stride);
      h.row = r;
      h.sparse = true;
    }
    pool_ = VcPool();
  }

  void ensure_variable(size_t x) {
    if (2 * x + 1 >= h_.size()) h_.resize(std::max(2 * x + 2, h_.size() * 3 / 2));
  }
  // No access yet (epoch mode with the zero epoch, which nothing is unordered to), or a sparse
  // clock without entries.
  bool empty(const Hybrid& h) const {
    if (!h.vc) return h.epoch.clock() == 0;
    return h.sparse && SparseVcs::size(vcs_[h.row]) == 0;
  }
  // !(V < Th(i)); a large V is compared through Th(i)'s non-zero entries, not entry by entry.
  bool unordered_to(const SparseVcs::Vc& v, const Clock* th, uint32_t slot) const {
    if (v.cls >= vcs_.store.track_class() && sparse_clocks()) [[unlikely]]
      return vcs_.store.count_unordered(v, th, th_nonzeros(slot)) != 0;
    return vcs_.store.any_unordered(v, th, stride());
  }
  void check(const Hybrid& h, Op op, const Clock* th, EventId id, const Event& e, bool alone) {
    if (!h.vc) {
      if (unordered(h.epoch, th)) report(h.who, h.epoch.thread(), h.epoch.clock(), op, id, e);
    } else if (!h.sparse) {
      const Clock* v = pool_.clocks(h.row);
      if (any_unordered(v, th, stride())) report_unordered(v, pool_.who(h.row), op, th, id, e);
    } else {
      check_vc(vcs_.store, vcs_[h.row], op, th, id, e, alone);
    }
  }
  void update(Hybrid& h, const Clock* th, EventId id, const Event& e) {
    const ThreadId i = e.thread;
    if (!h.vc) {
      if (unordered(h.epoch, th)) {  // [j#k, i#Th(i)(i)]
        if (stride() >= many_threads_) {
          h.row = vcs_.allocate();  // epoch mode holds no row
          h.sparse = true;
          SparseVcs::Vc& v = vcs_[h.row];
          vcs_.store.set(v, h.epoch.thread(), h.epoch.clock(), h.who, stride());
          vcs_.store.set(v, i, th[i], Partner{id, e.location}, stride());
          h.vc = true;
          return;
        }
        if (h.row == kNoRow) h.row = pool_.allocate();
        Clock* v = pool_.clocks(h.row);
        std::fill(v, v + stride(), Clock{0});
        v[h.epoch.thread()] = h.epoch.clock();
        pool_.who(h.row)[h.epoch.thread()] = h.who;
        v[i] = th[i];
        pool_.who(h.row)[i] = Partner{id, e.location};
        h.vc = true;
      } else {
        h.epoch = Epoch(i, th[i]);
        h.who = Partner{id, e.location};
      }
    } else if (h.sparse) {
      SparseVcs::Vc& v = vcs_[h.row];
      if (!unordered_to(v, th, e.thread)) {  // V < Th(i): back to an epoch
        h.vc = false;
        vcs_.release(h.row);
        h.row = kNoRow;
        h.sparse = false;
        h.epoch = Epoch(i, th[i]);
        h.who = Partner{id, e.location};
      } else {
        vcs_.store.set(v, i, th[i], Partner{id, e.location}, stride());
      }
    } else {
      Clock* v = pool_.clocks(h.row);
      if (!any_unordered(v, th, stride())) {  // V < Th(i): back to an epoch
        h.vc = false;
        pool_.release(h.row);  // the row serves the next variable that needs one
        h.row = kNoRow;
        h.epoch = Epoch(i, th[i]);
        h.who = Partner{id, e.location};
      } else {
        v[i] = th[i];
        pool_.who(h.row)[i] = Partner{id, e.location};
      }
    }
  }
  std::string show(size_t k, size_t width) const {
    if (k >= h_.size()) return "undefined";
    const Hybrid& h = h_[k];
    if (!h.vc) return show_epoch(h.epoch, "undefined");
    std::vector<Clock> c(std::max(width, stride()), 0);
    if (h.sparse)
      vcs_.store.unpack(vcs_[h.row], c.data(), stride());
    else
      std::copy(pool_.clocks(h.row), pool_.clocks(h.row) + stride(), c.begin());
    return show_vc_epochs(c.data(), width);
  }

  std::vector<Hybrid> h_;  // 2x: Wh(x), 2x+1: Rh(x)
  VcPool pool_;
  VcTable vcs_;
  size_t many_threads_;  // sparse clocks from this thread capacity on (EngineOptions)
};

}  // namespace
}  // namespace hbloc

std::unique_ptr<Engine> make_hb_adaptive(EngineContext& context) {
  return std::make_unique<hbloc::HbAdaptive>(context);
}

}  // namespace racepred
