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

#include "racepred/clock/id_table.hpp"
#include "racepred/clock/thread_clocks.hpp"
#include "racepred/engines/clock_options.hpp"
#include "racepred/engines/dispatch.hpp"
#include "racepred/report/notation.hpp"

namespace racepred {
namespace {

class HbWrRaces final : public DispatchEngine<HbWrRaces>, public Annotator {
 public:
  explicit HbWrRaces(EngineContext& context) : symbols_(context.symbols), sink_(context.sink) {
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
  };

  // Keeps the members that do not happen before C (k > C(j)).
  static void drop_ordered(std::vector<Entry>& set, ClockRef C) {
    set.erase(std::remove_if(set.begin(), set.end(),
                             [&](const Entry& v) { return v.clock <= C.get(v.slot); }),
              set.end());
  }

  // Reports (v, e), or only counts it once the sink keeps no more races (enumerate_ false).
  void report(const Entry& v, Op op, EventId id, const Event& e) {
    if (!enumerate_) {
      sink_.count_race(v.location, Access::of(id, e));
      return;
    }
    sink_.report(Race{Access{v.id, v.thread, v.location, op}, Access::of(id, e), e.target});
    if (annotating_) pairs_.push_back(v.id);
  }

  void access(EventId id, const Event& e) {
    Variable& x = variables_[e.target];
    const ClockRef C = clocks_.view(e.thread);
    drop_ordered(x.R, C);
    drop_ordered(x.W, C);
    const uint32_t slot = clocks_.slot(e.thread);
    const Entry self{e.thread, slot, C[slot], e.location, id};
    enumerate_ = annotating_ || sink_.accepting();
    if (e.op == Op::Read) {
      for (const Entry& v : x.W) report(v, Op::Write, id, e);
      x.R.push_back(self);
    } else {
      for (const Entry& v : x.R) report(v, Op::Read, id, e);
      for (const Entry& v : x.W) report(v, Op::Write, id, e);
      x.W.push_back(self);
    }
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
  bool enumerate_ = true;  // the current access reports its pairs one by one

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
