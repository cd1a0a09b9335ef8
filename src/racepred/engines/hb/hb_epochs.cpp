// hb-epochs: the lecture's VC_RaceLoc_epochs (Sulzmann, "Dynamic data race prediction",
// "Optimization - Epochs (thread id + time stamp) instead of vector clocks").
#include <algorithm>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "racepred/engines/hb/location_engine.hpp"

namespace racepred {
namespace hbloc {
namespace {

// Algorithm VC_RaceLoc_epochs (Sulzmann, "Dynamic data race prediction"): We(x), Re(x) are sets of
// epochs of mutually concurrent writes / reads, kept in a flat per-variable array (a set holds at
// most one epoch per thread: the new epoch i#Th(i)(i) replaces thread i's older one, which is
// HB-before it).
//   read(i,x):  Re(x) = {i#Th(i)(i)} ∪ {j#k ∈ Re(x) | k > Th(i)(j)}
//               racy if some j#k ∈ We(x) has k > Th(i)(j)
//   write(i,x): racy if some j#k ∈ Re(x) ∪ We(x) has k > Th(i)(j)
//               We(x) = {i#Th(i)(i)} ∪ {j#k ∈ We(x) | k > Th(i)(j)}
// Pairs reported at e: (the access of epoch j#k, e) for every epoch j#k of We(x) (and, for a
// write, of Re(x)) with k > Th(i)(j) — the lecture's "epochs to identify race pairs".
//
// HbEpochsDense (tests/support/hb_dense.cpp) gives every set a row of thread capacity (the test
// reference); HbEpochs (the registered engine) keeps small sets inline and takes a row of the
// pool only while a set holds more than kInline concurrent accesses.
// The registered hb-epochs: the same sets in the same order, kept inline while they hold at
// most kInline epochs (the common case: accesses ordered by synchronisation leave one epoch),
// in a row of 4, 8, 16, … entries (a pool per capacity: memory follows the epochs a set
// holds, not the thread capacity) while they hold more; the row goes back to its pool when the
// set shrinks again or moves to a larger one. Same reports as HbEpochsDense in the same order
// (tests/properties/representation_property_test.cpp).
class HbEpochs final : public LocationEngine<HbEpochs> {
 public:
  explicit HbEpochs(EngineContext& context) : LocationEngine(context) {
    while (big_class_ < kClasses && capacity(big_class_) < bulk_from()) ++big_class_;
  }

  void read(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    Var& v = vars_[x];
    if ((v.w.large | v.r.large) != 0) [[unlikely]]
      return access_large(v, false, th, id, e);
    check(v.w, Op::Write, th, id, e);
    update(v.r, th, id, e);
  }

  void write(EventId id, const Event& e, const Clock* th) {
    const size_t x = e.target;
    if (x >= vars_.size()) [[unlikely]]
      grow(x);
    Var& v = vars_[x];
    if ((v.w.large | v.r.large) != 0) [[unlikely]]
      return access_large(v, true, th, id, e);
    check(v.r, Op::Read, th, id, e);
    check(v.w, Op::Write, th, id, e);
    update(v.w, th, id, e);
  }

  void set_stride(size_t /*stride*/) {}

  std::string show_w(VariableId x, size_t /*width*/) const { return show(x, false); }
  std::string show_r(VariableId x, size_t /*width*/) const { return show(x, true); }

 private:
  static constexpr uint32_t kInline = 2;
  static constexpr uint32_t kNoRow = UINT32_MAX;
  struct Entry {
    Clock k = 0;
    ThreadId j = 0;
    Partner who;
  };
  struct Set {
    Entry entries[kInline];  // the set while cls == 0
    uint32_t n = 0;
    uint32_t row = kNoRow;  // cls > 0: the row of pools_[cls - 1]
    uint8_t cls = 0;
    bool large = false;  // cls >= big_class_ (one test per access on the common path)
  };
  static constexpr uint8_t kClasses = 31;  // rows of 4 … 2^32 entries (a set: one per thread)
  static constexpr uint64_t capacity(uint32_t cls) { return uint64_t{kInline} << cls; }
  struct Var {
    Set w, r;
  };

  [[gnu::noinline]] void grow(size_t x) { vars_.resize(std::max(x + 1, vars_.size() * 3 / 2)); }
  Entry* data(Set& s) { return s.cls == 0 ? s.entries : pools_[s.cls - 1].row(s.row); }
  const Entry* data(const Set& s) const {
    return s.cls == 0 ? s.entries : pools_[s.cls - 1].row(s.row);
  }

  // An access to a variable with a large set. A set's races are counted in bulk only when they
  // are all of e's races (the other set is empty): the sink needs the locations of one bulk
  // distinct from every other race of e.
  [[gnu::noinline]] void access_large(Var& v, bool write, const Clock* th, EventId id,
                                      const Event& e) {
    const bool counted = sparse_clocks() && counting();
    if (write) {
      if (!(counted && v.r.large && v.w.n == 0 && count_big(v.r, th, id, e)))
        check(v.r, Op::Read, th, id, e);
      if (!(counted && v.w.large && v.r.n == 0 && count_big(v.w, th, id, e)))
        check(v.w, Op::Write, th, id, e);
    } else if (!(counted && v.w.large && count_big(v.w, th, id, e))) {
      check(v.w, Op::Write, th, id, e);
    }
    Set& s = write ? v.w : v.r;
    if (s.large && sparse_clocks())
      update_big(s, th, id, e);
    else
      update(s, th, id, e);
  }
  // (Inlined into read and write as before access_large called them too.)
  [[gnu::always_inline]] void check(const Set& s, Op op, const Clock* th, EventId id,
                                    const Event& e) {
    const Entry* d = data(s);
    for (uint32_t q = 0; q < s.n; ++q)
      if (d[q].k > th[d[q].j]) [[unlikely]]
        report(d[q].who, d[q].j, d[q].k, op, id, e);
  }
  // S = {i#Th(i)(i)} ∪ {j#k ∈ S | k > Th(i)(j)}
  [[gnu::always_inline]] void update(Set& s, const Clock* th, EventId id, const Event& e) {
    Entry* d = data(s);
    uint32_t kept = 0;
    for (uint32_t q = 0; q < s.n; ++q)
      if (d[q].k > th[d[q].j]) d[kept++] = d[q];
    const Entry fresh{th[e.thread], e.thread, Partner{id, e.location}};
    if (s.cls == 0) {
      if (kept < kInline) [[likely]] {
        d[kept] = fresh;
        s.n = kept + 1;
      } else {
        spill(s, kept, fresh);
      }
    } else if (kept < kInline) {  // small again: back inline, the row back to its pool
      std::copy(d, d + kept, s.entries);
      s.entries[kept] = fresh;
      release_row(s);
      s.row = kNoRow;
      s.cls = 0;
      s.large = false;
      s.n = kept + 1;
    } else if (kept < capacity(s.cls)) {
      d[kept] = fresh;
      s.n = kept + 1;
    } else {
      spill(s, kept, fresh);
    }
  }
  // The set's kept epochs and `fresh` do not fit: a row of the next capacity.
  [[gnu::noinline]] void spill(Set& s, uint32_t kept, const Entry& fresh) {
    const uint8_t next = static_cast<uint8_t>(s.cls + 1);
    RowPool<Entry>& pool = pools_[next - 1];
    if (pool.stride() != capacity(next)) pool.set_stride(capacity(next));
    const uint32_t row = pool.allocate();
    Entry* d = pool.row(row);
    const Entry* old = data(s);
    std::copy(old, old + kept, d);
    d[kept] = fresh;
    const bool carry = s.large;  // a large set's index moves along: the positions stay
    if (carry) [[unlikely]]
      moving_ = std::move(big_of(s));
    if (s.cls > 0) release_row(s);
    s.row = row;
    s.cls = next;
    s.large = next >= big_class_;
    s.n = kept + 1;
    if (carry) [[unlikely]]
      big_of(s) = std::move(moving_);
  }

  // Large sets (rows of EngineOptions::bulk_count_from entries and more, sparse clocks): an access
  // finds the members that happen before it from Th(i)'s non-zero entries, through an index by
  // thread, instead of visiting every member. A member dropped from the set becomes a hole (k = 0,
  // never unordered) until the row is compacted, so the members keep their order (the reports too).
  uint8_t big_class_ = 1;  // the first class of large sets
  struct Big {
    bool built = false;
    bool repeats = false;                       // two members may share a location (mark_location)
    uint32_t live = 0;                          // members that are not holes
    std::unordered_map<uint32_t, uint32_t> at;  // thread → position of its member
  };
  Big& big_of(const Set& s) {
    std::vector<Big>& bigs = bigs_[s.cls];
    if (s.row >= bigs.size()) bigs.resize(size_t{s.row} + 1);
    return bigs[s.row];
  }
  void release_row(Set& s) {
    if (s.large) [[unlikely]]
      big_of(s) = Big();
    pools_[s.cls - 1].release(s.row);
  }
  // The index of a large set, built on its first use.
  Big& indexed(const Set& s) {
    Big& b = big_of(s);
    if (b.built) return b;
    b = Big();
    b.built = true;
    const Entry* d = data(s);
    for (uint32_t q = 0; q < s.n; ++q) {
      if (d[q].k == 0) continue;
      b.at[d[q].j] = q;
      ++b.live;
      b.repeats |= mark_location(d[q].who.location);
    }
    return b;
  }
  // Counts the races of e with the members of s in bulk: the members not HB-before e are all
  // of them but those Th(i)'s non-zero entries point to. False: report them one by one.
  [[gnu::noinline]] bool count_big(const Set& s, const Clock* th, EventId id, const Event& e) {
    Big& b = indexed(s);
    if (b.repeats) return false;
    const Entry* d = data(s);
    uint32_t ordered = 0;
    const std::span<const uint32_t> nz = th_nonzeros(e.thread);
    if (nz.size() < s.n) {
      for (const uint32_t j : nz) {
        const auto it = b.at.find(j);
        if (it != b.at.end() && d[it->second].k <= th[j]) ++ordered;
      }
    } else {
      for (uint32_t q = 0; q < s.n; ++q)
        if (d[q].k != 0 && d[q].k <= th[d[q].j]) ++ordered;
    }
    const uint32_t n = b.live - ordered;
    return n == 0 || count_in_bulk(n, id, e);
  }
  [[gnu::noinline]] void update_big(Set& s, const Clock* th, EventId id, const Event& e) {
    Big& b = indexed(s);
    Entry* d = data(s);
    const auto drop = [&](uint32_t q) {
      d[q].k = 0;
      b.at.erase(d[q].j);
      --b.live;
    };
    const std::span<const uint32_t> nz = th_nonzeros(e.thread);
    if (nz.size() < s.n) {
      for (const uint32_t j : nz) {
        const auto it = b.at.find(j);
        if (it != b.at.end() && d[it->second].k <= th[j]) drop(it->second);
      }
    } else {
      for (uint32_t q = 0; q < s.n; ++q)
        if (d[q].k != 0 && d[q].k <= th[d[q].j]) drop(q);
    }
    const Entry fresh{th[e.thread], e.thread, Partner{id, e.location}};
    b.repeats |= mark_location(e.location);
    if (s.n == capacity(s.cls) && b.live < s.n / 2) {  // half holes: close them up
      uint32_t kept = 0;
      for (uint32_t q = 0; q < s.n; ++q)
        if (d[q].k != 0) {
          d[kept] = d[q];
          b.at[d[q].j] = kept++;
        }
      s.n = kept;
    }
    if (s.n < capacity(s.cls)) {
      d[s.n] = fresh;
      b.at[e.thread] = s.n++;
    } else {
      spill(s, s.n, fresh);  // moves b to the new row
      big_of(s).at[e.thread] = s.n - 1;
    }
    ++big_of(s).live;
  }

  std::string show(VariableId x, bool read) const {
    std::vector<Epoch> epochs;
    if (x < vars_.size()) {
      const Set& s = read ? vars_[x].r : vars_[x].w;
      const Entry* d = data(s);
      for (uint32_t q = 0; q < s.n; ++q)
        if (d[q].k != 0) epochs.emplace_back(d[q].j, d[q].k);  // (not a hole of a large set)
    }
    std::sort(epochs.begin(), epochs.end(),
              [](Epoch a, Epoch b) { return a.thread() < b.thread(); });
    std::string str = "{";
    for (const Epoch& ep : epochs) {
      if (str.size() > 1) str += ',';
      str += ep.to_string();
    }
    return str + '}';
  }

  std::vector<Var> vars_;
  RowPool<Entry> pools_[kClasses];       // rows of the sets with more than kInline epochs
  std::vector<Big> bigs_[kClasses + 1];  // by class and row: large sets' indexes
  Big moving_;                           // spill(): the index of the set that moves
};

}  // namespace
}  // namespace hbloc

std::unique_ptr<Engine> make_hb_epochs(EngineContext& context) {
  return std::make_unique<hbloc::HbEpochs>(context);
}

}  // namespace racepred
