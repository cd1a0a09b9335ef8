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
//    pattern and computes each closure by a naive fixpoint;
//  - cross-thread deadlocks (Def. B.7, a lock held by a thread waiting at a join): every such
//    report meets CS-PD-1..3 after its witness, a correctly reordered prefix (checked directly),
//    and is one of `exact-ct-deadlocks`' sets (the ground truth).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "racepred/driver/run.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/trace_index.hpp"
#include "racepred/witness/checker.hpp"
#include "support/small_traces.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

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

uint64_t stat(const RaceSink& sink, std::string_view key) {
  const ExtraStat* s = sink.extras().stat(key);
  return s ? s->value : 0;
}

std::vector<EventId> sorted_requests(const Deadlock& d) {
  std::vector<EventId> events;
  for (const DeadlockStep& s : d.cycle) events.push_back(s.event);
  std::sort(events.begin(), events.end());
  return events;
}

// A Def. B.7 report, checked against the definition itself: the witness is a correctly
// reordered prefix (the witness checker's rules); each listed acquire is next in its thread and
// another thread holds its lock in a mode that blocks it (CS-PD-1, CS-PD-2); every other thread
// with events in the prefix has finished or waits at a join or recv that cannot run (CS-PD-3);
// and the list has every blocked acquire of a started thread, as exact-ct-deadlocks' reports do.
// Returns whether exact-ct-deadlocks lists the same set.
bool expect_cross_thread(const Trace& trace, const TraceIndex& t, const Deadlock& d,
                         const std::set<std::vector<EventId>>& cross, uint64_t seed) {
  witness::Checker checker(trace);
  witness::Witness w;
  w.notion = witness::Notion::Enabled;
  w.first = w.second = d.cycle[0].event;
  w.prefix = d.witness;
  EXPECT_EQ(checker.check(w).rule, witness::Rule::Conflict)
      << checker.check(w).message << ", " << testing::trace_context(seed, trace);
  std::vector<uint32_t> ran(t.thread_count(), 0);
  std::set<uint32_t> in;
  std::map<LockId, std::map<ThreadId, bool>> holders;  // lock -> thread -> read mode
  for (EventId id : d.witness) {
    const uint32_t i = static_cast<uint32_t>(trace.index_of(id));
    const Event& e = t.event(i);
    ++ran[e.thread];
    in.insert(i);
    if (is_acquire_op(e.op)) holders[e.target][e.thread] = e.op == Op::ReadAcquire;
    if (is_release_op(e.op)) holders[e.target].erase(e.thread);
  }
  const auto blocked = [&](uint32_t a) {
    const Event& e = t.event(a);
    if (!is_acquire_op(e.op) && e.op != Op::Request) return false;
    bool held = false;
    for (const auto& [u, read_hold] : holders[e.target])
      held |= u != e.thread && !(e.op == Op::ReadAcquire && read_hold);
    return held;
  };
  std::set<EventId> listed;
  for (const DeadlockStep& s : d.cycle) {
    const uint32_t a = static_cast<uint32_t>(trace.index_of(s.event));
    listed.insert(s.event);
    const uint32_t fork = t.fork_of(t.event(a).thread);
    EXPECT_TRUE(fork == kNoIndex || in.count(fork)) << testing::trace_context(seed, trace);
    EXPECT_EQ(ran[t.event(a).thread], t.index_in_thread(a));
    EXPECT_TRUE(blocked(a)) << testing::trace_context(seed, trace);
  }
  for (ThreadId u = 0; u < t.thread_count(); ++u) {
    const uint32_t fork = t.fork_of(u);
    const auto& events = t.thread_events(u);
    if ((fork != kNoIndex && !in.count(fork)) || ran[u] == events.size()) continue;
    const uint32_t next = events[ran[u]];
    if (blocked(next)) {
      EXPECT_TRUE(listed.count(t.id(next))) << testing::trace_context(seed, trace);
      continue;
    }
    if (ran[u] == 0) continue;
    const Event& e = t.event(next);
    bool waits = false;
    if (e.op == Op::Join) waits = ran[e.target] < t.thread_events(e.target).size();
    if (e.op == Op::Recv)
      for (uint32_t snd : t.sends_before(next)) waits |= !in.count(snd);
    EXPECT_TRUE(waits) << "thread " << u << " neither done nor waiting, "
                       << testing::trace_context(seed, trace);
  }
  return cross.count(sorted_requests(d)) > 0;
}

TEST(SpdProperty, SoundForDefB4AndCompleteForSyncPreservingDeadlocks) {
  const int n = testing::property_iterations(3000);
  int with_deadlocks = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = generate_trace(options(seed));
    const TraceIndex t(trace);
    const RaceSink spd = run_engine("spd", trace);
    const RaceSink exact = run_engine("exact-deadlocks", trace);
    // exact-ct-deadlocks only where spd checked a pattern with a join step.
    std::set<std::vector<EventId>> cross;
    if (stat(spd, "join_patterns") > 0) {
      const RaceSink exact_ct = run_engine("exact-ct-deadlocks", trace);
      for (const Finding& f : exact_ct.findings()) cross.insert(sorted_requests(f.deadlock));
    }
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
    uint64_t cross_thread = 0;
    for (const Finding& f : spd.findings()) {
      ASSERT_EQ(f.kind, FindingKind::Deadlock);
      const Deadlock& d = f.deadlock;
      if (!predictable.count(sorted_requests(d))) {
        // A pattern with a join step: a Def. B.7 deadlock, not one of Def. B.4.
        EXPECT_TRUE(expect_cross_thread(trace, t, d, cross, seed))
            << "spd's cross-thread deadlock is not among exact-ct-deadlocks' sets, "
            << testing::trace_context(seed, trace);
        ++cross_thread;
        continue;
      }
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
    EXPECT_EQ(cross_thread, stat(spd, "cross_thread_deadlocks"))
        << testing::trace_context(seed, trace);
  }
  // Deadlocks must be frequent enough for the comparison to mean something (81 of the 3,000
  // traces have one; the others check that neither spd nor the reference finds one).
  EXPECT_GT(with_deadlocks, n / 50);
}

// Random runs of the shape of Sulzmann and Thiemann's Fig. 5: T0 forks T1 (and T3), takes a
// lock (usually), forks T2 and joins it inside that section; T1, T2 and T3 take one or two of
// three locks in random orders around reads and writes of two variables. The threads are
// interleaved at random, respecting locks, forks and joins (a run that deadlocks is dropped), so
// the trace is a valid run. The lock a blocked acquire needs is then often held by T0 waiting at
// its join.
struct Step {
  uint32_t thread;
  std::string op;
  std::string target;
};

std::optional<Trace> join_run(uint64_t seed) {
  Rng rng(seed);
  const uint32_t threads = 3 + static_cast<uint32_t>(rng.below(2));
  std::vector<std::vector<Step>> prog(threads);
  // Appending (not operator+) avoids a bogus -Wrestrict of g++ 12.
  const auto lock = [&] { return std::string("l").append(std::to_string(rng.below(3))); };
  const auto access = [&](uint32_t u) {
    if (rng.chance(0.5))
      prog[u].push_back({u, rng.chance(0.5) ? "w" : "r", rng.chance(0.5) ? "x" : "y"});
  };
  const bool guarded = rng.chance(0.8);
  const std::string g = lock();
  prog[0].push_back({0, "fork", "T1"});
  if (threads == 4) prog[0].push_back({0, "fork", "T3"});
  if (guarded) prog[0].push_back({0, "acq", g});
  prog[0].push_back({0, "fork", "T2"});
  access(0);
  prog[0].push_back({0, "join", "T2"});
  if (guarded) prog[0].push_back({0, "rel", g});
  access(0);
  prog[0].push_back({0, "join", "T1"});
  if (threads == 4) prog[0].push_back({0, "join", "T3"});
  for (uint32_t u = 1; u < threads; ++u) {
    const uint64_t sections = 1 + rng.below(2);
    for (uint64_t k = 0; k < sections; ++k) {
      const std::string a = lock(), b = lock();
      access(u);
      prog[u].push_back({u, "acq", a});
      access(u);
      const bool nested = a != b && rng.chance(0.7);
      if (nested) prog[u].push_back({u, "acq", b});
      access(u);
      if (nested) prog[u].push_back({u, "rel", b});
      prog[u].push_back({u, "rel", a});
    }
  }
  // Interleave at random.
  std::vector<size_t> pc(threads, 0);
  std::vector<char> started(threads, 0);
  started[0] = 1;
  std::map<std::string, uint32_t> holder;
  std::string text;
  for (int n = 1;; ++n) {
    std::vector<uint32_t> enabled;
    for (uint32_t u = 0; u < threads; ++u) {
      if (!started[u] || pc[u] == prog[u].size()) continue;
      const Step& s = prog[u][pc[u]];
      if (s.op == "acq" && holder.count(s.target)) continue;
      if (s.op == "join" &&
          pc[std::stoul(s.target.substr(1))] < prog[std::stoul(s.target.substr(1))].size())
        continue;
      enabled.push_back(u);
    }
    if (enabled.empty()) break;
    const uint32_t u = enabled[rng.below(enabled.size())];
    const Step& s = prog[u][pc[u]++];
    if (s.op == "acq") holder[s.target] = u;
    if (s.op == "rel") holder.erase(s.target);
    if (s.op == "fork") started[std::stoul(s.target.substr(1))] = 1;
    text.append("T").append(std::to_string(u)).append("|").append(s.op).append("(");
    text.append(s.target).append(")|").append(std::to_string(n)).append("\n");
  }
  for (uint32_t u = 0; u < threads; ++u)
    if (pc[u] < prog[u].size()) return std::nullopt;  // the run deadlocked
  return parse_trace(text);
}

// Every cross-thread deadlock spd reports is one of exact-ct-deadlocks' (Def. B.7), with a
// valid prefix; the traces have many, none of which is a Def. B.4 deadlock: there the
// cross-thread reading changes spd's verdict.
TEST(SpdProperty, JoinStepPatternsAreCrossThreadDeadlocks) {
  const int n = testing::property_iterations(1500);
  uint64_t cross_thread = 0, runs = 0, sets = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const std::optional<Trace> run = join_run(seed);
    if (!run) continue;
    ++runs;
    const Trace& trace = *run;
    const TraceIndex t(trace);
    const RaceSink spd = run_engine("spd", trace);
    if (stat(spd, "join_patterns") == 0) continue;
    const RaceSink exact = run_engine("exact-deadlocks", trace);
    const RaceSink exact_ct = run_engine("exact-ct-deadlocks", trace);
    std::set<std::vector<EventId>> predictable, cross;
    for (const Finding& f : exact.findings()) predictable.insert(sorted_requests(f.deadlock));
    for (const Finding& f : exact_ct.findings()) cross.insert(sorted_requests(f.deadlock));
    uint64_t here = 0;
    for (const Finding& f : spd.findings()) {
      if (predictable.count(sorted_requests(f.deadlock))) continue;  // Def. B.4 (test above)
      EXPECT_TRUE(expect_cross_thread(trace, t, f.deadlock, cross, seed))
          << "spd's cross-thread deadlock is not among exact-ct-deadlocks' sets, "
          << testing::trace_context(seed, trace);
      ++here;
    }
    EXPECT_EQ(here, stat(spd, "cross_thread_deadlocks")) << testing::trace_context(seed, trace);
    cross_thread += here;
    sets += cross.size();
  }
  // 693 of the 1,500 runs complete; spd reports 44 cross-thread deadlocks in them, each one of
  // exact-ct-deadlocks' sets (which list more: spd tries one instance per pattern).
  EXPECT_GT(runs, static_cast<uint64_t>(n) / 3);
  EXPECT_GT(cross_thread, static_cast<uint64_t>(n) / 50);
  EXPECT_GE(sets, cross_thread);
}

// Random runs that may block: 2-4 threads take one or two of three locks, each in write or read
// mode, around accesses to two variables, interleaved at random. A thread whose next acquire
// finds its lock held in a conflicting mode waits; the run stops when no thread can move (a
// deadlock) or, at random, earlier. Every waiting thread then ends with its pending request:
// req(l) for a write acquire, rreq(l) for a read acquire (what the recorder writes for a thread
// blocked in pthread_rwlock_wrlock or pthread_rwlock_rdlock when the program exits).
struct BlockedRun {
  Trace trace;
  bool deadlocked = false;    // no thread could move and some waited
  bool read_request = false;  // a pending rreq is one of the waiting threads' requests
};

BlockedRun blocked_run(uint64_t seed) {
  Rng rng(seed * 7919 + 1);
  const uint32_t threads = 2 + static_cast<uint32_t>(rng.below(3));
  std::vector<std::vector<Step>> prog(threads);
  const auto lock = [&] { return std::string("l").append(std::to_string(rng.below(3))); };
  const auto access = [&](uint32_t u) {
    if (rng.chance(0.4))
      prog[u].push_back({u, rng.chance(0.5) ? "w" : "r", rng.chance(0.5) ? "x" : "y"});
  };
  for (uint32_t u = 0; u < threads; ++u) {
    const uint64_t sections = 1 + rng.below(2);
    for (uint64_t k = 0; k < sections; ++k) {
      const std::string a = lock(), b = lock();
      const bool ra = rng.chance(0.4), rb = rng.chance(0.4);
      access(u);
      prog[u].push_back({u, ra ? "racq" : "acq", a});
      access(u);
      const bool nested = a != b && rng.chance(0.8);
      if (nested) prog[u].push_back({u, rb ? "racq" : "acq", b});
      access(u);
      if (nested) prog[u].push_back({u, rb ? "rrel" : "rel", b});
      prog[u].push_back({u, ra ? "rrel" : "rel", a});
    }
  }
  std::vector<size_t> pc(threads, 0);
  std::map<std::string, uint32_t> writer;
  std::map<std::string, std::set<uint32_t>> readers;
  const auto waits = [&](uint32_t u) {
    if (pc[u] == prog[u].size()) return false;
    const Step& s = prog[u][pc[u]];
    if (s.op != "acq" && s.op != "racq") return false;
    if (writer.count(s.target)) return true;
    return s.op == "acq" && !readers[s.target].empty();
  };
  BlockedRun out;
  std::string text;
  int n = 0;
  const auto line = [&](uint32_t u, const std::string& op, const std::string& target) {
    text.append("T").append(std::to_string(u)).append("|").append(op).append("(");
    text.append(target).append(")|").append(std::to_string(++n)).append("\n");
  };
  while (true) {
    std::vector<uint32_t> enabled;
    bool waiting = false;
    for (uint32_t u = 0; u < threads; ++u) {
      if (waits(u))
        waiting = true;
      else if (pc[u] < prog[u].size())
        enabled.push_back(u);
    }
    if (enabled.empty() || (waiting && rng.chance(0.02))) {
      out.deadlocked = enabled.empty() && waiting;
      for (uint32_t u = 0; u < threads; ++u) {
        if (!waits(u)) continue;
        const Step& s = prog[u][pc[u]];
        out.read_request |= s.op == "racq";
        line(u, s.op == "racq" ? "rreq" : "req", s.target);
      }
      break;
    }
    const uint32_t u = enabled[rng.below(enabled.size())];
    const Step& s = prog[u][pc[u]++];
    if (s.op == "acq") writer[s.target] = u;
    if (s.op == "rel") writer.erase(s.target);
    if (s.op == "racq") readers[s.target].insert(u);
    if (s.op == "rrel") readers[s.target].erase(u);
    line(u, s.op, s.target);
  }
  out.trace = parse_trace(text);
  return out;
}

// Pending requests in both modes against the ground truth: every deadlock spd reports is a
// predictable deadlock (Def. B.4) that exact-deadlocks lists, and a run that did deadlock is
// reported by exact, spd and lockorder. Among them are runs whose deadlock waits at a read
// request (a read-mode step blocked by a write hold).
TEST(SpdProperty, PendingRequestsInBothModesAgreeWithExact) {
  const int n = testing::property_iterations(1500);
  int deadlocked = 0, read_steps = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const BlockedRun run = blocked_run(seed);
    const Trace& trace = run.trace;
    const RaceSink spd = run_engine("spd", trace);
    const RaceSink exact = run_engine("exact-deadlocks", trace);
    std::set<std::vector<EventId>> predictable;
    for (const Finding& f : exact.findings()) predictable.insert(sorted_requests(f.deadlock));
    for (const Finding& f : spd.findings())
      EXPECT_TRUE(predictable.count(sorted_requests(f.deadlock)))
          << "spd's deadlock is not among exact's, " << testing::trace_context(seed, trace);
    if (!run.deadlocked) continue;
    ++deadlocked;
    read_steps += run.read_request;
    EXPECT_FALSE(exact.findings().empty()) << testing::trace_context(seed, trace);
    EXPECT_FALSE(spd.findings().empty()) << testing::trace_context(seed, trace);
    EXPECT_FALSE(run_engine("lockorder", trace).findings().empty())
        << testing::trace_context(seed, trace);
  }
  // 107 of the 1,500 runs deadlock, 66 of them with a pending read request (rreq).
  EXPECT_GT(deadlocked, n / 20);
  EXPECT_GT(read_steps, n / 100);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
