#include "racepred/exact/deadlocks.hpp"

#include <algorithm>

namespace racepred::exact {

Finding deadlock_finding(const TraceIndex& trace, const DeadlockWitness& deadlock) {
  // The locks each thread holds after the prefix, in acquisition order, with their acquires.
  std::vector<std::vector<uint32_t>> held(trace.thread_count());
  for (uint32_t i : deadlock.prefix) {
    const Event& e = trace.event(i);
    auto& locks = held[e.thread];
    if (is_acquire_op(e.op)) locks.push_back(i);
    if (is_release_op(e.op))
      locks.erase(std::find_if(locks.begin(), locks.end(),
                               [&](uint32_t a) { return trace.event(a).target == e.target; }));
  }
  Deadlock out;
  for (uint32_t a : deadlock.acquires) {
    const Event& e = trace.event(a);
    DeadlockStep step{e.thread, {}, e.target, trace.id(a), e.location};
    for (uint32_t h : held[e.thread]) {
      const Event& acquire = trace.event(h);
      step.held.push_back(HeldLock{acquire.target, e.thread, acquire.op == Op::ReadAcquire,
                                   trace.id(h), acquire.location});
    }
    out.cycle.push_back(std::move(step));
  }
  for (uint32_t i : deadlock.prefix) out.witness.push_back(trace.id(i));
  return Finding::of_deadlock(std::move(out));
}

CriticalCase classify(bool p_race, const SearchResult& result) {
  const bool open = p_race && result.races.empty();
  return {open && result.cross_thread_deadlocks.empty(), open && result.deadlocks.empty()};
}

}  // namespace racepred::exact
