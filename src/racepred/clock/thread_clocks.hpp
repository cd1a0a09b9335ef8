// Thread clocks Th(i) and release clocks Rel(y) with the synchronisation rules of the seeds'
// vector-clock algorithms (seed 001 "Vector clocks", seed 004 with fork and join):
//
//   acq(i,y):   Th(i) = sync(Th(i), Rel(y))        rel(i,y):  Rel(y) = Th(i)
//   fork(i,j):  Th(j) = sync(Th(j), Th(i))         join(i,j): Th(i) = sync(Th(i), Th(j))
//   after every event of thread i: inc(Th(i), i)   (tick)
//
// Th(i) starts as [0,…,1,…,0] (own entry 1), so an access's epoch i#Th(i)(i) before the tick is
// its own, and an earlier access j#k is happens-before the current event of thread i iff
// k <= Th(i)(j) (the epoch lemma). All clocks are rows of one stride in flat arrays
// (clock/rows.hpp); the stride is the thread capacity, a power of two.
#pragma once

#include <bit>
#include <cstddef>

#include "racepred/clock/rows.hpp"
#include "racepred/clock/vector_clock.hpp"
#include "racepred/trace/event.hpp"

namespace racepred {

// Thread `i`'s clock would wrap around (2^32 events): throws InputError naming the thread.
[[noreturn, gnu::noinline, gnu::cold]] void clock_overflow(ThreadId i);

// c := c + 1 for a clock value of thread i, which never wraps around.
inline void increment_clock(Clock& c, ThreadId i) {
  if (++c == 0) [[unlikely]]
    clock_overflow(i);
}

class ThreadClocks {
 public:
  // lock_order = false leaves out the critical-section order (fork/join and program order
  // only, as seed 001's lockset-style predictor does): acquire and release do nothing.
  explicit ThreadClocks(bool lock_order = true) : lock_order_(lock_order) {}

  // Makes threads [0, t] known. Returns true when the stride grew: a caller with rows of its
  // own of the same stride re-lays them out (ClockRows::set_stride(stride())).
  bool add_thread(ThreadId t) {
    if (t < threads_) [[likely]]
      return false;
    return grow(t);
  }
  size_t threads() const { return threads_; }
  size_t stride() const { return th_.stride(); }

  // Th(i) of a known thread, `stride()` entries.
  Clock* th(ThreadId i) { return th_.row(i); }
  const Clock* th(ThreadId i) const { return th_.row(i); }
  ClockRef view(ThreadId i) const { return {th_.row(i), threads_}; }
  // Rel(y), `stride()` entries; all zero before the first release of y.
  const Clock* rel(LockId y) {
    ensure_lock(y);
    return rel_.row(y);
  }

  // acq(i,y): Th(i) = sync(Th(i), Rel(y))
  void acquire(ThreadId i, LockId y) {
    if (!lock_order_) return;
    ensure_lock(y);
    join_clocks(th_.row(i), rel_.row(y), stride());
  }
  // rel(i,y): Rel(y) = Th(i)
  void release(ThreadId i, LockId y) {
    if (!lock_order_) return;
    ensure_lock(y);
    copy_clock(rel_.row(y), th_.row(i), stride());
  }
  // fork(i,j): Th(j) = sync(Th(j), Th(i)); for a thread that has not run this is seed 004's
  // Th(j) = Th(i), inc(Th(j), j). Returns add_thread(j).
  bool fork(ThreadId i, ThreadId j) {
    const bool grew = add_thread(j);
    if (i != j) join_clocks(th_.row(j), th_.row(i), stride());
    return grew;
  }
  // join(i,j): Th(i) = sync(Th(i), Th(j)) (seed 004 with the erratum: a point-wise max).
  bool join(ThreadId i, ThreadId j) {
    const bool grew = add_thread(j);
    if (i != j) join_clocks(th_.row(i), th_.row(j), stride());
    return grew;
  }
  // inc(Th(i), i). A clock never wraps: the 2^32-th event of one thread is an error.
  void tick(ThreadId i) { increment_clock(th_.row(i)[i], i); }
  // The event's synchronisation (acquire, release, fork, join; nothing for accesses), then
  // tick: the whole update of the seeds' algorithm VC for one event. Returns true when the
  // stride grew.
  bool apply(const Event& e) {
    bool grew = add_thread(e.thread);
    switch (e.op) {
      case Op::Acquire:
        acquire(e.thread, e.target);
        break;
      case Op::Release:
        release(e.thread, e.target);
        break;
      case Op::Fork:
        grew |= fork(e.thread, e.target);
        break;
      case Op::Join:
        grew |= join(e.thread, e.target);
        break;
      case Op::Read:
      case Op::Write:
        break;
    }
    tick(e.thread);
    return grew;
  }

 private:
  [[gnu::noinline]] bool grow(ThreadId t) {
    const size_t n = size_t{t} + 1;
    bool grew = false;
    if (n > th_.stride()) {
      const size_t stride = std::bit_ceil(n);
      th_.set_stride(stride);
      rel_.set_stride(stride);
      grew = true;
    }
    th_.ensure_rows(n);
    for (size_t u = threads_; u < n; ++u) th_.row(u)[u] = 1;  // Th(u) = [0,…,1,…,0]
    threads_ = n;
    return grew;
  }
  void ensure_lock(LockId y) {
    if (y >= rel_.rows()) [[unlikely]]
      rel_.ensure_rows(size_t{y} + 1);
  }

  bool lock_order_;
  ClockRows<Clock> th_;   // Th(i), one row per thread
  ClockRows<Clock> rel_;  // Rel(y), one row per lock
  size_t threads_ = 0;
};

}  // namespace racepred
