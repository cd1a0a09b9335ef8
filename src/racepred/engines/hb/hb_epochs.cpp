// hb-epochs: the lecture's VC_RaceLoc_epochs (seed 001, "Optimization - Epochs (thread id +
// time stamp) instead of vector clocks").
#include <algorithm>
#include <string>
#include <vector>

#include "racepred/engines/hb/location_engine.hpp"

namespace racepred {
namespace hbloc {
namespace {

// Algorithm VC_RaceLoc_epochs (seed 001): We(x), Re(x) are sets of epochs of mutually
// concurrent writes / reads, kept in a flat per-variable array (a set holds at most one epoch
// per thread: the new epoch i#Th(i)(i) replaces thread i's older one, which is HB-before it).
//   read(i,x):  Re(x) = {i#Th(i)(i)} ∪ {j#k ∈ Re(x) | k > Th(i)(j)}
//               racy if some j#k ∈ We(x) has k > Th(i)(j)
//   write(i,x): racy if some j#k ∈ Re(x) ∪ We(x) has k > Th(i)(j)
//               We(x) = {i#Th(i)(i)} ∪ {j#k ∈ We(x) | k > Th(i)(j)}
// Pairs reported at e: (the access of epoch j#k, e) for every epoch j#k of We(x) (and, for a
// write, of Re(x)) with k > Th(i)(j) — the lecture's "epochs to identify race pairs".
class HbEpochs final : public LocationEngine<HbEpochs> {
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
      if (s[q].k > th[s[q].j]) report(s[q].who, s[q].j, op, id, e);
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

std::unique_ptr<Engine> make_hb_epochs(EngineContext& context) {
  return std::make_unique<hbloc::HbEpochs>(context);
}

}  // namespace racepred
