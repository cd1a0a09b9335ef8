// Thread clocks Th(i) and release clocks Rel(y) of seed 001's algorithm VC, with fork and join
// as in the seed's Go framework. Every event increments its thread's own entry, so an access
// is identified by its epoch i#Th(i)(i) taken before the increment (its pre vector clock), and
// an earlier access j#k is HB-before the current event of thread i iff k <= Th(i)(j)
// (seed 001, epoch lemma).
#pragma once

#include <vector>

#include "racepred/clock/vector_clock.hpp"
#include "racepred/trace/event.hpp"

namespace racepred {

class ThreadClocks {
 public:
  // lock_order = false leaves out the critical-section order (fork/join and program order only,
  // as the seed's lockset-style predictor does).
  explicit ThreadClocks(bool lock_order = true) : lock_order_(lock_order) {}

  // Th(t); initially 0 everywhere except Th(t)(t) = 1.
  const VectorClock& th(ThreadId t) {
    if (t >= th_.size()) [[unlikely]]
      ensure_thread(t);
    return th_[t];
  }
  size_t threads() const { return th_.size(); }

  // The event's update, after the caller used the pre vector clock th(e.thread):
  //   acq(i,y):  Th(i) = sync(Rel(y), Th(i)); inc        rel(i,y): Rel(y) = Th(i); inc
  //   fork(i,j): Th(j) = sync(Th(j), Th(i));  inc        join(i,j): Th(i) = sync(Th(i), Th(j)); inc
  //   r, w:      inc
  void apply(const Event& e) {
    const ThreadId i = e.thread;
    if (i >= th_.size()) [[unlikely]]
      ensure_thread(i);
    switch (e.op) {
      case Op::Acquire:
        if (lock_order_ && e.target < rel_.size()) th_[i].join(rel_[e.target]);
        break;
      case Op::Release:
        if (lock_order_) {
          if (e.target >= rel_.size()) rel_.resize(static_cast<size_t>(e.target) + 1);
          rel_[e.target].assign(th_[i]);
        }
        break;
      case Op::Fork:
        ensure_thread(e.target);
        if (e.target != i) th_[e.target].join(th_[i]);
        break;
      case Op::Join:
        ensure_thread(e.target);
        if (e.target != i) th_[i].join(th_[e.target]);
        break;
      case Op::Read:
      case Op::Write:
        break;
    }
    th_[i].increment(i);
  }

 private:
  void ensure_thread(ThreadId t) {
    while (th_.size() <= t) {
      const ThreadId u = static_cast<ThreadId>(th_.size());
      VectorClock c(static_cast<size_t>(u) + 1);
      c.set(u, 1);
      th_.push_back(std::move(c));
    }
  }

  bool lock_order_;
  std::vector<VectorClock> th_;
  std::vector<VectorClock> rel_;
};

}  // namespace racepred
