// The lecture's online HB race-location algorithms (seed 001, "Race pairs versus race
// locations" to "FastTrack - Semi adaptive"; seed 004, FastTrack with fork/join):
//   djit        VC_RaceLoc with the O(1) update Wv(x)(i) = Th(i)(i) (VC_RaceLoc_Optimized)
//   hb-epochs   VC_RaceLoc_epochs: sets of epochs We(x), Re(x)
//   hb-adaptive Adaptive_Epoch (hb_adaptive.cpp)
//   fasttrack   FastTrack style, semi-adaptive (hb_adaptive.cpp)
// docs/ENGINES.md explains relation, guarantee and counting rule of each.
#include <string>

#include "racepred/engines/hb_location_common.hpp"

namespace racepred {
namespace hbloc {

std::string show_vc(const Clock* vc, size_t n) {
  std::string s = "[";
  for (size_t j = 0; j < n; ++j) {
    if (j) s += ',';
    s += std::to_string(vc[j]);
  }
  return s + ']';
}

std::string show_vc_epochs(const Clock* vc, size_t n) {
  std::string s = "[";
  for (size_t j = 0; j < n; ++j) {
    if (vc[j] == 0) continue;
    if (s.size() > 1) s += ',';
    s += Epoch(static_cast<ThreadId>(j), vc[j]).to_string();
  }
  return s + ']';
}

std::string show_epoch(Epoch e, const char* bottom) {
  return e.is_bottom() ? std::string(bottom) : e.to_string();
}

namespace {

// Algorithm VC_RaceLoc_Optimized (seed 001): Wv(x), Rv(x) are vector clocks; a read or write
// updates only its own entry, Wv(x)(i) = Th(i)(i), which the lecture proves equivalent to
// Wv(x) = sync(Wv(x), Th(i)). So Wv(x)(j) is the clock of thread j's last write of x. Next to
// each entry we keep the access that set it, to name the partner of a race.
//   read(i,x):  Rv(x)(i) = Th(i)(i); if !(Wv(x) < Th(i)) the read is racy
//   write(i,x): if !(Rv(x) < Th(i)) or !(Wv(x) < Th(i)) the write is racy; Wv(x)(i) = Th(i)(i)
// Pairs reported at a racy access e: (last write of thread j, e) for every thread j whose last
// write is not HB-before e, and for a write also (last read of thread j, e) likewise.
class Djit final : public LocationEngine<Djit> {
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

std::unique_ptr<Engine> make_djit(EngineContext& context) {
  return std::make_unique<Djit>(context);
}
std::unique_ptr<Engine> make_hb_epochs(EngineContext& context) {
  return std::make_unique<HbEpochs>(context);
}

}  // namespace hbloc

void register_hb_location_engines(std::vector<EngineInfo>& out) {
  const std::string hb_guarantee =
      "HB with fork/join; racy events: exactly the accesses with an earlier conflicting access "
      "not HB-before them; the first race is real, later ones may be false positives; misses "
      "races that need reordering critical sections";
  out.push_back(EngineInfo{
      "djit",
      "VC_RaceLoc with the O(1) update Wv(x)(i) = Th(i)(i) (DJIT+ style): last read/write clock "
      "of every thread per variable; pairs with each thread's latest unordered access",
      hb_guarantee,
      "001: 'Race pairs versus race locations' (VC_RaceLoc), 'Optimization - Update time stamp "
      "instead of full synchronization'",
      EngineMode::Online, hbloc::make_djit});
  out.push_back(EngineInfo{
      "hb-epochs",
      "VC_RaceLoc_epochs: sets of epochs of concurrent writes/reads per variable; reports "
      "race pairs with the epochs in the sets",
      hb_guarantee,
      "001: 'Optimization - Epochs (thread id + time stamp) instead of vector clocks'",
      EngineMode::Online, hbloc::make_hb_epochs});
  out.push_back(EngineInfo{
      "hb-adaptive",
      "Adaptive_Epoch: W(x) and R(x) switch between an epoch and a vector clock (fully "
      "adaptive)",
      hb_guarantee, "001: 'Adaptive approach' (Algorithm Adaptive_Epoch, with the errata)",
      EngineMode::Online, hbloc::make_hb_adaptive});
  out.push_back(EngineInfo{
      "fasttrack",
      "FastTrack style: single write epoch, read epoch that turns into a vector clock on "
      "concurrent reads (semi-adaptive), fork/join as in seed 004",
      "HB with fork/join; racy events are a subset of djit's with the same first racy event "
      "per variable (only the last write is remembered); the first race is real, later ones "
      "may be false positives",
      "001: 'FastTrack - Semi adaptive'; 004: 'Vector clock based race detector a la "
      "FastTrack'",
      EngineMode::Online, hbloc::make_fasttrack});
}

}  // namespace racepred
