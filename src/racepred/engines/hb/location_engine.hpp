// Shared machinery of the lecture's online HB race-location engines (Sulzmann, "Dynamic data race
// prediction" "VC_RaceLoc" … "FastTrack - Semi adaptive", Sulzmann, "Happens-before and vector
// clocks" "Vector clock based race detector a la FastTrack"): the thread and lock clocks of the
// clock kit (clock/thread_clocks.hpp), race reporting with the partner access, and the annotated
// view. djit.cpp, hb_epochs.cpp, hb_adaptive.cpp and fasttrack.cpp each add the per-variable state
// of one algorithm.
//
// Clock discipline (the papers'): Th(i) starts as [0,…,1,…,0] (own entry 1) and every event of
// thread i increments Th(i)(i) after it was processed, so an access's epoch is i#Th(i)(i)
// "before processing" and every access has its own epoch. HB includes fork and join (Sulzmann,
// "Happens-before and vector clocks").
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "racepred/clock/rows.hpp"
#include "racepred/clock/thread_clocks.hpp"
#include "racepred/clock/vector_clock.hpp"
#include "racepred/engines/clock_options.hpp"
#include "racepred/engines/dispatch.hpp"
#include "racepred/engines/partner.hpp"
#include "racepred/engines/witness_source.hpp"
#include "racepred/report/notation.hpp"

namespace racepred::hbloc {

template <class T>
using Rows = ClockRows<T>;

// Vector clocks that epochs switch into (hb-adaptive, fasttrack), with the access behind each
// entry. A variable keeps its row once allocated (reused when it switches again).
// Rows given back (release) are handed out again, so the pool holds as many rows as variables
// need at once, not as many as ever needed one.
class VcPool {
 public:
  uint32_t allocate() {
    const uint32_t r = ids_.take();
    clocks_.ensure_rows(ids_.used());
    who_.ensure_rows(ids_.used());
    return r;
  }
  void release(uint32_t r) { ids_.give_back(r); }
  Clock* clocks(uint32_t r) { return clocks_.row(r); }
  const Clock* clocks(uint32_t r) const { return clocks_.row(r); }
  Partner* who(uint32_t r) { return who_.row(r); }
  void set_stride(size_t stride) {
    clocks_.set_stride(stride);
    who_.set_stride(stride);
  }
  size_t stride() const { return clocks_.stride(); }

 private:
  Rows<Clock> clocks_;
  Rows<Partner> who_;
  IdRecycler ids_;
};

// The epoch j#k is not happens-before the holder of th: k > Th(i)(j).
inline bool unordered(Epoch e, const Clock* th) {
  return e.clock() > th[e.thread()];
}

// CRTP base: Derived provides
//   void read(EventId, const Event&, const Clock* th);   // th = Th(i) before the event
//   void write(EventId, const Event&, const Clock* th);
//   void set_stride(size_t);                             // re-layout per-variable clocks
//   std::string show_w(VariableId, size_t width) const;  // W(x) / R(x) in the annotated view
//   std::string show_r(VariableId, size_t width) const;
template <class Derived>
// Every engine on this base has the first-race guarantee of happens-before: its first race is
// witnessed by the happens-before closure (engines/witness_source.hpp).
class LocationEngine : public DispatchEngine<LocationEngine<Derived>>,
                       public Annotator,
                       public HappensBeforeFirstRaceWitnesses {
 public:
  WitnessSource* witness_source() override { return this; }
  explicit LocationEngine(EngineContext& context)
      : bulk_from_(context.options.bulk_count_from),
        symbols_(context.symbols),
        sink_(context.sink) {
    set_clock_options(clocks_, context.options, context.annotate);
  }

  // The handlers of the dispatch base; reads and writes go to Derived with Th(i) and the event
  // with its thread replaced by the thread's slot (ThreadClocks), which Derived uses as the
  // index into clocks and as the thread of its epochs; report() maps slots back to threads.
  // Th(i) of the event's thread is looked up once per event (th_, slot_): acquire and release
  // change it in place, fork and join may move it (a new stride) and look it up again.
  void before(EventId, const Event& e) {
    if (clocks_.add_thread(e.thread)) [[unlikely]]
      derived().set_stride(clocks_.stride());
    slot_ = clocks_.slot(e.thread);
    th_ = clocks_.th_ref(e.thread);
  }
  void read(EventId id, const Event& e) {
    Event s = e;
    s.thread = slot_;
    derived().read(id, s, th_.get());
  }
  void write(EventId id, const Event& e) {
    Event s = e;
    s.thread = slot_;
    derived().write(id, s, th_.get());
  }
  void acquire(EventId, const Event& e) { clocks_.acquire(e.thread, e.target); }
  void release(EventId, const Event& e) { clocks_.release(e.thread, e.target); }
  void read_acquire(EventId, const Event& e) { clocks_.read_acquire(e.thread, e.target); }
  void read_release(EventId, const Event& e) { clocks_.read_release(e.thread, e.target); }
  // send: C(o) ⊔= Th(i), then the tick of after(), as after a release; recv: Th(i) ⊔= C(o).
  void send(EventId, const Event& e) { clocks_.send(e.thread, e.target); }
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event& e) { clocks_.recv(e.thread, e.target); }
  void fork(EventId, const Event& e) {
    if (clocks_.fork(e.thread, e.target)) derived().set_stride(clocks_.stride());
    th_ = clocks_.th_ref(e.thread);
  }
  void join(EventId, const Event& e) {
    if (clocks_.join(e.thread, e.target)) derived().set_stride(clocks_.stride());
    th_ = clocks_.th_ref(e.thread);
  }
  void after(EventId, const Event& e) { increment_clock(th_[slot_], e.thread); }  // inc(Th(i), i)
  // The dispatch base's prefetch hooks, for engines that keep per-variable state in arrays.
  bool prefetching() const requires requires(const Derived& d) {
    d.prefetch_variable(VariableId{});
  }
  { return static_cast<const Derived&>(*this).variables() > kPrefetchFrom; }
  void prefetch(const Event& e) requires requires(const Derived& d) {
    d.prefetch_variable(VariableId{});
  }
  {
    if (e.is_access()) derived().prefetch_variable(e.target);
  }
  static constexpr size_t kPrefetchFrom = size_t{1} << 15;  // variables: ~1 MB of state and more

  Annotator* annotator() override { return this; }

  void before_event(EventId /*id*/, const Event& e) override {
    annotating_ = true;
    found_.clear();
    const size_t width = display_width(e);
    pre_ = clock_string(e.thread, width);
    if (e.is_access()) {
      w_before_ = derived().show_w(e.target, width);
      r_before_ = derived().show_r(e.target, width);
    }
  }

  // Columns: Th = Th(i) before the event (the "Happens-before and vector clocks" notes' annotation,
  // the "Dynamic data race prediction" notes' pre clock), Th' = after (the "Dynamic data race
  // prediction" notes' post clock), W(x)/R(x) = the accessed variable's write/read state before the
  // event (as Sulzmann, "Happens-before and vector clocks" prints W(x)), W(x)'/R(x)' = after, races
  // = pairs reported at this event as (eFIRST,eSECOND), e.g. (e3,e5).
  void annotate(EventId id, const Event& e, Annotation& row) override {
    const size_t width = display_width(e);
    row.push_back({"Th", pre_});
    row.push_back({"Th'", clock_string(e.thread, width)});
    const bool access = e.is_access();
    row.push_back({"W(x)", access ? w_before_ : std::string()});
    row.push_back({"R(x)", access ? r_before_ : std::string()});
    row.push_back({"W(x)'", access ? derived().show_w(e.target, width) : std::string()});
    row.push_back({"R(x)'", access ? derived().show_r(e.target, width) : std::string()});
    std::sort(found_.begin(), found_.end());
    row.push_back({"races", races_text(found_, id)});
  }

 protected:
  size_t stride() const { return clocks_.stride(); }
  size_t threads() const { return clocks_.threads(); }

  // Reports (partner, current access): `p` was set by the access `op` on e.target of epoch
  // j#k (j a slot); e is the current access with its slot as thread, whose own epoch maps it
  // back to the thread. Races are the exception: the reporting paths stay out of line, the hot
  // path stays small.
  [[gnu::noinline, gnu::cold]] void report(Partner p, ThreadId j, Clock k, Op op, EventId id,
                                           const Event& e) {
    Access second = Access::of(id, e);
    if (!annotating_ && !sink_.accepting()) {  // the sink keeps no more races: count them
      sink_.count_race(p.location, second);
      return;
    }
    second.thread = clocks_.thread_at(e.thread, clocks_.th_at_slot(e.thread)[e.thread]);
    sink_.report(Race{Access{p.event, clocks_.thread_at(j, k), p.location, op}, second, e.target});
    if (annotating_) found_.push_back(p.event);
  }
  // The flood of many threads on one variable (sets of thousands of concurrent accesses): an
  // engine counts the races of a large set without visiting each member, from the non-zero
  // entries of Th(i) (sparse clocks only: a thread that never synchronised has one).
  bool sparse_clocks() const { return clocks_.sparse(); }
  std::span<const uint32_t> th_nonzeros(uint32_t slot) const { return clocks_.nonzero_slots(slot); }
  // Sets from this many accesses on are large (EngineOptions::bulk_count_from).
  uint64_t bulk_from() const { return bulk_from_; }
  // Races are counted, not listed: the sink keeps no more and the view is not annotated.
  bool counting() const { return !annotating_ && !sink_.accepting(); }
  // Counts n races of the access e whose first accesses are at n distinct locations, none the
  // location of another race of e (RaceSink::count_races_in_bulk); false: report them one by one.
  bool count_in_bulk(uint64_t n, EventId id, const Event& e) {
    return sink_.count_races_in_bulk(n, Access::of(id, e));
  }
  // Marks location l as held by a large set; true if it was marked before (then two accesses of
  // large sets may share it, and their races are not counted in bulk).
  bool mark_location(LocationId l) {
    if (l >= marked_.size()) marked_.resize(std::max<size_t>(size_t{l} + 1, marked_.size() * 2));
    const bool was = marked_[l] != 0;
    marked_[l] = 1;
    return was;
  }

  // Reports every entry of a sparse clock v (engines/hb/sparse_vc.hpp) whose access is not
  // HB-before th, in thread order.
  // alone: v's races are all of e's (the other clock e is checked against is empty), so a
  // large v's races may be counted in bulk (SparseVcs::count_unordered).
  template <class Vcs, class V>
  void check_vc(const Vcs& vcs, const V& v, Op op, const Clock* th, EventId id, const Event& e,
                bool alone = false) {
    if (v.bulk) [[unlikely]] {
      if (alone && sparse_clocks() && counting() && count_vc(vcs, v, th, id, e)) return;
    }
    if (!vcs.dense(v)) [[likely]] {
      const auto* d = vcs.entries(v);
      for (uint32_t q = 0; q < v.n; ++q)
        if (d[q].k > th[d[q].j]) [[unlikely]]
          report(d[q].who, d[q].j, d[q].k, op, id, e);
    } else {
      const Clock* c = vcs.clocks(v);
      if (any_unordered(c, th, stride())) report_unordered(c, vcs.who(v), op, th, id, e);
    }
  }
  template <class Vcs, class V>
  [[gnu::noinline]] bool count_vc(const Vcs& vcs, const V& v, const Clock* th, EventId id,
                                  const Event& e) {
    const uint64_t n = vcs.count_unordered(v, th, th_nonzeros(e.thread));
    return n == 0 || count_in_bulk(n, id, e);
  }
  // Reports every entry j of `a` whose access is not HB-before th (slow path: a race exists).
  [[gnu::noinline, gnu::cold]] void report_unordered(const Clock* a, const Partner* who, Op op,
                                                     const Clock* th, EventId id, const Event& e) {
    const size_t n = stride();
    for (size_t j = 0; j < n; ++j)
      if (a[j] > th[j]) report(who[j], static_cast<ThreadId>(j), a[j], op, id, e);
  }

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }
  const Derived& derived() const { return static_cast<const Derived&>(*this); }

  size_t display_width(const Event& e) const {
    size_t w = std::max<size_t>(threads(), symbols_.threads.size());
    w = std::max<size_t>(w, static_cast<size_t>(e.thread) + 1);
    if (e.op == Op::Fork || e.op == Op::Join) w = std::max<size_t>(w, size_t{e.target} + 1);
    return w;
  }
  std::string clock_string(ThreadId t, size_t width) const {
    std::vector<Clock> c(std::max(width, stride()), 0);
    if (t < threads())
      std::copy(clocks_.th(t), clocks_.th(t) + stride(), c.begin());
    else
      c[t] = 1;
    return show_vc(c.data(), width);
  }

  uint64_t bulk_from_;
  const Symbols& symbols_;
  RaceSink& sink_;
  ThreadClocks clocks_;      // Th(i) and Rel(y)
  ThreadClocks::RowRef th_;  // Th(i) of the current event's thread (checked in debug builds)
  uint32_t slot_ = 0;        // its slot

  // Annotated view only.
  bool annotating_ = false;
  std::vector<EventId> found_;  // the first events of the pairs reported at this event
  std::string pre_, w_before_, r_before_;
  std::vector<uint8_t> marked_;  // by location: held by a large set (mark_location)
};

}  // namespace racepred::hbloc
