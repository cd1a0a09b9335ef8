// fasttrack: the lecture's "FastTrack style" semi-adaptive algorithm (Sulzmann, "Dynamic data race
// prediction", "FastTrack - Semi adaptive"; Sulzmann, "Happens-before and vector clocks" for
// fork/join and the annotated examples). Erratum applied: an epoch j#k is unordered with thread i's
// current access iff k > Th(i)(j).
#include <algorithm>
#include <string>
#include <vector>

#include "racepred/engines/hb/location_engine.hpp"
#include "racepred/engines/hb/sparse_vc.hpp"

namespace racepred {
namespace hbloc {
namespace {

// Algorithm "FastTrack style" (Sulzmann, "Dynamic data race prediction"; Sulzmann, "Happens-before
// and vector clocks" for fork/join and the annotated examples). Ws(x) is always a single epoch: the
// last write. Rh(x) is an epoch until two concurrent reads meet, then a vector clock for good
// (semi-adaptive).
//   read(i,x):  race pair (Ws(x), current) if Ws(x) = j#k with k > Th(i)(j)
//               Rh(x) = j#k: k > Th(i)(j) ? [j#k, i#Th(i)(i)] : i#Th(i)(i);  V: V(i) = Th(i)(i)
//   write(i,x): race pair (Ws(x), current) as above; Rh(x) = j#k: race pair if k > Th(i)(j);
//               V: (access of V(j), current) for each j with V(j) > Th(i)(j)
//               Ws(x) = i#Th(i)(i)
// Per variable 16 bytes of epochs, which the checks read, and 24 bytes naming their accesses,
// which the hot path only writes. Rh(x) in vector-clock mode is marked by the thread kShared
// in its epoch, whose clock field is then the row of the vector clock; from sparse_vc_threads
// threads on, by kSparse, whose clock field is then a sparse clock of vcs_ (sparse_vc.hpp), so
// memory follows the threads that read each variable.
class FastTrack final : public LocationEngine<FastTrack> {
 public:
  explicit FastTrack(EngineContext& context)
      : LocationEngine(context), many_threads_(context.options.sparse_vc_threads) {}

  void read(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    Var& v = vars_[x];
    Who& who = who_[x];
    if (unordered(v.w, th)) [[unlikely]]
      report(Partner{who.w_event, who.w_location}, v.w.thread(), v.w.clock(), Op::Write, id, e);
    const ThreadId i = e.thread;
    if (v.r.thread() < kSparse) [[likely]] {
      if (unordered(v.r, th)) [[unlikely]] {
        share(v, who, th, id, e);
      } else {
        v.r = Epoch(i, th[i]);
        who.r_event = id;
        who.r_location = e.location;
      }
    } else if (v.r.thread() == kShared) {
      pool_.clocks(v.r.clock())[i] = th[i];
      pool_.who(v.r.clock())[i] = Partner{id, e.location};
    } else {
      vcs_.store.set(vcs_[v.r.clock()], i, th[i], Partner{id, e.location}, stride());
    }
  }

  // Past a few ten thousand variables their state no longer fits the caches: the dispatch
  // loop loads it a few events ahead (LocationEngine::prefetching).
  size_t variables() const { return vars_.size(); }
  void prefetch_variable(VariableId x) const {
    if (x < vars_.size()) {
      __builtin_prefetch(&vars_[x], 1);
      __builtin_prefetch(&who_[x], 1);
    }
  }

  void write(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    Var& v = vars_[x];
    Who& who = who_[x];
    if (unordered(v.w, th)) [[unlikely]]
      report(Partner{who.w_event, who.w_location}, v.w.thread(), v.w.clock(), Op::Write, id, e);
    if (v.r.thread() < kSparse) [[likely]] {
      if (unordered(v.r, th)) [[unlikely]]
        report(Partner{who.r_event, who.r_location}, v.r.thread(), v.r.clock(), Op::Read, id, e);
    } else if (v.r.thread() == kShared) {
      const Clock* rv = pool_.clocks(v.r.clock());
      if (any_unordered(rv, th, stride()))
        report_unordered(rv, pool_.who(v.r.clock()), Op::Read, th, id, e);
    } else {
      check_vc(vcs_.store, vcs_[v.r.clock()], Op::Read, th, id, e);
    }
    const ThreadId i = e.thread;
    v.w = Epoch(i, th[i]);
    who.w_event = id;
    who.w_location = e.location;
  }

  void set_stride(size_t stride) {
    if (stride >= many_threads_ && pool_.stride() < many_threads_) to_sparse(stride);
    pool_.set_stride(stride);
    vcs_.store.set_stride(stride);
  }

  std::string show_w(VariableId x, size_t /*width*/) const {
    return x < vars_.size() ? show_epoch(vars_[x].w, "undefined") : "undefined";
  }
  std::string show_r(VariableId x, size_t width) const {
    if (x >= vars_.size()) return "";
    const Var& v = vars_[x];
    if (v.r.thread() < kSparse) return show_epoch(v.r, "");
    std::vector<Clock> c(std::max(width, stride()), 0);
    if (v.r.thread() == kShared)
      std::copy(pool_.clocks(v.r.clock()), pool_.clocks(v.r.clock()) + stride(), c.begin());
    else
      vcs_.store.unpack(vcs_[v.r.clock()], c.data(), stride());
    return show_vc_epochs(c.data(), width);
  }

 private:
  static constexpr ThreadId kShared = UINT32_MAX;
  static constexpr ThreadId kSparse = UINT32_MAX - 1;
  struct Var {
    Epoch w;  // Ws(x); 0#0 = no write yet
    Epoch r;  // Rh(x): an epoch, or kShared#row
  };
  static_assert(sizeof(Var) == 16);
  struct Who {  // the accesses of the epochs w and r
    EventId w_event = kNoEvent;
    EventId r_event = kNoEvent;
    LocationId w_location = 0;
    LocationId r_location = 0;
  };

  [[gnu::noinline]] void grow(size_t x) {
    vars_.resize(std::max(x + 1, vars_.size() * 3 / 2));
    who_.resize(vars_.size());
  }

  // The thread capacity reaches many_threads_: the full rows of the shared read clocks become
  // sparse clocks (the rows still have the old stride, pool_.stride()).
  [[gnu::noinline]] void to_sparse(size_t stride) {
    for (Var& v : vars_) {
      if (v.r.thread() != kShared) continue;
      const uint32_t r = vcs_.allocate();
      vcs_.store.assign(vcs_[r], pool_.clocks(v.r.clock()), pool_.who(v.r.clock()), pool_.stride(),
                        stride);
      v.r = Epoch(kSparse, r);
    }
    pool_ = VcPool();
  }

  // Rh(x) = [j#k, i#Th(i)(i)]
  [[gnu::noinline]] void share(Var& v, const Who& who, const Clock* th, EventId id,
                               const Event& e) {
    if (stride() >= many_threads_) {
      const uint32_t r = vcs_.allocate();
      vcs_.store.set(vcs_[r], v.r.thread(), v.r.clock(), Partner{who.r_event, who.r_location},
                     stride());
      vcs_.store.set(vcs_[r], e.thread, th[e.thread], Partner{id, e.location}, stride());
      v.r = Epoch(kSparse, r);
      return;
    }
    const uint32_t row = pool_.allocate();
    Clock* rv = pool_.clocks(row);
    std::fill(rv, rv + stride(), Clock{0});
    rv[v.r.thread()] = v.r.clock();
    pool_.who(row)[v.r.thread()] = Partner{who.r_event, who.r_location};
    rv[e.thread] = th[e.thread];
    pool_.who(row)[e.thread] = Partner{id, e.location};
    v.r = Epoch(kShared, row);
  }

  std::vector<Var> vars_;
  std::vector<Who> who_;
  VcPool pool_;
  VcTable vcs_;
  size_t many_threads_;  // sparse clocks from this thread capacity on (EngineOptions)
};

}  // namespace
}  // namespace hbloc

std::unique_ptr<Engine> make_fasttrack(EngineContext& context) {
  return std::make_unique<hbloc::FastTrack>(context);
}

}  // namespace racepred
