// spd against the exact ground truth and against a slow reading of its own definition, on random
// traces with nested locks, read locks and forks/joins:
//  - sound: every deadlock spd reports is a predictable deadlock of Def. B.4 (Sulzmann and
//    Thiemann, "Cross-thread critical sections and efficient dynamic race prediction methods",
//    App. B) as `exact-deadlocks` finds them, its witness is a correctly reordered prefix (the
//    witness checker's rules) after which each step's acquire is next in its thread and its lock
//    is held by the next step's thread;
//  - complete for its class (Tunç, Mathur, Pavlogiannis and Viswanathan, "Sound dynamic deadlock
//    prediction in linear time"): every abstract deadlock pattern (a cycle of (thread, locks held,
//    lock requested)) that has a concrete instance D whose sync-preserving closure of pre(D)
//    contains no acquire of D is reported, and no other. The reference enumerates every concrete
//    pattern and computes each closure by a naive fixpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "racepred/driver/run.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/trace_index.hpp"
#include "racepred/witness/checker.hpp"
#include "support/small_traces.hpp"

namespace racepred {
namespace {

// A step of an abstract pattern: thread, lock requested (and its mode), the locks held (2l+read).
using AbstractStep = std::tuple<ThreadId, LockId, bool, std::vector<uint32_t>>;
using AbstractPattern = std::set<AbstractStep>;

struct Nested {
  uint32_t event;  // trace index of the acquire
  AbstractStep step;
};

std::vector<Nested> nested_acquires(const TraceIndex& t) {
  std::vector<Nested> out;
  std::vector<std::map<LockId, bool>> held(t.thread_count());
  for (uint32_t i = 0; i < t.size(); ++i) {
    const Event& e = t.event(i);
    if (is_acquire_op(e.op)) {
      if (!held[e.thread].empty()) {
        std::vector<uint32_t> h;
        for (const auto& [l, read] : held[e.thread]) h.push_back(2 * l + read);
        out.push_back({i, {e.thread, e.target, e.op == Op::ReadAcquire, h}});
      }
      held[e.thread][e.target] = e.op == Op::ReadAcquire;
    } else if (is_release_op(e.op)) {
      held[e.thread].erase(e.target);
    }
  }
  return out;
}

// The sync-preserving closure of the events before each of `acquires` in its thread, by
// fixpoint iteration; true when it contains none of them.
bool sync_preserving(const TraceIndex& t, const std::vector<uint32_t>& acquires) {
  std::vector<char> in(t.size(), 0);
  const auto add = [&](uint32_t i) {
    // i and every earlier event of its thread.
    const auto& events = t.thread_events(t.event(i).thread);
    for (uint32_t p = 0; p <= t.index_in_thread(i); ++p) in[events[p]] = 1;
  };
  for (uint32_t a : acquires)
    if (t.index_in_thread(a) > 0) add(t.thread_events(t.event(a).thread)[t.index_in_thread(a) - 1]);
  for (bool changed = true; changed;) {
    const std::vector<char> before = in;
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (!in[i]) continue;
      const Event& e = t.event(i);
      const uint32_t fork = t.fork_of(e.thread);
      if (fork != kNoIndex) add(fork);
      if (e.op == Op::Read && t.last_write(i) != kNoIndex) add(t.last_write(i));
      if (e.op == Op::Join && !t.thread_events(e.target).empty()) add(t.last_of(e.target));
      if (e.op == Op::Recv)
        for (uint32_t s : t.sends_before(i)) add(s);
      if (is_acquire_op(e.op))
        for (uint32_t j = i + 1; j < t.size(); ++j)
          if (in[j] && is_acquire_op(t.event(j).op) && t.event(j).target == e.target &&
              t.matching(i) != kNoIndex)
            add(t.matching(i));
    }
    changed = before != in;
  }
  return std::none_of(acquires.begin(), acquires.end(), [&](uint32_t a) { return in[a]; });
}

bool disjoint(const AbstractStep& a, const AbstractStep& b) {
  for (uint32_t x : std::get<3>(a))
    for (uint32_t y : std::get<3>(b))
      if (x / 2 == y / 2 && !(x % 2 && y % 2)) return false;
  return true;
}

// `to` holds the lock `from` requests, in a mode that blocks it.
bool blocks(const AbstractStep& from, const AbstractStep& to) {
  for (uint32_t h : std::get<3>(to))
    if (h / 2 == std::get<1>(from)) return !(h % 2 && std::get<2>(from));
  return false;
}

std::set<AbstractPattern> reference(const TraceIndex& t, size_t max_cycle) {
  const std::vector<Nested> nested = nested_acquires(t);
  std::set<AbstractPattern> found;
  std::vector<size_t> path;
  const auto extend = [&](auto& self) -> void {
    const Nested& last = nested[path.back()];
    if (path.size() >= 2 && blocks(last.step, nested[path[0]].step)) {
      std::vector<uint32_t> acquires;
      AbstractPattern p;
      for (size_t k : path) {
        acquires.push_back(nested[k].event);
        p.insert(nested[k].step);
      }
      if (!found.count(p) && sync_preserving(t, acquires)) found.insert(p);
    }
    if (path.size() >= max_cycle) return;
    for (size_t k = path[0] + 1; k < nested.size(); ++k) {
      const Nested& n = nested[k];
      if (!blocks(last.step, n.step)) continue;
      const bool ok = std::all_of(path.begin(), path.end(), [&](size_t q) {
        const AbstractStep& s = nested[q].step;
        return std::get<0>(s) != std::get<0>(n.step) && std::get<1>(s) != std::get<1>(n.step) &&
               disjoint(s, n.step);
      });
      if (!ok) continue;
      path.push_back(k);
      self(self);
      path.pop_back();
    }
  };
  for (size_t k = 0; k < nested.size(); ++k) {
    path = {k};
    extend(extend);
  }
  return found;
}

GeneratorOptions options(uint64_t seed) {
  Rng rng(seed * 131 + 3);
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 2 + static_cast<uint32_t>(rng.below(2));
  o.events = 16 + rng.below(30);
  o.variables = 6;  // few reads of another thread's writes: they order the threads
  o.locks = 2 + static_cast<uint32_t>(rng.below(2));
  o.nesting = 2 + static_cast<uint32_t>(rng.below(2));
  const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                              ForkShape::Nested};
  o.shape = shapes[rng.below(4)];
  o.cs_share = 0.8;
  o.nest_chance = 0.7;
  o.release_chance = 0.2;
  o.local_share = 0;
  o.nested_releases = rng.chance(0.5);
  o.switch_share = 0.5;
  o.early_joins = rng.chance(0.5);
  o.read_lock_share = rng.chance(0.3) ? 0.4 : 0;
  return o;
}

std::vector<EventId> sorted_requests(const Deadlock& d) {
  std::vector<EventId> events;
  for (const DeadlockStep& s : d.cycle) events.push_back(s.event);
  std::sort(events.begin(), events.end());
  return events;
}

TEST(SpdProperty, SoundForDefB4AndCompleteForSyncPreservingDeadlocks) {
  const int n = testing::property_iterations(3000);
  int with_deadlocks = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = generate_trace(options(seed));
    const TraceIndex t(trace);
    const RaceSink spd = run_engine("spd", trace);
    const RaceSink exact = run_engine("exact-deadlocks", trace);
    std::set<std::vector<EventId>> predictable;
    witness::Checker checker(trace);
    for (const Finding& f : exact.findings()) {
      predictable.insert(sorted_requests(f.deadlock));
      // exact-deadlocks' own prefixes pass the witness checker's rules too (see below).
      witness::Witness w;
      w.notion = witness::Notion::Enabled;
      w.first = w.second = f.deadlock.cycle[0].event;
      w.prefix = f.deadlock.witness;
      EXPECT_EQ(checker.check(w).rule, witness::Rule::Conflict)
          << checker.check(w).message << ", " << testing::trace_context(seed, trace);
    }
    std::set<AbstractPattern> reported;
    for (const Finding& f : spd.findings()) {
      ASSERT_EQ(f.kind, FindingKind::Deadlock);
      const Deadlock& d = f.deadlock;
      ASSERT_TRUE(predictable.count(sorted_requests(d)))
          << "spd's deadlock is no Def. B.4 deadlock, " << testing::trace_context(seed, trace);
      // The witness: a correctly reordered prefix (every rule before the race's own: a prefix
      // checked as the "race" of two acquires fails only at Conflict when it is valid) ...
      witness::Witness w;
      w.notion = witness::Notion::Enabled;
      w.first = w.second = d.cycle[0].event;
      w.prefix = d.witness;
      EXPECT_EQ(checker.check(w).rule, witness::Rule::Conflict)
          << checker.check(w).message << ", " << testing::trace_context(seed, trace);
      // ... after which each step's acquire is next and the next step's thread holds its lock.
      std::vector<uint32_t> ran(t.thread_count(), 0);
      std::set<std::pair<LockId, ThreadId>> holds;  // read holds may be shared
      for (EventId id : d.witness) {
        const uint32_t i = static_cast<uint32_t>(trace.index_of(id));
        ++ran[t.event(i).thread];
        if (is_acquire_op(t.event(i).op)) holds.insert({t.event(i).target, t.event(i).thread});
        if (is_release_op(t.event(i).op)) holds.erase({t.event(i).target, t.event(i).thread});
      }
      AbstractPattern pattern;
      for (size_t s = 0; s < d.cycle.size(); ++s) {
        const uint32_t a = static_cast<uint32_t>(trace.index_of(d.cycle[s].event));
        EXPECT_EQ(ran[t.event(a).thread], t.index_in_thread(a));
        const DeadlockStep& next = d.cycle[(s + 1) % d.cycle.size()];
        EXPECT_TRUE(holds.count({d.cycle[s].requested, next.thread}))
            << testing::trace_context(seed, trace);
        std::vector<uint32_t> held;
        for (const HeldLock& h : d.cycle[s].held) held.push_back(2 * h.lock + h.read);
        std::sort(held.begin(), held.end());
        pattern.insert(
            {t.event(a).thread, t.event(a).target, t.event(a).op == Op::ReadAcquire, held});
      }
      EXPECT_TRUE(reported.insert(pattern).second) << "an abstract pattern reported twice";
    }
    with_deadlocks += !reported.empty();
    ASSERT_EQ(reported, reference(t, 8)) << testing::trace_context(seed, trace);
  }
  // Deadlocks must be frequent enough for the comparison to mean something (81 of the 3,000
  // traces have one; the others check that neither spd nor the reference finds one).
  EXPECT_GT(with_deadlocks, n / 50);
}

}  // namespace
}  // namespace racepred
