// Goldilocks (seed 002) on random well-formed traces:
//  - Theorem 2 against an independent vector-clock happens-before oracle: `goldilocks` flags an
//    access iff the previous access to its variable is not HB-before it; `goldilocks-rw` flags a
//    read iff the last write is not HB-before it, and a write iff the last write or a read since
//    that write is not HB-before it (pairs: with each thread's last read since the write);
//  - the lazy engines report the same pairs as the eager reference, with the default list
//    trimming and with a tiny one (which folds into the epoch summary all the time);
//  - the annotated lock sets of the lazy engines equal those of the eager reference.
// Traces come from a small local generator (nested and interleaved locks, optional fork/join,
// threads that start without a fork). Fixed seeds; a failure prints the seed and the trace.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "racepred/clock/vector_clock.hpp"
#include "racepred/driver/annotate.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/engines/goldilocks/goldilocks.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace {

using Pairs = std::set<std::pair<EventId, EventId>>;
using Maker = std::function<std::unique_ptr<Engine>(EngineContext&)>;

bool sanitized() {
  return std::getenv("RACEPRED_SANITIZED") != nullptr;
}

// --- random well-formed traces --------------------------------------------------------------
struct TraceShape {
  int threads = 3;
  int variables = 2;
  int locks = 2;
  int events = 30;
  int forked_percent = 50;  // chance that a thread other than T0 is started by a fork
  int stale_variables = 0;  // variables touched only in the first events (forces list folding)
  bool joins = true;
  int access_percent = 50;
};

std::string random_trace(uint64_t seed, const TraceShape& shape) {
  std::mt19937_64 rng(seed);
  auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const int n = shape.threads;
  std::vector<bool> needs_fork(n, false), started(n, false), joined(n, false);
  std::vector<std::vector<int>> held(n);
  std::vector<int> owner(shape.locks, -1);
  started[0] = true;
  for (int t = 1; t < n; ++t) needs_fork[t] = chance(shape.forked_percent);
  std::ostringstream out;
  int emitted = 0;
  auto emit = [&](int t, const std::string& op) {
    out << 'T' << t << '|' << op << "|L" << ++emitted << '\n';
    started[t] = true;
  };
  for (int step = 0; step < shape.events * 4 && emitted < shape.events; ++step) {
    std::vector<int> runnable;
    for (int t = 0; t < n; ++t)
      if (!joined[t] && !(needs_fork[t] && !started[t])) runnable.push_back(t);
    if (runnable.empty()) break;
    const int t = runnable[pick(runnable.size())];
    const int roll = static_cast<int>(rng() % 100);
    // An access with probability access_percent; the rest is spread like the default 50/50.
    const int action = roll < shape.access_percent
                           ? 0
                           : 50 + (roll - shape.access_percent) * 50 / (100 - shape.access_percent);
    if (action < 50) {  // access
      // Stale variables: any variable in the first 64 events, then rarely (their records are
      // old when they are checked again, so the list has been folded past them).
      const int stale = emitted >= 64 && rng() % 2000 != 0 ? shape.stale_variables : 0;
      const int x = stale + static_cast<int>(pick(shape.variables - stale));
      emit(t, std::string(chance(50) ? "r" : "w") + "(x" + std::to_string(x) + ")");
    } else if (action < 66) {  // acquire a free lock
      if (shape.locks == 0) continue;
      const int l = static_cast<int>(pick(shape.locks));
      if (owner[l] != -1) continue;
      owner[l] = t;
      held[t].push_back(l);
      emit(t, "acq(m" + std::to_string(l) + ")");
    } else if (action < 84) {  // release: mostly the innermost lock, sometimes another one
      if (held[t].empty()) continue;
      const size_t i = chance(75) ? held[t].size() - 1 : pick(held[t].size());
      const int l = held[t][i];
      held[t].erase(held[t].begin() + static_cast<std::ptrdiff_t>(i));
      owner[l] = -1;
      emit(t, "rel(m" + std::to_string(l) + ")");
    } else if (action < 92) {  // fork a thread that waits for it
      std::vector<int> children;
      for (int u = 0; u < n; ++u)
        if (needs_fork[u] && !started[u]) children.push_back(u);
      if (children.empty()) continue;
      const int u = children[pick(children.size())];
      emit(t, "fork(T" + std::to_string(u) + ")");
      started[u] = true;
    } else {  // join a thread that has run (it may still hold locks: they stay held)
      if (!shape.joins) continue;
      std::vector<int> targets;
      for (int u = 0; u < n; ++u)
        if (u != t && started[u] && !joined[u] && u != 0) targets.push_back(u);
      if (targets.empty()) continue;
      const int u = targets[pick(targets.size())];
      emit(t, "join(T" + std::to_string(u) + ")");
      joined[u] = true;
    }
  }
  return out.str();
}

TraceShape random_shape(std::mt19937_64& rng) {
  TraceShape s;
  s.threads = 2 + static_cast<int>(rng() % 4);
  s.variables = 1 + static_cast<int>(rng() % 3);
  s.locks = static_cast<int>(rng() % 4);
  s.events = 2 + static_cast<int>(rng() % 45);
  s.forked_percent = static_cast<int>(rng() % 3) * 50;
  return s;
}

// --- independent happens-before oracle (vector clocks per event) ----------------------------
struct Oracle {
  std::vector<VectorClock> clock;  // per event index
  const Trace& trace;

  explicit Oracle(const Trace& tr) : trace(tr) {
    std::vector<VectorClock> threads(tr.symbols.threads.size());
    std::vector<VectorClock> locks(tr.symbols.locks.size());
    for (const Event& e : tr.events) {
      VectorClock& c = threads[e.thread];
      c.increment(e.thread);
      switch (e.op) {
        case Op::Acquire:
          c.join(locks[e.target]);
          break;
        case Op::Release:
          locks[e.target].join(c);
          break;
        case Op::Fork:
          threads[e.target].join(c);
          break;
        case Op::Join:
          c.join(threads[e.target]);
          break;
        default:
          break;
      }
      clock.push_back(c);
    }
  }
  // Event index a happens before event index b (a < b).
  bool hb(size_t a, size_t b) const {
    const ThreadId t = trace.events[a].thread;
    return clock[a].get(t) <= clock[b].get(t);
  }

  Pairs mutex_pairs() const {
    Pairs out;
    std::vector<size_t> last(trace.symbols.variables.size(), SIZE_MAX);
    for (size_t i = 0; i < trace.size(); ++i) {
      const Event& e = trace.events[i];
      if (!e.is_access()) continue;
      const size_t p = last[e.target];
      if (p != SIZE_MAX && !hb(p, i)) out.emplace(trace.ids[p], trace.ids[i]);
      last[e.target] = i;
    }
    return out;
  }

  // Pairs with each thread's last read since the last write; `flagged` gets the accesses that
  // some conflicting access of that set is unordered with, checking every read since the write.
  Pairs rw_pairs(std::set<EventId>& flagged) const {
    Pairs out;
    const size_t vars = trace.symbols.variables.size();
    std::vector<size_t> last_write(vars, SIZE_MAX);
    std::vector<std::vector<size_t>> reads(vars);  // every read since the last write
    for (size_t i = 0; i < trace.size(); ++i) {
      const Event& e = trace.events[i];
      if (!e.is_access()) continue;
      const size_t w = last_write[e.target];
      if (w != SIZE_MAX && !hb(w, i)) {
        out.emplace(trace.ids[w], trace.ids[i]);
        flagged.insert(trace.ids[i]);
      }
      if (e.op == Op::Read) {
        reads[e.target].push_back(i);
        continue;
      }
      std::vector<size_t> last_read_of(trace.symbols.threads.size(), SIZE_MAX);
      for (size_t r : reads[e.target]) {
        last_read_of[trace.events[r].thread] = r;
        if (!hb(r, i) && trace.events[r].thread != e.thread) flagged.insert(trace.ids[i]);
      }
      for (size_t r : last_read_of)
        if (r != SIZE_MAX && trace.events[r].thread != e.thread && !hb(r, i))
          out.emplace(trace.ids[r], trace.ids[i]);
      last_write[e.target] = i;
      reads[e.target].clear();
    }
    return out;
  }
};

// --- running engines ------------------------------------------------------------------------
Pairs run(const Maker& make, const Trace& trace, std::set<EventId>* racy = nullptr) {
  const RaceSink sink = run_engine(make, trace);
  Pairs out;
  for (const Race& r : sink.races()) out.emplace(r.first.event, r.second.event);
  if (racy) racy->insert(sink.racy_events().begin(), sink.racy_events().end());
  return out;
}

std::vector<std::string> annotations(const Maker& make, const Trace& trace) {
  const AnnotationRun run = annotate_trace(make, "goldilocks", trace, SIZE_MAX);
  std::vector<std::string> rows;
  for (size_t i = 0; i < trace.size(); ++i) {
    const Annotation& row = run.rows[i];
    std::string line = std::to_string(trace.ids[i]) + ":";
    for (const AnnotationCell& c : row) line += " " + c.column + "=" + c.value;
    rows.push_back(line);
  }
  return rows;
}

Maker lazy(GoldilocksDiscipline d, GoldilocksLazyOptions options = {}) {
  return [d, options](EngineContext& c) { return make_goldilocks_lazy(c, d, options); };
}
const GoldilocksLazyOptions kTinyList{2, false};  // trims at nearly every synchronisation event
Maker eager(GoldilocksDiscipline d) {
  return [d](EngineContext& c) { return make_goldilocks_eager(c, d); };
}
Maker registered(const char* name) {
  return [name](EngineContext& c) { return find_engine(name)->make(c); };
}

std::string show(const Pairs& pairs) {
  std::string s;
  for (const auto& [a, b] : pairs) {
    s += '(';
    s += std::to_string(a);
    s += ',';
    s += std::to_string(b);
    s += ") ";
  }
  return s.empty() ? "none" : s;
}

// Checks one trace; returns an empty string or a description of the first difference.
std::string check_trace(const Trace& trace, bool with_annotations) {
  const Oracle oracle(trace);
  const Pairs mutex_expected = oracle.mutex_pairs();
  std::set<EventId> rw_flagged;
  const Pairs rw_expected = oracle.rw_pairs(rw_flagged);
  const struct {
    const char* what;
    Maker make;
    const Pairs* expected;
  } runs[] = {
      {"goldilocks (registered) vs HB oracle", registered("goldilocks"), &mutex_expected},
      {"goldilocks eager vs HB oracle", eager(GoldilocksDiscipline::MutEx), &mutex_expected},
      {"goldilocks lazy, tiny list vs HB oracle", lazy(GoldilocksDiscipline::MutEx, kTinyList),
       &mutex_expected},
      {"goldilocks-rw (registered) vs HB oracle", registered("goldilocks-rw"), &rw_expected},
      {"goldilocks-rw eager vs HB oracle", eager(GoldilocksDiscipline::ConcurrentReads),
       &rw_expected},
      {"goldilocks-rw lazy, tiny list vs HB oracle",
       lazy(GoldilocksDiscipline::ConcurrentReads, kTinyList), &rw_expected},
  };
  for (const auto& r : runs) {
    const Pairs got = run(r.make, trace);
    if (got != *r.expected)
      return std::string(r.what) + ": got " + show(got) + " expected " + show(*r.expected);
  }
  std::set<EventId> racy;
  run(registered("goldilocks-rw"), trace, &racy);
  if (racy != rw_flagged) return "goldilocks-rw: racy events differ from the oracle's";
  if (with_annotations) {
    for (GoldilocksDiscipline d :
         {GoldilocksDiscipline::MutEx, GoldilocksDiscipline::ConcurrentReads}) {
      const std::vector<std::string> want = annotations(eager(d), trace);
      for (const bool tiny : {false, true}) {
        const std::vector<std::string> got =
            annotations(lazy(d, tiny ? kTinyList : GoldilocksLazyOptions{}), trace);
        for (size_t i = 0; i < want.size(); ++i)
          if (got[i] != want[i])
            return std::string("annotation differs") + (tiny ? " (tiny list)" : "") +
                   ":\n  lazy:  " + got[i] + "\n  eager: " + want[i];
      }
    }
  }
  return {};
}

TEST(GoldilocksProperty, AgreesWithHappensBeforeAndEagerRules) {
  const int iterations = sanitized() ? 400 : 4000;
  std::mt19937_64 shapes(0x601d1'0c5);
  int with_races = 0;
  for (int i = 0; i < iterations; ++i) {
    const uint64_t seed = 1000 + static_cast<uint64_t>(i);
    const TraceShape shape = random_shape(shapes);
    const std::string text = random_trace(seed, shape);
    const Trace trace = parse_trace(text);
    const std::string failure = check_trace(trace, /*with_annotations=*/i % 4 == 0);
    if (!failure.empty()) {
      FAIL() << "seed " << seed << ": " << failure << "\ntrace (STD):\n" << text;
    }
    if (!run(registered("goldilocks-rw"), trace).empty()) ++with_races;
  }
  // The generator must produce both racy and race-free traces for the test to mean something.
  EXPECT_GT(with_races, iterations / 10);
  EXPECT_LT(with_races, iterations * 9 / 10);
}

// Long traces: the default list trimming (65536 entries) kicks in, with variables that are
// accessed only at the start (their records pin the list, so it is folded into the summary).
TEST(GoldilocksProperty, LongTracesTrimTheList) {
  const int traces = sanitized() ? 1 : 3;
  for (int i = 0; i < traces; ++i) {
    const uint64_t seed = 77 + static_cast<uint64_t>(i);
    TraceShape shape;
    shape.threads = 6;
    shape.variables = 30;
    shape.locks = 6;
    shape.events = sanitized() ? 60000 : 250000;
    shape.forked_percent = 50;
    shape.stale_variables = 5;
    shape.joins = false;
    shape.access_percent = 25;
    const std::string text = random_trace(seed, shape);
    const Trace trace = parse_trace(text);
    const Oracle oracle(trace);
    std::set<EventId> flagged;
    EXPECT_EQ(run(registered("goldilocks"), trace), oracle.mutex_pairs()) << "seed " << seed;
    EXPECT_EQ(run(registered("goldilocks-rw"), trace), oracle.rw_pairs(flagged)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace racepred
