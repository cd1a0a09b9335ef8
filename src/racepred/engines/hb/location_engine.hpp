// Shared machinery of the lecture's online HB race-location engines (seed 001 "VC_RaceLoc" …
// "FastTrack - Semi adaptive", seed 004 "Vector clock based race detector a la FastTrack"):
// thread and lock vector clocks in flat arrays, the acq/rel/fork/join rules, race reporting
// with the partner access, and the annotated view.
//
// Clock discipline (the seeds'): Th(i) starts as [0,…,1,…,0] (own entry 1) and every event of
// thread i increments Th(i)(i) after it was processed, so an access's epoch is i#Th(i)(i)
// "before processing" and every access has its own epoch. HB includes fork and join (seed 004).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "racepred/clock/vector_clock.hpp"
#include "racepred/engines/engine.hpp"

namespace racepred::hbloc {

// The access that set a clock entry or epoch: reported as the first event of a race pair.
struct Partner {
  EventId event = kNoEvent;
  LocationId location = 0;
};

// The stride of every clock row is a power of two ≥ 4, so loops go in fixed blocks of 4 that
// the compiler turns into one vector operation each.
inline constexpr size_t kBlock = 4;

// Rows of T sharing one stride (the thread capacity) in one contiguous, zero-initialised array.
// Rows grow geometrically; the stride grows when a thread id beyond it appears (rare: the data
// is copied row by row). No allocation once the trace's threads and names have been seen.
template <class T>
class Rows {
 public:
  T* row(size_t r) { return data_.data() + r * stride_; }
  const T* row(size_t r) const { return data_.data() + r * stride_; }
  size_t rows() const { return rows_; }
  size_t stride() const { return stride_; }

  // Makes rows [0, n) valid (new rows are zero / default).
  void ensure_rows(size_t n) {
    if (n <= rows_) return;
    const size_t grown = std::max<size_t>({n, rows_ + rows_ / 2, 16});
    data_.resize(grown * stride_);
    rows_ = grown;
  }
  void set_stride(size_t stride) {
    if (stride == stride_) return;
    std::vector<T> data(rows_ * stride);
    const size_t keep = std::min(stride, stride_);
    for (size_t r = 0; r < rows_; ++r)
      std::copy(data_.begin() + r * stride_, data_.begin() + r * stride_ + keep,
                data.begin() + r * stride);
    data_.swap(data);
    stride_ = stride;
  }

 private:
  std::vector<T> data_;
  size_t rows_ = 0;
  size_t stride_ = kBlock;
};

// True iff some a[j] > th[j], i.e. the access recorded in a[j] is not HB-before the holder of th.
// Branch-free over the whole stride so that the compiler vectorises it.
inline bool any_unordered(const Clock* a, const Clock* th, size_t n) {
  unsigned bad = 0;
  for (size_t j = 0; j < n; j += kBlock)
    for (size_t k = 0; k < kBlock; ++k) bad |= static_cast<unsigned>(a[j + k] > th[j + k]);
  return bad != 0;
}

// "[1,0,2]"
std::string show_vc(const Clock* vc, size_t n);
// "[0#4,1#1]": the non-zero entries as epochs (seed 004's R(x), seed 001's [j#k, i#l]).
std::string show_vc_epochs(const Clock* vc, size_t n);
// "0#3", or `bottom` for the bottom epoch 0#0.
std::string show_epoch(Epoch e, const char* bottom);

// CRTP base: Derived provides
//   void read(EventId, const Event&, const Clock* th);   // th = Th(i) before the event
//   void write(EventId, const Event&, const Clock* th);
//   void set_stride(size_t);                             // re-layout per-variable clocks
//   std::string show_w(VariableId, size_t width) const;  // W(x) / R(x) in the annotated view
//   std::string show_r(VariableId, size_t width) const;
template <class Derived>
class LocationEngine : public Engine {
 public:
  explicit LocationEngine(EngineContext& context)
      : symbols_(context.symbols), sink_(context.sink) {}

  void on_event(EventId id, const Event& e) final {
    const ThreadId t = e.thread;
    if (t >= threads_) [[unlikely]]
      add_threads(static_cast<size_t>(t) + 1);
    switch (e.op) {
      case Op::Read:
        derived().read(id, e, th_.row(t));
        break;
      case Op::Write:
        derived().write(id, e, th_.row(t));
        break;
      case Op::Acquire:
        acquire(t, e.target);
        break;
      case Op::Release:
        release(t, e.target);
        break;
      case Op::Fork:
        fork(t, e.target);
        break;
      case Op::Join:
        join(t, e.target);
        break;
    }
    ++th_.row(t)[t];  // inc(Th(i), i) after every event
  }

  bool supports_annotation() const override { return true; }

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

  // Columns: Th = Th(i) before the event (seed 004's annotation, seed 001's pre clock),
  // Th' = after (seed 001's post clock), W(x)/R(x) = the accessed variable's write/read state
  // before the event (as seed 004 prints W(x)), W(x)'/R(x)' = after, races = pairs reported at
  // this event as (eFIRST,eSECOND), e.g. (e3,e5).
  void annotate(EventId /*id*/, const Event& e, Annotation& row) override {
    const size_t width = display_width(e);
    row.push_back({"Th", pre_});
    row.push_back({"Th'", clock_string(e.thread, width)});
    const bool access = e.is_access();
    row.push_back({"W(x)", access ? w_before_ : std::string()});
    row.push_back({"R(x)", access ? r_before_ : std::string()});
    row.push_back({"W(x)'", access ? derived().show_w(e.target, width) : std::string()});
    row.push_back({"R(x)'", access ? derived().show_r(e.target, width) : std::string()});
    std::sort(found_.begin(), found_.end());
    std::string races;
    for (const auto& [first, second] : found_) {
      if (!races.empty()) races += ' ';
      races.append("(e").append(std::to_string(first)).append(",e");
      races.append(std::to_string(second)).append(")");
    }
    row.push_back({"races", races});
  }

 protected:
  size_t stride() const { return th_.stride(); }
  size_t threads() const { return threads_; }

  // Reports (partner, current access): `p` was set by thread j's access `op` on e.target.
  // Races are the exception: the reporting paths stay out of line, the hot path stays small.
  [[gnu::noinline, gnu::cold]] void report(Partner p, ThreadId j, Op op, EventId id,
                                           const Event& e) {
    sink_.report(Race{Access{p.event, j, p.location, op}, Access::of(id, e), e.target});
    if (annotating_) found_.emplace_back(p.event, id);
  }
  // Reports every entry j of `a` whose access is not HB-before th (slow path: a race exists).
  [[gnu::noinline, gnu::cold]] void report_unordered(const Clock* a, const Partner* who, Op op,
                                                     const Clock* th, EventId id, const Event& e) {
    const size_t n = stride();
    for (size_t j = 0; j < n; ++j)
      if (a[j] > th[j]) report(who[j], static_cast<ThreadId>(j), op, id, e);
  }

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }
  const Derived& derived() const { return static_cast<const Derived&>(*this); }

  [[gnu::noinline]] void add_threads(size_t n) {
    if (n > th_.stride()) {
      const size_t stride = std::bit_ceil(n);
      th_.set_stride(stride);
      rel_.set_stride(stride);
      derived().set_stride(stride);
    }
    th_.ensure_rows(n);
    for (size_t t = threads_; t < n; ++t) th_.row(t)[t] = 1;  // Th(i) = [0,…,1,…,0]
    threads_ = n;
  }
  void ensure_lock(LockId y) {
    if (y >= rel_.rows()) [[unlikely]]
      grow_locks(y);
  }
  [[gnu::noinline]] void grow_locks(LockId y) { rel_.ensure_rows(static_cast<size_t>(y) + 1); }
  static void join_into(Clock* dst, const Clock* src, size_t n) {
    for (size_t j = 0; j < n; j += kBlock)
      for (size_t k = 0; k < kBlock; ++k) dst[j + k] = std::max(dst[j + k], src[j + k]);
  }

  // acq(i,y): Th(i) = sync(Rel(y), Th(i))
  void acquire(ThreadId t, LockId y) {
    ensure_lock(y);
    join_into(th_.row(t), rel_.row(y), stride());
  }
  // rel(i,y): Rel(y) = Th(i)
  void release(ThreadId t, LockId y) {
    ensure_lock(y);
    Clock* dst = rel_.row(y);
    const Clock* src = th_.row(t);
    for (size_t j = 0, n = stride(); j < n; j += kBlock)
      for (size_t k = 0; k < kBlock; ++k) dst[j + k] = src[j + k];
  }
  // fork(t1,t2): Th(t2) = Th(t1), inc(Th(t2), t2) (seed 004). Written as Th(t2) = Th(t2) ⊔ Th(t1),
  // which is the same for a thread that has not run (Th(t2) = [0,…,1,…,0], Th(t1)(t2) = 0).
  void fork(ThreadId t, ThreadId u) {
    if (u >= threads_) add_threads(static_cast<size_t>(u) + 1);
    join_into(th_.row(u), th_.row(t), stride());
  }
  // join(t1,t2): Th(t1) = sync(Th(t1), Th(t2)) (seed 004 with the erratum: a point-wise max).
  void join(ThreadId t, ThreadId u) {
    if (u >= threads_) add_threads(static_cast<size_t>(u) + 1);
    join_into(th_.row(t), th_.row(u), stride());
  }

  size_t display_width(const Event& e) const {
    size_t w = std::max<size_t>(threads_, symbols_.threads.size());
    w = std::max<size_t>(w, static_cast<size_t>(e.thread) + 1);
    if (e.op == Op::Fork || e.op == Op::Join) w = std::max<size_t>(w, size_t{e.target} + 1);
    return w;
  }
  std::string clock_string(ThreadId t, size_t width) const {
    std::vector<Clock> c(std::max(width, stride()), 0);
    if (t < threads_)
      std::copy(th_.row(t), th_.row(t) + stride(), c.begin());
    else
      c[t] = 1;
    return show_vc(c.data(), width);
  }

  const Symbols& symbols_;
  RaceSink& sink_;
  Rows<Clock> th_;   // Th(i), one row per thread
  Rows<Clock> rel_;  // Rel(y), one row per lock
  size_t threads_ = 0;

  // Annotated view only.
  bool annotating_ = false;
  std::vector<std::pair<EventId, EventId>> found_;
  std::string pre_, w_before_, r_before_;
};

std::unique_ptr<Engine> make_djit(EngineContext& context);
std::unique_ptr<Engine> make_hb_epochs(EngineContext& context);
std::unique_ptr<Engine> make_hb_adaptive(EngineContext& context);
std::unique_ptr<Engine> make_fasttrack(EngineContext& context);

}  // namespace racepred::hbloc
