// lockorder against a brute-force reading of its definition (docs/DEADLOCKS.md) on random
// traces with nested locks, read locks and forks/joins: every acquire made while holding locks
// is a step (no deduplication, full fork/join vector clocks per event), every sequence of steps
// that forms a lock cycle and meets the four conditions is a deadlock. The engine's cycles of
// locks must be exactly the reference's. This checks the engine's shortcuts: one dependency per
// (thread, fork/join phase, locks held, lock requested), the strongly connected components that
// prune the search, and the search itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "racepred/driver/run.hpp"
#include "racepred/trace/generator.hpp"
#include "support/small_traces.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using LockCycle = std::vector<LockId>;  // rotated so that the smallest lock is first

LockCycle canonical(LockCycle c) {
  std::rotate(c.begin(), std::min_element(c.begin(), c.end()), c.end());
  return c;
}

struct Step {
  ThreadId thread;
  std::vector<uint64_t> clock;  // fork/join vector clock of the request
  std::map<LockId, bool> held;  // lock → held in read mode
  LockId requested;
  bool request_read;
};

bool before(const Step& a, const Step& b) {
  return a.clock[a.thread] <= (a.thread < b.clock.size() ? b.clock[a.thread] : 0);
}

bool compatible(const Step& a, const Step& b) {
  if (a.thread == b.thread || before(a, b) || before(b, a)) return false;
  for (const auto& [lock, read] : a.held) {
    const auto it = b.held.find(lock);
    if (it != b.held.end() && !(read && it->second)) return false;
  }
  return true;
}

std::set<LockCycle> reference(const Trace& trace, uint32_t max_cycle) {
  const size_t threads = trace.symbols.threads.size();
  std::vector<std::vector<uint64_t>> vc(threads, std::vector<uint64_t>(threads, 0));
  for (size_t t = 0; t < threads; ++t) vc[t][t] = 1;
  std::vector<std::map<LockId, bool>> held(threads);
  std::map<LockId, std::vector<uint64_t>> sent;  // every send on the object, joined
  std::vector<Step> steps;
  for (const Event& e : trace.events) {
    const ThreadId t = e.thread;
    switch (e.op) {
      case Op::Acquire:
      case Op::ReadAcquire:
        if (!held[t].empty() && !held[t].count(e.target))
          steps.push_back(Step{t, vc[t], held[t], e.target, e.op == Op::ReadAcquire});
        held[t][e.target] = e.op == Op::ReadAcquire;
        break;
      case Op::Release:
      case Op::ReadRelease:
        held[t].erase(e.target);
        break;
      case Op::Fork:
        for (size_t u = 0; u < threads; ++u) vc[e.target][u] = std::max(vc[e.target][u], vc[t][u]);
        break;
      case Op::Join:
        for (size_t u = 0; u < threads; ++u) vc[t][u] = std::max(vc[t][u], vc[e.target][u]);
        break;
      case Op::Send: {
        std::vector<uint64_t>& c = sent[e.target];
        c.resize(threads, 0);
        for (size_t u = 0; u < threads; ++u) c[u] = std::max(c[u], vc[t][u]);
        break;
      }
      case Op::Recv:
        if (const auto it = sent.find(e.target); it != sent.end())
          for (size_t u = 0; u < threads; ++u) vc[t][u] = std::max(vc[t][u], it->second[u]);
        break;
      case Op::Request:  // waits holding its locks: a step, like an acquire (in its mode)
      case Op::ReadRequest:
        if (!held[t].empty() && !held[t].count(e.target))
          steps.push_back(Step{t, vc[t], held[t], e.target, e.op == Op::ReadRequest});
        break;
      case Op::Read:
      case Op::Write:
        break;
    }
    ++vc[t][t];
  }
  // Sequences s0, s1, … where s(i+1) holds what s(i) requests and the last requests a lock s0
  // holds, with pairwise different locks on the cycle.
  std::set<LockCycle> cycles;
  std::vector<const Step*> path;
  std::vector<LockId> locks;  // locks[i]: the cycle lock path[i] holds
  auto extend = [&](auto& self) -> void {
    const Step& last = *path.back();
    // Close: the first step holds what the last requests.
    if (path.size() >= 2 && last.requested == locks.front() &&
        !(last.request_read && path.front()->held.at(locks.front())))
      cycles.insert(canonical(locks));
    if (path.size() >= max_cycle) return;
    const LockId next = last.requested;
    if (std::find(locks.begin(), locks.end(), next) != locks.end()) return;
    for (const Step& s : steps) {
      const auto h = s.held.find(next);
      if (h == s.held.end() || (last.request_read && h->second)) continue;
      if (!std::all_of(path.begin(), path.end(), [&](const Step* p) { return compatible(*p, s); }))
        continue;
      path.push_back(&s);
      locks.push_back(next);
      self(self);
      path.pop_back();
      locks.pop_back();
    }
  };
  for (const Step& s : steps)
    for (const auto& [lock, read] : s.held) {
      path = {&s};
      locks = {lock};
      extend(extend);
    }
  return cycles;
}

std::set<LockCycle> engine_cycles(const RaceSink& sink) {
  std::set<LockCycle> cycles;
  for (const Finding& f : sink.findings()) {
    if (f.kind != FindingKind::Deadlock) continue;
    LockCycle c{f.deadlock.cycle.back().requested};
    for (size_t i = 0; i + 1 < f.deadlock.cycle.size(); ++i)
      c.push_back(f.deadlock.cycle[i].requested);
    EXPECT_TRUE(cycles.insert(canonical(c)).second) << "a cycle reported twice";
  }
  return cycles;
}

GeneratorOptions options(uint64_t seed) {
  Rng rng(seed * 31 + 7);
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 2 + static_cast<uint32_t>(rng.below(3));
  o.events = 16 + rng.below(50);
  o.variables = 2;
  o.locks = 2 + static_cast<uint32_t>(rng.below(4));
  o.nesting = 2 + static_cast<uint32_t>(rng.below(2));
  const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                              ForkShape::Nested};
  o.shape = shapes[rng.below(4)];
  o.cs_share = 0.8;
  o.nest_chance = 0.5;
  o.release_chance = 0.3;
  o.nested_releases = rng.chance(0.5);
  o.local_share = 0;
  o.switch_share = 0.5;
  o.early_joins = rng.chance(0.5);
  o.read_lock_share = rng.chance(0.5) ? 0.4 : 0;
  return o;
}

TEST(LockOrderProperty, CyclesEqualTheBruteForceDefinition) {
  const int n = testing::property_iterations(3000);
  int with_cycles = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = generate_trace(options(seed));
    for (uint32_t max_cycle : {2u, 3u, 8u}) {
      EngineOptions eo;
      eo.max_cycle = max_cycle;
      const std::set<LockCycle> expected = reference(trace, max_cycle);
      with_cycles += !expected.empty();
      ASSERT_EQ(engine_cycles(run_engine("lockorder", trace, eo)), expected)
          << "max cycle " << max_cycle << ", " << testing::trace_context(seed, trace);
    }
  }
  // The generator must produce deadlocks often enough for the comparison to mean something.
  EXPECT_GT(with_cycles, n / 10);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
