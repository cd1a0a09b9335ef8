// hb-sets: the set-based race predictor of Sulzmann, "Happens-before and vector clocks" ("Set-based
// race predictor"), the correct-by-construction reference for HB: every thread t keeps the set D(t)
// of events that happen before its next event, Rel(y) is the event set of the last release of lock
// y, W(x) the most recent write to x (undefined at first) and R(x) the most recent mutually
// concurrent reads. An earlier access e is HB-before the current event of t iff e is in D(t).
//
//   e@acq(t,y)      D(t) = D(t) ∪ Rel(y) ∪ {e}
//   e@rel(t,y)      D(t) = D(t) ∪ {e};  Rel(y) = D(t)
//   e@fork(t1,t2)   D(t1) = D(t1) ∪ {e};  D(t2) = D(t1)
//   e@join(t1,t2)   D(t1) = D(t1) ∪ D(t2) ∪ {e}
//   e@write(t,x)    race (W(x),e) if W(x) ∉ D(t); race (r,e) for r ∈ R(x) \ D(t);
//                   D(t) = D(t) ∪ {e};  W(x) = e
//   e@read(t,x)     race (W(x),e) if W(x) ∉ D(t);  R(x) = {e} ∪ (R(x) \ D(t));  D(t) = D(t) ∪ {e}
//
// Read-write locks (docs/ENGINES.md, "Read-write locks"): RelR(y) collects the read releases of y,
// which a later write acquire joins and a read acquire does not:
//
//   e@racq(t,y)     D(t) = D(t) ∪ Rel(y) ∪ {e}
//   e@rrel(t,y)     D(t) = D(t) ∪ {e};  RelR(y) = RelR(y) ∪ D(t)
//   e@acq(t,y)      D(t) = D(t) ∪ Rel(y) ∪ RelR(y) ∪ {e}
//
// Event sets are bit sets over the events' positions, so time and memory grow quadratically:
// a reference for small traces, not a production engine. Only the most recent write is kept
// (Sulzmann, "Happens-before and vector clocks", "Earlier race not detected"), so its pairs are a
// subset of hb's. The positions are those of the run's trace index (an offline engine): reports
// and the annotated view read the events there.
#include <cstdint>

#include "racepred/clock/event_set.hpp"
#include "racepred/clock/id_table.hpp"
#include "racepred/engines/dispatch.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/engines/witness_source.hpp"
#include "racepred/report/notation.hpp"

namespace racepred {
namespace {

class HbSets final : public OfflineEngine,
                     public OfflineAnnotator,
                     public HappensBeforeFirstRaceWitnesses {
 public:
  explicit HbSets(EngineContext& context)
      : OfflineAnnotator(context), symbols_(context.symbols), sink_(context.sink) {}

  void run(const TraceIndex& index) override {
    index_ = &index;
    std::vector<Annotation>& rows = cells(annotating() ? index.size() : 0);
    for (uint32_t k = 0; k < index.size(); ++k) {
      const Event& e = index.event(k);
      const EventId id = index.id(k);
      pos_ = k;
      dispatch_event(*this, id, e);  // the handlers of the online engines' dispatch
      if (annotating()) annotate_event(id, e, rows[k]);
    }
    index_ = nullptr;
  }

  // Every event e has its position pos_ in the index; D = D(t) of its thread.
  void before(EventId, const Event& e) {
    if (annotating()) {
      partners_.clear();
      w_before_ = kUndefined;
      r_before_.clear();
      if (e.is_access() && e.target < variables_.size()) {
        w_before_ = variables_[e.target].W;
        r_before_ = variables_[e.target].R;
      }
    }
  }
  void after(EventId, const Event&) {}
  // e@acq(t,y): D(t) = D(t) ∪ Rel(y) ∪ {e}
  void acquire(EventId, const Event& e) {
    EventSet& D = thread_set(e.thread);
    if (const EventSet* rel = rel_.find(e.target)) D.unite(*rel);
    if (const EventSet* rrel = rrel_.find(e.target)) D.unite(*rrel);
    D.insert(pos_);
  }
  // e@racq(t,y): D(t) = D(t) ∪ Rel(y) ∪ {e}
  void read_acquire(EventId, const Event& e) {
    EventSet& D = thread_set(e.thread);
    if (const EventSet* rel = rel_.find(e.target)) D.unite(*rel);
    D.insert(pos_);
  }
  // e@rrel(t,y): D(t) = D(t) ∪ {e};  RelR(y) = RelR(y) ∪ D(t)
  void read_release(EventId, const Event& e) {
    thread_set(e.thread).insert(pos_);
    rrel_[e.target].unite(thread_set(e.thread));
  }
  // e@send(t,o): D(t) = D(t) ∪ {e};  S(o) = S(o) ∪ D(t)
  void send(EventId, const Event& e) {
    thread_set(e.thread).insert(pos_);
    sent_[e.target].unite(thread_set(e.thread));
  }
  // e@recv(t,o): D(t) = D(t) ∪ S(o) ∪ {e}
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event& e) {
    EventSet& D = thread_set(e.thread);
    if (const EventSet* s = sent_.find(e.target)) D.unite(*s);
    D.insert(pos_);
  }
  // e@rel(t,y): D(t) = D(t) ∪ {e};  Rel(y) = D(t)
  void release(EventId, const Event& e) {
    thread_set(e.thread).insert(pos_);
    rel_[e.target] = thread_set(e.thread);
  }
  // e@fork(t1,t2): D(t1) = D(t1) ∪ {e};  D(t2) = D(t1)
  void fork(EventId, const Event& e) {
    thread_set(e.thread).insert(pos_);
    const EventSet copy = thread_set(e.thread);  // thread_set() may grow the vector
    thread_set(e.target).unite(copy);
  }
  // e@join(t1,t2): D(t1) = D(t1) ∪ D(t2) ∪ {e}
  void join(EventId, const Event& e) {
    const EventSet joined = thread_set(e.target);
    EventSet& D1 = thread_set(e.thread);
    D1.unite(joined);
    D1.insert(pos_);
  }
  // e@write(t,x): race (W(x),e) if W(x) ∉ D(t); race (r,e) for r ∈ R(x) \ D(t);
  //               D(t) = D(t) ∪ {e};  W(x) = e
  void write(EventId, const Event& e) {
    EventSet& D = thread_set(e.thread);
    Variable& x = variable(e.target);
    if (x.W != kUndefined && !D.contains(x.W)) report(x.W, pos_);
    for (size_t r : x.R)
      if (!D.contains(r)) report(r, pos_);
    D.insert(pos_);
    x.W = pos_;
  }
  // e@read(t,x): race (W(x),e) if W(x) ∉ D(t);  R(x) = {e} ∪ (R(x) \ D(t));  D(t) = D(t) ∪ {e}
  void read(EventId, const Event& e) {
    EventSet& D = thread_set(e.thread);
    Variable& x = variable(e.target);
    if (x.W != kUndefined && !D.contains(x.W)) report(x.W, pos_);
    size_t kept = 0;
    for (size_t r : x.R)
      if (!D.contains(r)) x.R[kept++] = r;
    x.R.resize(kept);
    x.R.push_back(pos_);  // positions stay in trace order
    D.insert(pos_);
  }

  Annotator* annotator() override { return this; }
  WitnessSource* witness_source() override { return this; }

 private:
  // D(t) after the event (its event set ES_e), Rel(y) after a release, W(x) and R(x) before an
  // access (the "Happens-before and vector clocks" notes' annotated traces), and the races found at
  // the event.
  void annotate_event(EventId id, const Event& e, Annotation& row) {
    std::string W, R;
    if (e.is_access()) {
      W = w_before_ == kUndefined ? std::string("undefined") : ref(w_before_);
      if (!r_before_.empty()) R = list_text(r_before_);
    }
    row.push_back({"D(t)", set_text(thread_set(e.thread))});
    row.push_back({"Rel(y)", e.op == Op::Release ? set_text(rel_[e.target]) : std::string()});
    if (e.op == Op::ReadRelease) row.push_back({"RelR(y)", set_text(rrel_[e.target])});
    if (e.op == Op::Send) row.push_back({"S(o)", set_text(sent_[e.target])});
    row.push_back({"W(x)", W});
    row.push_back({"R(x)", R});
    row.push_back({"races", races_text(partners_, id)});
  }

  static constexpr size_t kUndefined = SIZE_MAX;
  struct Variable {
    size_t W = kUndefined;
    std::vector<size_t> R;
  };

  EventSet& thread_set(ThreadId t) { return D_[t]; }
  Variable& variable(VariableId x) { return variables_[x]; }
  EventId id_at(size_t pos) const { return index_->id(static_cast<uint32_t>(pos)); }
  const Event& event_at(size_t pos) const { return index_->event(static_cast<uint32_t>(pos)); }
  void report(size_t first, size_t second) {
    const Event& a = event_at(first);
    const Event& b = event_at(second);
    sink_.report(Race{Access::of(id_at(first), a), Access::of(id_at(second), b), b.target});
    if (annotating()) partners_.push_back(id_at(first));
  }
  std::string ref(size_t pos) const { return event_ref_colon(symbols_, id_at(pos), event_at(pos)); }
  // "[0:w(x)_1,0:fork(T1)_2]"
  std::string list_text(const std::vector<size_t>& positions) const {
    std::string out(1, '[');
    for (size_t pos : positions) {
      if (out.size() > 1) out += ',';
      out += ref(pos);
    }
    out += ']';
    return out;
  }
  std::string set_text(const EventSet& s) const {
    std::vector<size_t> positions;
    s.for_each([&](size_t pos) { positions.push_back(pos); });
    return list_text(positions);
  }

  const Symbols& symbols_;
  RaceSink& sink_;
  const TraceIndex* index_ = nullptr;  // during run()
  IdTable<EventSet> D_;                // D(t)
  IdTable<EventSet> rel_;              // Rel(y)
  IdTable<EventSet> rrel_;             // RelR(y)
  IdTable<EventSet> sent_;             // S(o): every send on o and what it knew
  IdTable<Variable> variables_;

  size_t pos_ = 0;  // the current event's position
  size_t w_before_ = kUndefined;
  std::vector<size_t> r_before_;
  std::vector<EventId> partners_;
};

}  // namespace

std::unique_ptr<Engine> make_hb_sets(EngineContext& context) {
  return std::make_unique<HbSets>(context);
}

}  // namespace racepred
