// The dense reference forms of the HB engines whose registered form keeps sparse or adaptive
// state: every per-variable clock or epoch set a full row of thread capacity (threads ×
// variables of memory). tests/properties/representation_property_test.cpp proves the registered
// engines report exactly what these do, in the same order, on random traces.
#include <algorithm>
#include <string>
#include <vector>

#include "racepred/engines/hb/location_engine.hpp"
#include "support/hb_dense.hpp"

namespace racepred {
namespace hbloc {
namespace {

// djit (Sulzmann, "Dynamic data race prediction", VC_RaceLoc_Optimized) with Wv(x), Rv(x) as
// full rows; engines/hb/djit.cpp states the rules.
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

// hb-epochs (Sulzmann, "Dynamic data race prediction", VC_RaceLoc_epochs) with We(x), Re(x)
// in full rows of thread capacity; engines/hb/hb_epochs.cpp states the rules.
class HbEpochsDense final : public LocationEngine<HbEpochsDense> {
 public:
  using LocationEngine::LocationEngine;

  void read(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    ensure_variable(x);
    check(2 * x, Op::Write, th, id, e);
    update(2 * x + 1, th, id, e);
  }

  void write(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    ensure_variable(x);
    check(2 * x + 1, Op::Read, th, id, e);
    check(2 * x, Op::Write, th, id, e);
    update(2 * x, th, id, e);
  }

  void set_stride(size_t stride) { sets_.set_stride(stride); }

  std::string show_w(VariableId x, size_t width) const { return show(2 * size_t{x}, width); }
  std::string show_r(VariableId x, size_t width) const { return show(2 * size_t{x} + 1, width); }

 private:
  struct Entry {
    Clock k = 0;
    ThreadId j = 0;
    Partner who;
  };

  void ensure_variable(size_t x) {
    if (2 * x + 1 >= size_.size()) {
      size_.resize(std::max(2 * x + 2, size_.size() * 3 / 2), 0);
      sets_.ensure_rows(size_.size());
    }
  }
  void check(size_t set, Op op, const Clock* th, EventId id, const Event& e) {
    const Entry* s = sets_.row(set);
    for (uint32_t n = size_[set], q = 0; q < n; ++q)
      if (s[q].k > th[s[q].j]) report(s[q].who, s[q].j, s[q].k, op, id, e);
  }
  // S = {i#Th(i)(i)} ∪ {j#k ∈ S | k > Th(i)(j)}
  void update(size_t set, const Clock* th, EventId id, const Event& e) {
    Entry* s = sets_.row(set);
    uint32_t kept = 0;
    for (uint32_t n = size_[set], q = 0; q < n; ++q)
      if (s[q].k > th[s[q].j]) s[kept++] = s[q];
    s[kept++] = Entry{th[e.thread], e.thread, Partner{id, e.location}};
    size_[set] = kept;
  }
  std::string show(size_t set, size_t /*width*/) const {
    std::vector<Epoch> epochs;
    if (set < size_.size())
      for (uint32_t q = 0; q < size_[set]; ++q)
        epochs.emplace_back(sets_.row(set)[q].j, sets_.row(set)[q].k);
    std::sort(epochs.begin(), epochs.end(),
              [](Epoch a, Epoch b) { return a.thread() < b.thread(); });
    std::string s = "{";
    for (const Epoch& ep : epochs) {
      if (s.size() > 1) s += ',';
      s += ep.to_string();
    }
    return s + '}';
  }

  Rows<Entry> sets_;            // row 2x: We(x), row 2x+1: Re(x); at most one entry per thread
  std::vector<uint32_t> size_;  // number of entries of each set
};

}  // namespace
}  // namespace hbloc

std::unique_ptr<Engine> make_djit_dense(EngineContext& context) {
  return std::make_unique<hbloc::DjitDense>(context);
}

std::unique_ptr<Engine> make_hb_epochs_dense(EngineContext& context) {
  return std::make_unique<hbloc::HbEpochsDense>(context);
}

}  // namespace racepred
