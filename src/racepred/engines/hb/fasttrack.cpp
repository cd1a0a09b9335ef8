// Adaptive epoch engines of seed 001: Adaptive_Epoch ("hb-adaptive", fully adaptive) and
// FastTrack style ("fasttrack", semi-adaptive; fork/join as in seed 004). Errata applied: an
// epoch j#k is unordered with thread i's current access iff k > Th(i)(j) (the listings print
// `k < Th(i)(j)`), and Adaptive_Epoch's write update assigns Wh(x) (the listing writes Rh(x)).
#include <string>

#include "racepred/engines/hb_location_common.hpp"

namespace racepred::hbloc {
namespace {

// Vector clocks that epochs switch into, with the access behind each entry. A variable keeps
// its row once allocated (reused when it switches again), so memory stays O(V × T).
class VcPool {
 public:
  uint32_t allocate() {
    const uint32_t r = used_++;
    clocks_.ensure_rows(used_);
    who_.ensure_rows(used_);
    return r;
  }
  Clock* clocks(uint32_t r) { return clocks_.row(r); }
  const Clock* clocks(uint32_t r) const { return clocks_.row(r); }
  Partner* who(uint32_t r) { return who_.row(r); }
  void set_stride(size_t stride) {
    clocks_.set_stride(stride);
    who_.set_stride(stride);
  }

 private:
  Rows<Clock> clocks_;
  Rows<Partner> who_;
  uint32_t used_ = 0;
};

inline bool unordered(Epoch e, const Clock* th) {
  return e.clock() > th[e.thread()];
}

// Algorithm Adaptive_Epoch (seed 001). Rh(x), Wh(x) are an epoch or a vector clock.
//   check:  epoch j#k: race pair (j#k, current) if k > Th(i)(j)
//           V:         racy if !(V < Th(i)); we report (access of V(j), current) for each j
//                      with V(j) > Th(i)(j)
//   update: epoch j#k: k > Th(i)(j) ? [j#k, i#Th(i)(i)] : i#Th(i)(i)
//           V:         V < Th(i) ? i#Th(i)(i) : V(i) = Th(i)(i)
// read checks Wh and updates Rh; write checks Wh and Rh and updates Wh. Initially both are
// [0,…,0]; we start from the bottom epoch 0#0 instead, which every access turns into its own
// epoch exactly as the zero vector clock does.
class HbAdaptive final : public LocationEngine<HbAdaptive> {
 public:
  using LocationEngine::LocationEngine;

  void read(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    ensure_variable(x);
    check(h_[2 * x], Op::Write, th, id, e);
    update(h_[2 * x + 1], th, id, e);
  }

  void write(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    ensure_variable(x);
    check(h_[2 * x], Op::Write, th, id, e);
    check(h_[2 * x + 1], Op::Read, th, id, e);
    update(h_[2 * x], th, id, e);
  }

  void set_stride(size_t stride) { pool_.set_stride(stride); }

  std::string show_w(VariableId x, size_t width) const { return show(2 * size_t{x}, width); }
  std::string show_r(VariableId x, size_t width) const { return show(2 * size_t{x} + 1, width); }

 private:
  static constexpr uint32_t kNoRow = UINT32_MAX;
  struct Hybrid {
    Epoch epoch;  // epoch mode: the last access; vc mode: unused
    Partner who;  // the access of `epoch`
    uint32_t row = kNoRow;
    bool vc = false;
  };

  void ensure_variable(size_t x) {
    if (2 * x + 1 >= h_.size()) h_.resize(std::max(2 * x + 2, h_.size() * 3 / 2));
  }
  void check(const Hybrid& h, Op op, const Clock* th, EventId id, const Event& e) {
    if (!h.vc) {
      if (unordered(h.epoch, th)) report(h.who, h.epoch.thread(), op, id, e);
    } else {
      const Clock* v = pool_.clocks(h.row);
      if (any_unordered(v, th, stride())) report_unordered(v, pool_.who(h.row), op, th, id, e);
    }
  }
  void update(Hybrid& h, const Clock* th, EventId id, const Event& e) {
    const ThreadId i = e.thread;
    if (!h.vc) {
      if (unordered(h.epoch, th)) {  // [j#k, i#Th(i)(i)]
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
    } else {
      Clock* v = pool_.clocks(h.row);
      if (!any_unordered(v, th, stride())) {  // V < Th(i): back to an epoch
        h.vc = false;
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
    std::copy(pool_.clocks(h.row), pool_.clocks(h.row) + stride(), c.begin());
    return show_vc_epochs(c.data(), width);
  }

  std::vector<Hybrid> h_;  // 2x: Wh(x), 2x+1: Rh(x)
  VcPool pool_;
};

// Algorithm "FastTrack style" (seed 001; seed 004 for fork/join and the annotated examples).
// Ws(x) is always a single epoch: the last write. Rh(x) is an epoch until two concurrent reads
// meet, then a vector clock for good (semi-adaptive).
//   read(i,x):  race pair (Ws(x), current) if Ws(x) = j#k with k > Th(i)(j)
//               Rh(x) = j#k: k > Th(i)(j) ? [j#k, i#Th(i)(i)] : i#Th(i)(i);  V: V(i) = Th(i)(i)
//   write(i,x): race pair (Ws(x), current) as above; Rh(x) = j#k: race pair if k > Th(i)(j);
//               V: (access of V(j), current) for each j with V(j) > Th(i)(j)
//               Ws(x) = i#Th(i)(i)
// Per variable 16 bytes of epochs, which the checks read, and 24 bytes naming their accesses,
// which the hot path only writes. Rh(x) in vector-clock mode is marked by the thread kShared
// in its epoch, whose clock field is then the row of the vector clock.
class FastTrack final : public LocationEngine<FastTrack> {
 public:
  using LocationEngine::LocationEngine;

  void read(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    Var& v = vars_[x];
    Who& who = who_[x];
    if (unordered(v.w, th)) [[unlikely]]
      report(Partner{who.w_event, who.w_location}, v.w.thread(), Op::Write, id, e);
    const ThreadId i = e.thread;
    if (v.r.thread() != kShared) [[likely]] {
      if (unordered(v.r, th)) [[unlikely]] {
        share(v, who, th, id, e);
      } else {
        v.r = Epoch(i, th[i]);
        who.r_event = id;
        who.r_location = e.location;
      }
    } else {
      pool_.clocks(v.r.clock())[i] = th[i];
      pool_.who(v.r.clock())[i] = Partner{id, e.location};
    }
  }

  void write(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    Var& v = vars_[x];
    Who& who = who_[x];
    if (unordered(v.w, th)) [[unlikely]]
      report(Partner{who.w_event, who.w_location}, v.w.thread(), Op::Write, id, e);
    if (v.r.thread() != kShared) [[likely]] {
      if (unordered(v.r, th)) [[unlikely]]
        report(Partner{who.r_event, who.r_location}, v.r.thread(), Op::Read, id, e);
    } else {
      const Clock* rv = pool_.clocks(v.r.clock());
      if (any_unordered(rv, th, stride()))
        report_unordered(rv, pool_.who(v.r.clock()), Op::Read, th, id, e);
    }
    const ThreadId i = e.thread;
    v.w = Epoch(i, th[i]);
    who.w_event = id;
    who.w_location = e.location;
  }

  void set_stride(size_t stride) { pool_.set_stride(stride); }

  std::string show_w(VariableId x, size_t /*width*/) const {
    return x < vars_.size() ? show_epoch(vars_[x].w, "undefined") : "undefined";
  }
  std::string show_r(VariableId x, size_t width) const {
    if (x >= vars_.size()) return "";
    const Var& v = vars_[x];
    if (v.r.thread() != kShared) return show_epoch(v.r, "");
    std::vector<Clock> c(std::max(width, stride()), 0);
    std::copy(pool_.clocks(v.r.clock()), pool_.clocks(v.r.clock()) + stride(), c.begin());
    return show_vc_epochs(c.data(), width);
  }

 private:
  static constexpr ThreadId kShared = UINT32_MAX;
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

  // Rh(x) = [j#k, i#Th(i)(i)]
  [[gnu::noinline]] void share(Var& v, const Who& who, const Clock* th, EventId id,
                               const Event& e) {
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
};

}  // namespace

std::unique_ptr<Engine> make_hb_adaptive(EngineContext& context) {
  return std::make_unique<HbAdaptive>(context);
}
std::unique_ptr<Engine> make_fasttrack(EngineContext& context) {
  return std::make_unique<FastTrack>(context);
}

}  // namespace racepred::hbloc
