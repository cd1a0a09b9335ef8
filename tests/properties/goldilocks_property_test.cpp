// Goldilocks (Elmas and Qadeer) on random well-formed traces:
//  - Theorem 2 against an independent vector-clock happens-before oracle: `goldilocks` flags an
//    access iff the previous access to its variable is not HB-before it; `goldilocks-rw` flags a
//    read iff the last write is not HB-before it, and a write iff the last write or a read since
//    that write is not HB-before it (pairs: with each thread's last read since the write);
//  - the lazy engines report the same pairs as the eager reference, with the default list
//    trimming and with a tiny one (which folds into the epoch summary all the time);
//  - the annotated lock sets of the lazy engines equal those of the eager reference;
//  - with read-write locks (half of the traces, half of their acquires in read mode) all of the
//    above against HB of the standard reduction, and the engines report on a trace exactly what
//    they report on its explicitly reduced trace (read section of l by u: lock (l,u); write
//    section: every (l,u)).
// Traces come from a small local generator (nested and interleaved locks, optional fork/join,
// threads that start without a fork). Fixed seeds; a failure prints the seed and the trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <memory>
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
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"
#include "support/goldilocks_eager.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using Pairs = std::set<std::pair<EventId, EventId>>;
using Maker = std::function<std::unique_ptr<Engine>(EngineContext&)>;

bool sanitized() {
  return std::getenv("RACEPRED_SANITIZED") != nullptr;
}

// --- random well-formed traces (the shared generator, trace/generator.hpp) -------------------
struct TraceShape {
  uint32_t threads = 3;
  uint32_t variables = 2;
  uint32_t locks = 2;
  uint64_t events = 30;
  double forked_share = 0.5;     // chance that a thread other than T0 is started by a fork
  uint32_t stale_variables = 0;  // variables touched only in the first events (list folding)
  bool joins = true;
  double read_lock_share = 0;  // share of the acquires in read mode
  double sync_share = 0;       // share of the steps that are send/recv (sync objects S<n>)
};

// Forks and joins at random points (joined threads may still hold locks), threads unforked
// next to forked ones, overlapping critical sections, uniformly chosen variables.
Trace random_trace(uint64_t seed, const TraceShape& shape) {
  GeneratorOptions o;
  o.seed = seed;
  o.threads = shape.threads;
  o.variables = shape.variables;
  o.locks = shape.locks;
  o.nesting = shape.locks;
  o.events = shape.events;
  o.shape = ForkShape::Random;
  o.forked_share = shape.forked_share;
  o.join_share = shape.joins ? 0.05 : 0;
  o.stale_variables = shape.stale_variables;
  o.nested_releases = false;
  o.release_at_end = false;
  o.local_share = 0;
  o.guarded_share = 0;
  o.write_share = 0.5;
  o.switch_share = 1;
  o.cs_share = 0.5;
  o.read_lock_share = shape.read_lock_share;
  o.sync_share = shape.sync_share;
  return generate_trace(o);
}

TraceShape random_shape(Rng& rng) {
  TraceShape s;
  s.threads = 2 + static_cast<uint32_t>(rng.below(4));
  s.variables = 1 + static_cast<uint32_t>(rng.below(3));
  s.locks = static_cast<uint32_t>(rng.below(4));
  s.events = 2 + rng.below(45);
  s.forked_share = static_cast<double>(rng.below(3)) * 0.5;
  return s;
}

// A trace of the next random shape with that share of read-mode acquires (and of send/recv).
Trace next_trace(Rng& shapes, uint64_t seed, double read_lock_share, double sync_share = 0) {
  TraceShape shape = random_shape(shapes);
  shape.read_lock_share = read_lock_share;
  shape.sync_share = sync_share;
  return random_trace(seed, shape);
}

// --- independent happens-before oracle (vector clocks per event) ----------------------------
// With read-write locks: HB of the standard reduction (a read section is ordered after the
// earlier write sections, a write section after every earlier section).
struct Oracle {
  std::vector<VectorClock> clock;  // per event index
  const Trace& trace;

  explicit Oracle(const Trace& tr) : trace(tr) {
    std::vector<VectorClock> threads(tr.symbols.threads.size());
    std::vector<VectorClock> locks(tr.symbols.locks.size());
    std::vector<VectorClock> read_releases(tr.symbols.locks.size());
    std::vector<VectorClock> sent(tr.symbols.locks.size());  // every send on the object
    for (const Event& e : tr.events) {
      VectorClock& c = threads[e.thread];
      c.increment(e.thread);
      switch (e.op) {
        case Op::Acquire:
          c.join(locks[e.target]);
          c.join(read_releases[e.target]);
          break;
        case Op::ReadAcquire:
          c.join(locks[e.target]);
          break;
        case Op::Release:
          locks[e.target].join(c);
          break;
        case Op::ReadRelease:
          read_releases[e.target].join(c);
          break;
        case Op::Fork:
          threads[e.target].join(c);
          break;
        case Op::Join:
          c.join(threads[e.target]);
          break;
        case Op::Send:
          sent[e.target].join(c);
          break;
        case Op::Recv:
          c.join(sent[e.target]);
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
// Reuses the slot of a joined thread at every fork where it may (from the second slot on).
const GoldilocksLazyOptions kReuseSlots{uint64_t{1} << 16, true, 1};
const GoldilocksLazyOptions kTinyListReuseSlots{2, false, 1};
// The sparse thread × thread state from the first slot on, with two live replay rows shared by
// all threads (so live states are evicted all the time); and with a tiny list and slot reuse.
const GoldilocksLazyOptions kSparse{uint64_t{1} << 16, true, 256, 0, 2};
const GoldilocksLazyOptions kSparseTinyListReuseSlots{2, false, 1, 0, 1};
// Dense whatever the number of slots.
const GoldilocksLazyOptions kDense{uint64_t{1} << 16, true, 256, SIZE_MAX, 0};
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
      {"goldilocks lazy, slot reuse vs HB oracle", lazy(GoldilocksDiscipline::MutEx, kReuseSlots),
       &mutex_expected},
      {"goldilocks-rw lazy, slot reuse vs HB oracle",
       lazy(GoldilocksDiscipline::ConcurrentReads, kReuseSlots), &rw_expected},
      {"goldilocks-rw lazy, tiny list and slot reuse vs HB oracle",
       lazy(GoldilocksDiscipline::ConcurrentReads, kTinyListReuseSlots), &rw_expected},
      {"goldilocks lazy, sparse vs HB oracle", lazy(GoldilocksDiscipline::MutEx, kSparse),
       &mutex_expected},
      {"goldilocks-rw lazy, sparse vs HB oracle",
       lazy(GoldilocksDiscipline::ConcurrentReads, kSparse), &rw_expected},
      {"goldilocks lazy, sparse, tiny list and slot reuse vs HB oracle",
       lazy(GoldilocksDiscipline::MutEx, kSparseTinyListReuseSlots), &mutex_expected},
      {"goldilocks-rw lazy, sparse, tiny list and slot reuse vs HB oracle",
       lazy(GoldilocksDiscipline::ConcurrentReads, kSparseTinyListReuseSlots), &rw_expected},
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
      const std::pair<const char*, GoldilocksLazyOptions> variants[] = {
          {"", GoldilocksLazyOptions{}}, {" (tiny list)", kTinyList}, {" (sparse)", kSparse}};
      for (const auto& [what, options] : variants) {
        const std::vector<std::string> got = annotations(lazy(d, options), trace);
        for (size_t i = 0; i < want.size(); ++i)
          if (got[i] != want[i])
            return std::string("annotation differs") + what + ":\n  lazy:  " + got[i] +
                   "\n  eager: " + want[i];
      }
    }
  }
  return {};
}

TEST(GoldilocksProperty, AgreesWithHappensBeforeAndEagerRules) {
  const int iterations = sanitized() ? 400 : 4000;
  Rng shapes(0x601d1'0c5);
  int with_races = 0;
  for (int i = 0; i < iterations; ++i) {
    const uint64_t seed = 1000 + static_cast<uint64_t>(i);
    const Trace trace = next_trace(shapes, seed, i % 2 == 1 ? 0.5 : 0);
    const std::string failure = check_trace(trace, /*with_annotations=*/i % 4 == 0);
    if (!failure.empty()) {
      FAIL() << "seed " << seed << ": " << failure << "\ntrace (STD):\n" << to_std_text(trace);
    }
    if (!run(registered("goldilocks-rw"), trace).empty()) ++with_races;
  }
  // The generator must produce both racy and race-free traces for the test to mean something.
  EXPECT_GT(with_races, iterations / 10);
  EXPECT_LT(with_races, iterations * 9 / 10);
}

// Synchronisation orders (volatile accesses in Elmas and Qadeer): every lazy variant and the
// eager rules agree with the HB oracle in which every recv is after every earlier send.
TEST(GoldilocksProperty, SyncOrdersAgreeWithHappensBeforeAndEagerRules) {
  const int iterations = sanitized() ? 400 : 3000;
  Rng shapes(0x5e4d);
  int with_races = 0, with_sync = 0;
  for (int i = 0; i < iterations; ++i) {
    const uint64_t seed = 500000 + static_cast<uint64_t>(i);
    const Trace trace = next_trace(shapes, seed, i % 3 == 1 ? 0.5 : 0, 0.2);
    const std::string failure = check_trace(trace, /*with_annotations=*/false);
    if (!failure.empty()) {
      FAIL() << "seed " << seed << ": " << failure << "\ntrace (STD):\n" << to_std_text(trace);
    }
    if (!run(registered("goldilocks-rw"), trace).empty()) ++with_races;
    for (const Event& e : trace.events) {
      if (!is_sync_op(e.op)) continue;
      ++with_sync;
      break;
    }
  }
  EXPECT_GT(with_races, iterations / 10);
  EXPECT_GT(with_sync, iterations / 2);
  // A long trace: the list is trimmed and folded into the summary with send/recv entries.
  TraceShape shape;
  shape.threads = 6;
  shape.variables = 30;
  shape.locks = 6;
  shape.events = sanitized() ? 60000 : 200000;
  shape.forked_share = 0.5;
  shape.stale_variables = 5;
  shape.joins = false;
  shape.sync_share = 0.05;
  const Trace trace = random_trace(91, shape);
  const Oracle oracle(trace);
  std::set<EventId> flagged;
  EXPECT_EQ(run(registered("goldilocks"), trace), oracle.mutex_pairs());
  EXPECT_EQ(run(registered("goldilocks-rw"), trace), oracle.rw_pairs(flagged));
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
    shape.forked_share = 0.5;
    shape.stale_variables = 5;
    shape.joins = false;
    const Trace trace = random_trace(seed, shape);
    const Oracle oracle(trace);
    std::set<EventId> flagged;
    EXPECT_EQ(run(registered("goldilocks"), trace), oracle.mutex_pairs()) << "seed " << seed;
    EXPECT_EQ(run(registered("goldilocks-rw"), trace), oracle.rw_pairs(flagged)) << "seed " << seed;
  }
}

// Both lazy engines with each of `variants` report exactly the HB oracle's pairs and racy events.
void expect_oracle_reports(const Trace& trace, uint64_t seed,
                           std::initializer_list<GoldilocksLazyOptions> variants) {
  const Oracle oracle(trace);
  std::set<EventId> flagged;
  const Pairs mutex_expected = oracle.mutex_pairs();
  const Pairs rw_expected = oracle.rw_pairs(flagged);
  for (const GoldilocksLazyOptions& options : variants) {
    const std::string what = "seed " + std::to_string(seed) + " slot budget " +
                             std::to_string(options.slot_budget) + " sparse beyond " +
                             std::to_string(options.sparse_beyond);
    EXPECT_EQ(run(lazy(GoldilocksDiscipline::MutEx, options), trace), mutex_expected) << what;
    std::set<EventId> racy;
    EXPECT_EQ(run(lazy(GoldilocksDiscipline::ConcurrentReads, options), trace, &racy), rw_expected)
        << what;
    EXPECT_EQ(racy, flagged) << what;
  }
}

// Many short-lived threads (the generator's churn shape, like the goroutines preset): with slot
// reuse from the second slot on and with the default budget (no reuse at this size), the engines
// report exactly the HB oracle's pairs. Most forks reuse a slot there.
TEST(GoldilocksProperty, ChurnReusesSlotsWithTheSameReports) {
  const int traces = sanitized() ? 2 : 12;
  for (int i = 0; i < traces; ++i) {
    GeneratorOptions o;
    o.seed = 300 + static_cast<uint64_t>(i);
    o.shape = ForkShape::Churn;
    o.threads = 400;
    o.live = 2 + static_cast<uint32_t>(i % 4) * 3;
    o.variables = 40;
    o.locks = 4;
    o.nesting = 2;
    o.events = sanitized() ? 4000 : 20000;
    o.read_lock_share = i % 2 ? 0.5 : 0;
    expect_oracle_reports(generate_trace(o), o.seed,
                          {kReuseSlots, kTinyListReuseSlots, GoldilocksLazyOptions{}});
  }
}

// Variables read by many threads between writes (goldilocks-rw's read slices past 16 readers get
// a per-slot index, and the stride grows while they exist): the oracle's pairs and racy events.
TEST(GoldilocksProperty, ManyReadersPerWrite) {
  const int traces = sanitized() ? 2 : 10;
  for (int i = 0; i < traces; ++i) {
    GeneratorOptions o;
    o.seed = 700 + static_cast<uint64_t>(i);
    o.shape = i % 2 ? ForkShape::Random : ForkShape::Fork;
    o.threads = 20 + 10 * static_cast<uint32_t>(i);
    o.variables = 3;
    o.locks = 3;
    o.write_share = 0.03;
    o.events = 6000;
    o.read_lock_share = i % 3 == 0 ? 0.5 : 0;
    const Trace trace = generate_trace(o);
    const Oracle oracle(trace);
    std::set<EventId> flagged;
    const Pairs expected = oracle.rw_pairs(flagged);
    for (const GoldilocksLazyOptions& options : {GoldilocksLazyOptions{}, kTinyListReuseSlots}) {
      std::set<EventId> racy;
      EXPECT_EQ(run(lazy(GoldilocksDiscipline::ConcurrentReads, options), trace, &racy), expected)
          << "seed " << o.seed;
      EXPECT_EQ(racy, flagged) << "seed " << o.seed;
    }
  }
}

// Many threads alive at once (the threads20k preset's fork shape, scaled down), many readers
// per variable: the dense thread × thread state and the sparse one (from the first slot on,
// with few live replay rows, with and without a tiny list and slot reuse) report exactly the
// HB oracle's pairs and racy events.
TEST(GoldilocksProperty, ManyThreadsSparseEqualsDense) {
  const int traces = sanitized() ? 3 : 16;
  for (int i = 0; i < traces; ++i) {
    GeneratorOptions o;
    o.seed = 900 + static_cast<uint64_t>(i);
    o.shape = i % 3 == 2 ? ForkShape::Random : ForkShape::Fork;
    o.threads = 40 + 25 * static_cast<uint32_t>(i % 8);
    o.variables = 6 + static_cast<uint32_t>(i % 5) * 20;
    o.locks = 2 + static_cast<uint32_t>(i % 4) * 6;
    o.nesting = 2;
    o.write_share = i % 2 ? 0.05 : 0.3;
    o.events = sanitized() ? 3000 : 8000;
    o.read_lock_share = i % 3 == 0 ? 0.5 : 0;
    const GoldilocksLazyOptions sparse_rows{uint64_t{1} << 16, true, 256, 0, 3};
    expect_oracle_reports(generate_trace(o), o.seed,
                          {kDense, kSparse, sparse_rows, kSparseTinyListReuseSlots});
  }
}

// The standard reduction made explicit: lock (l,u) is named "l/u"; a write section of l takes
// (l,0), (l,1), … and releases them in reverse order, a read section of l by u takes (l,u).
// Event i of the trace keeps its id times `scale`; the added acquires and releases of a write
// section get the ids in between.
Trace reduce_read_locks(const Trace& trace, EventId scale) {
  Trace out;
  out.symbols.threads = trace.symbols.threads;
  out.symbols.variables = trace.symbols.variables;
  out.symbols.locations = trace.symbols.locations;
  const uint32_t threads = trace.symbols.threads.size();
  auto token = [&](LockId l, ThreadId u) {
    return out.symbols.locks.intern(std::string(trace.lock_name(l)) + "/" +
                                    std::string(trace.thread_name(u)));
  };
  for (size_t i = 0; i < trace.size(); ++i) {
    const Event& e = trace.events[i];
    const EventId id = trace.ids[i] * scale;
    auto emit = [&](Op op, uint32_t target, EventId k) {
      Event r = e;
      r.op = op;
      r.target = target;
      out.events.push_back(r);
      out.ids.push_back(id + k);
      out.lines.push_back(0);
    };
    switch (e.op) {
      case Op::Acquire:
        for (ThreadId u = 0; u < threads; ++u) emit(Op::Acquire, token(e.target, u), u);
        break;
      case Op::Release:
        for (ThreadId u = threads; u-- > 0;) emit(Op::Release, token(e.target, u), threads - 1 - u);
        break;
      case Op::ReadAcquire:
        emit(Op::Acquire, token(e.target, e.thread), 0);
        break;
      case Op::ReadRelease:
        emit(Op::Release, token(e.target, e.thread), 0);
        break;
      default:
        emit(e.op, e.target, 0);
        break;
    }
  }
  return out;
}

TEST(GoldilocksProperty, ReadLocksReportAsOnTheReducedTrace) {
  const int iterations = sanitized() ? 300 : 3000;
  Rng shapes(0x2ead'10c5);
  int with_read_locks = 0;
  for (int i = 0; i < iterations; ++i) {
    const uint64_t seed = 50000 + static_cast<uint64_t>(i);
    // up to all acquires in read mode
    const Trace trace = next_trace(shapes, seed, 0.25 * static_cast<double>(1 + i % 4));
    const EventId scale = trace.symbols.threads.size() + 1;
    const Trace reduced = reduce_read_locks(trace, scale);
    if (std::any_of(trace.events.begin(), trace.events.end(),
                    [](const Event& e) { return e.op == Op::ReadAcquire; }))
      ++with_read_locks;
    for (const char* name : {"goldilocks", "goldilocks-rw"}) {
      for (const bool tiny : {false, true}) {
        const Maker make =
            tiny ? lazy(std::string(name) == "goldilocks" ? GoldilocksDiscipline::MutEx
                                                          : GoldilocksDiscipline::ConcurrentReads,
                        kTinyList)
                 : registered(name);
        std::set<EventId> racy;
        std::set<EventId> reduced_racy;
        const Pairs got = run(make, trace, &racy);
        Pairs want;
        for (const auto& [a, b] : run(make, reduced, &reduced_racy))
          want.emplace(a / scale, b / scale);
        std::set<EventId> want_racy;
        for (EventId e : reduced_racy) want_racy.insert(e / scale);
        if (got != want || racy != want_racy)
          FAIL() << "seed " << seed << ": " << name << (tiny ? " (tiny list)" : "") << ": got "
                 << show(got) << " on the reduced trace " << show(want) << "\ntrace (STD):\n"
                 << to_std_text(trace);
      }
    }
  }
  EXPECT_GT(with_read_locks, iterations / 2);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
