// hb-pairs: the "Dynamic data race prediction" notes' algorithm VC_W_R_Races ("Vector clock based
// data race predictor algorithms - Online Approach"): W(x) and R(x) hold the most recent writes and
// reads of x whose vector clocks are pairwise incomparable; an access drops the members that happen
// before it, reports a race with each remaining one it conflicts with, and joins the set.
//
//   read(i,x)   R(x) = {Th(i)} ∪ {V ∈ R(x) | !(V < Th(i))};  W(x) = {V ∈ W(x) | !(V < Th(i))}
//               race (V, Th(i)) for V ∈ W(x)
//   write(i,x)  R(x) = {V ∈ R(x) | !(V < Th(i))};  W(x) = {Th(i)} ∪ {V ∈ W(x) | !(V < Th(i))}
//               race (V, Th(i)) for V ∈ R(x) and for V ∈ W(x), V != Th(i)
//
// Members are stored as epochs j#k (Sulzmann, "Dynamic data race prediction", "Epochs to identify
// race pairs"): V < Th(i) iff k <= Th(i)(j). Two members never come from the same thread, so
// |W(x)|, |R(x)| <= threads. Reports are pairs, a subset of hb's: a write dropped from W(x) by a
// read it happens before is never compared with later accesses (Sulzmann, "Dynamic data race
// prediction": "This pair is not reported by VC_W_R_Races").
#include <algorithm>
#include <span>
#include <unordered_map>

#include "racepred/clock/id_table.hpp"
#include "racepred/clock/large_set.hpp"
#include "racepred/clock/thread_clocks.hpp"
#include "racepred/engines/clock_options.hpp"
#include "racepred/engines/dispatch.hpp"
#include "racepred/report/notation.hpp"

namespace racepred {
namespace {

class HbWrRaces final : public DispatchEngine<HbWrRaces>, public Annotator {
 public:
  explicit HbWrRaces(EngineContext& context)
      : big_from_(context.options.bulk_count_from), symbols_(context.symbols), sink_(context.sink) {
    set_clock_options(clocks_, context.options, context.annotate);
  }

  void before(EventId, const Event& e) {
    clocks_.add_thread(e.thread);
    if (annotating_) {
      pre_.assign(clocks_.view(e.thread));
      pairs_.clear();
      r_was_empty_ = true;
      if (e.is_access() && e.target < variables_.size())
        r_was_empty_ = variables_[e.target].R.empty();
    }
  }
  void read(EventId id, const Event& e) { access(id, e); }
  void write(EventId id, const Event& e) { access(id, e); }
  // Read locks synchronise in after() like every other event (ThreadClocks::apply).
  void read_acquire(EventId, const Event&) {}
  void read_release(EventId, const Event&) {}
  // So do send (C(o) ⊔= Th(t)) and recv (Th(t) ⊔= C(o)).
  void send(EventId, const Event&) {}
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event&) {}
  // Synchronisation (acq, rel, fork, join) and inc(Th(t), t), after the access checks.
  void after(EventId id, const Event& e) {
    clocks_.apply(e);
    if (annotating_) {
      post_.assign(clocks_.view(e.thread));
      if (e.is_access()) pre_clocks_.push_back({id, pre_});
    }
  }

  Annotator* annotator() override { return this; }
  void before_event(EventId, const Event&) override { annotating_ = true; }
  // The paper's VC_W_R_Races tables: pre/post vector clocks, W(x) (and R(x) once x was read)
  // after the event, and the race pairs reported at the event.
  void annotate(EventId id, const Event& e, Annotation& row) override {
    const size_t n = symbols_.threads.size();
    std::string W, R, vcs;
    if (e.is_access()) {
      const Variable& x = variables_[e.target];
      W = set_text(x.W);
      if (!x.R.empty() || !r_was_empty_) R = set_text(x.R);
    }
    for (EventId first : pairs_) {
      if (!vcs.empty()) vcs += ", ";
      vcs += '(';
      vcs += clock_of(first).to_string(n);
      vcs += ", ";
      vcs += pre_.to_string(n);
      vcs += ')';
    }
    row.push_back({"VC_pre_post",
                   pre_.to_string(n) + "_" + event_text(symbols_, e) + "_" + post_.to_string(n)});
    row.push_back({"W(x)", W});
    row.push_back({"R(x)", R});
    row.push_back({"Race pairs", vcs});
    row.push_back({"races", races_text(pairs_, id)});
  }

 private:
  struct Entry {  // an access j#clock
    ThreadId thread;
    uint32_t slot;  // the thread's slot in the clocks (ThreadClocks)
    Clock clock;
    LocationId location;
    EventId id;
  };
  struct Variable {
    std::vector<Entry> W, R;
    uint32_t big_w = 0, big_r = 0;  // large sets: 1 + the index in bigs_ (0: none)
    bool large = false;  // a set may be large: access_large (one test on the common path)
  };

  // Large sets (sparse clocks, the flood of many threads on one variable): an access finds the
  // members that happen before it from the non-zero entries of its clock, through an index by
  // slot, instead of visiting every member. A dropped member becomes a hole (clock 0) until the
  // set is compacted, so the members keep their order (the reports too).
  uint64_t big_from_;  // members from which a set is large (EngineOptions::bulk_count_from)
  struct Big {
    bool repeats = false;  // two members may share a location (marks_)
    uint32_t live = 0;     // members that are not holes
    uint32_t holes = 0;
    std::unordered_map<uint32_t, uint32_t> at;  // slot → position of its member
  };
  // Marks location l as held by a large set; true if it was marked before.
  bool mark(LocationId l) {
    if (l >= marks_.size()) marks_.resize(std::max<size_t>(size_t{l} + 1, marks_.size() * 2));
    const bool was = marks_[l] != 0;
    marks_[l] = 1;
    return was;
  }
  // Members of a set (holes left out).
  uint32_t live(const std::vector<Entry>& set, uint32_t big) const {
    return big ? bigs_[big - 1].live : static_cast<uint32_t>(set.size());
  }
  // The set becomes large: its index is built.
  [[gnu::noinline]] uint32_t make_big(const std::vector<Entry>& set) {
    uint32_t b;
    if (!free_bigs_.empty()) {
      b = free_bigs_.back();
      free_bigs_.pop_back();
    } else {
      b = static_cast<uint32_t>(bigs_.size());
      bigs_.emplace_back();
    }
    Big& g = bigs_[b];
    g = Big();
    for (uint32_t q = 0; q < set.size(); ++q) {
      g.at[set[q].slot] = q;
      g.repeats |= mark(set[q].location);
    }
    g.live = static_cast<uint32_t>(set.size());
    return b + 1;
  }
  // Drops the members of a large set that happen before C (those of C's non-zero entries),
  // then closes the holes when they are half the set; the set stops being large when few
  // members are left.
  [[gnu::noinline]] void drop_ordered_big(std::vector<Entry>& set, uint32_t& big, ClockRef C,
                                          std::span<const uint32_t> nonzeros) {
    Big& g = bigs_[big - 1];
    const auto drop = [&](uint32_t q) {
      set[q].clock = 0;
      g.at.erase(set[q].slot);
      --g.live;
      ++g.holes;
    };
    visit_members_before(set, g.at, C, nonzeros, drop);
    if (g.holes * 2 <= set.size()) return;
    set.erase(std::remove_if(set.begin(), set.end(), [](const Entry& v) { return v.clock == 0; }),
              set.end());
    g.holes = 0;
    if (set.size() < big_from_ / 8) {
      free_bigs_.push_back(big - 1);
      big = 0;
      return;
    }
    g.at.clear();
    for (uint32_t q = 0; q < set.size(); ++q) g.at[set[q].slot] = q;
  }
  void drop(std::vector<Entry>& set, uint32_t& big, ClockRef C, uint32_t slot) {
    if (big == 0) [[likely]] {
      if (set.size() < big_from_ || !clocks_.sparse() || annotating_) [[likely]]
        return drop_ordered(set, C);
      big = make_big(set);
    }
    drop_ordered_big(set, big, C, clocks_.nonzero_slots(slot));
  }
  // Adds `self` to a set.
  void add(std::vector<Entry>& set, uint32_t big, const Entry& self) {
    if (big != 0) [[unlikely]] {
      Big& g = bigs_[big - 1];
      g.at[self.slot] = static_cast<uint32_t>(set.size());
      ++g.live;
      g.repeats |= mark(self.location);
    }
    set.push_back(self);
  }
  // Counts the races of e with every member of `set` (all of e's races) in bulk; false: one by
  // one.
  bool count_big(uint32_t big, EventId id, const Event& e) {
    if (big == 0 || bigs_[big - 1].repeats) return false;
    const uint32_t n = bigs_[big - 1].live;
    return n == 0 || sink_.count_races_in_bulk(n, Access::of(id, e));
  }

  // Keeps the members that do not happen before C (k > C(j)).
  static void drop_ordered(std::vector<Entry>& set, ClockRef C) {
    set.erase(std::remove_if(set.begin(), set.end(),
                             [&](const Entry& v) { return v.clock <= C.get(v.slot); }),
              set.end());
  }

  // Reports (v, e), or only counts it once the sink keeps no more races (enumerate_ false).
  void report(const Entry& v, Op op, EventId id, const Event& e) {
    if (v.clock == 0) [[unlikely]]
      return;  // a hole of a large set
    if (!enumerate_) {
      sink_.count_race(v.location, Access::of(id, e));
      return;
    }
    sink_.report(Race{Access{v.id, v.thread, v.location, op}, Access::of(id, e), e.target});
    if (annotating_) pairs_.push_back(v.id);
  }

  void access(EventId id, const Event& e) {
    Variable& x = variables_[e.target];
    if (x.large) [[unlikely]]
      return access_large(x, id, e);
    const ClockRef C = clocks_.view(e.thread);
    drop_ordered(x.R, C);
    drop_ordered(x.W, C);
    const uint32_t slot = clocks_.slot(e.thread);
    const Entry self{e.thread, slot, C[slot], e.location, id};
    enumerate_ = annotating_ || sink_.accepting();
    std::vector<Entry>* into = &x.W;
    if (e.op == Op::Read) {
      for (const Entry& v : x.W) report(v, Op::Write, id, e);
      into = &x.R;
    } else {
      for (const Entry& v : x.R) report(v, Op::Read, id, e);
      for (const Entry& v : x.W) report(v, Op::Write, id, e);
    }
    into->push_back(self);
    if (into->size() >= big_from_) [[unlikely]]
      x.large = clocks_.sparse() && !annotating_;
  }
  // An access to a variable whose sets may be large (sparse clocks).
  [[gnu::noinline]] void access_large(Variable& x, EventId id, const Event& e) {
    const ClockRef C = clocks_.view(e.thread);
    const uint32_t slot = clocks_.slot(e.thread);
    drop(x.R, x.big_r, C, slot);
    drop(x.W, x.big_w, C, slot);
    const Entry self{e.thread, slot, C[slot], e.location, id};
    enumerate_ = annotating_ || sink_.accepting();
    // Counting, a large set whose members are all of e's races is counted in bulk.
    const bool bulk = !enumerate_ && (x.big_r | x.big_w) != 0 &&
                      (e.op == Op::Read || live(x.R, x.big_r) == 0
                           ? count_big(x.big_w, id, e)
                           : live(x.W, x.big_w) == 0 && count_big(x.big_r, id, e));
    if (e.op == Op::Read) {
      if (!bulk)
        for (const Entry& v : x.W) report(v, Op::Write, id, e);
      add(x.R, x.big_r, self);
    } else {
      if (!bulk) {
        for (const Entry& v : x.R) report(v, Op::Read, id, e);
        for (const Entry& v : x.W) report(v, Op::Write, id, e);
      }
      add(x.W, x.big_w, self);
    }
    if ((x.big_r | x.big_w) == 0 && x.R.size() < big_from_ && x.W.size() < big_from_)
      x.large = false;
  }

  const VectorClock& clock_of(EventId id) const {
    auto it = std::lower_bound(pre_clocks_.begin(), pre_clocks_.end(), id,
                               [](const auto& p, EventId k) { return p.first < k; });
    return it->second;
  }
  // "{ [3,0], [2,2] }" in trace order, "{}" when empty.
  std::string set_text(std::vector<Entry> set) const {
    if (set.empty()) return "{}";
    std::sort(set.begin(), set.end(), [](const Entry& a, const Entry& b) { return a.id < b.id; });
    const size_t n = symbols_.threads.size();
    std::string s = "{ ";
    for (size_t k = 0; k < set.size(); ++k) {
      if (k) s += ", ";
      s += clock_of(set[k].id).to_string(n);
    }
    return s + " }";
  }

  const Symbols& symbols_;
  RaceSink& sink_;
  ThreadClocks clocks_;
  IdTable<Variable> variables_;
  std::vector<Big> bigs_;            // the indexes of large sets
  std::vector<uint32_t> free_bigs_;  // indexes given back
  std::vector<uint8_t> marks_;       // by location: held by a large set
  bool enumerate_ = true;            // the current access reports its pairs one by one

  // Annotation only: pre vector clocks of the accesses (by id), the current event's clocks,
  // partners and whether R(x) was empty before it.
  bool annotating_ = false;
  std::vector<std::pair<EventId, VectorClock>> pre_clocks_;
  VectorClock pre_, post_;
  std::vector<EventId> pairs_;
  bool r_was_empty_ = true;
};

}  // namespace

std::unique_ptr<Engine> make_hb_pairs(EngineContext& context) {
  return std::make_unique<HbWrRaces>(context);
}

}  // namespace racepred
