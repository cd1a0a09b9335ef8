// The predictive partial-order engines (engines/po) against their definitional references
// (tests/support/po_reference.hpp: smallest relations closed under the rules of Sulzmann and
// Thiemann, by fixpoint over event pairs) on random traces of the shared generator, and their
// guarantees against the exact ground truth.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "racepred/clock/thread_clocks.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/po/po_common.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/trace_index.hpp"
#include "support/po_plain.hpp"
#include "support/po_reference.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

// Fewer under the sanitizers, K times as many with RACEPRED_PROPERTY_SCALE=K (as
// testing::property_iterations).
int iterations(int normal) {
  if (std::getenv("RACEPRED_SANITIZED")) return normal / 8;
  const char* scale = std::getenv("RACEPRED_PROPERTY_SCALE");
  const long k = scale != nullptr ? std::strtol(scale, nullptr, 10) : 1;
  return k > 1 ? static_cast<int>(std::min<long>(long{normal} * k, 1L << 30)) : normal;
}

// Two mixes: odd seeds favour many short critical sections on few variables and locks, where
// the release-release rules, S2 and S4 fire.
GeneratorOptions random_options(uint64_t seed, uint32_t max_locks = 3) {
  Rng rng(seed * 104729 + 7);
  const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                              ForkShape::Nested};
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 2 + static_cast<uint32_t>(rng.below(3));
  o.events = 6 + rng.below(36);
  o.variables = 1 + static_cast<uint32_t>(rng.below(3));
  o.locks = 1 + static_cast<uint32_t>(rng.below(max_locks));
  o.nesting = static_cast<uint32_t>(rng.below(3));
  o.shape = shapes[seed % 4];
  o.cs_share = 0.3 + 0.6 * static_cast<double>(rng.below(2));
  o.write_share = 0.5;
  o.local_share = 0.1;
  o.guarded_share = 0.7;
  o.switch_share = 0.6;
  o.release_at_end = rng.chance(0.7);
  o.early_joins = rng.chance(0.5);
  if (seed % 16 == 5) {  // more threads than the first clock stride (8): the tables grow
    o.threads = 9 + static_cast<uint32_t>(rng.below(4));
    o.events = 30 + rng.below(20);
    o.shape = ForkShape::Nested;
  } else if (seed % 4 == 3) {  // rule (b): three threads, two nested locks, one or two variables
    o.threads = 3;
    o.events = 20 + rng.below(25);
    o.variables = 1 + static_cast<uint32_t>(rng.below(2));
    o.locks = 2;
    o.nesting = 2;
    o.cs_share = 0.95;
    o.guarded_share = 0.3;
    o.write_share = 0.5;
    o.switch_share = 0.3;
  } else if (seed % 2 == 1) {
    o.threads = 2 + static_cast<uint32_t>(rng.below(2));
    o.events = 16 + rng.below(30);
    o.variables = 1 + static_cast<uint32_t>(rng.below(2));
    o.locks = 2 + static_cast<uint32_t>(rng.below(2));
    o.nesting = 2;
    o.cs_share = 0.9;
    o.guarded_share = 0.5;
    o.write_share = 0.6;
    o.switch_share = 0.4;
  }
  return o;
}

testing::PoVerdict verdict_of(const RaceSink& sink) {
  testing::PoVerdict v;
  for (const Race& r : sink.races()) v.pairs.emplace(r.first.event, r.second.event);
  v.racy_events.insert(sink.racy_events().begin(), sink.racy_events().end());
  return v;
}

std::string show(const testing::PoVerdict& v) {
  std::string s;
  for (const auto& [a, b] : v.pairs) {
    s += '(';
    s += std::to_string(a);
    s += ',';
    s += std::to_string(b);
    s += ')';
  }
  return s.empty() ? "none" : s;
}

// The plain (unoptimised) versions, checked like the engines.
RaceSink run_plain(const std::string& engine, const Trace& trace) {
  return run_engine(engine == "shb"   ? po::make_shb_plain
                    : engine == "wcp" ? po::make_wcp_plain
                    : engine == "dc"  ? po::make_dc_plain
                    : engine == "wdp" ? po::make_wdp_plain
                    : engine == "sdp" ? po::make_sdp_plain
                                      : po::make_wdc_plain,
                    trace);
}

// read_lock_share: the share of acquires taken in read mode (docs/ENGINES.md "Read-write
// locks"; the reference applies the standard reduction).
// sync_share: the share of steps that are send/recv (a hard edge in every relation).
void check_engine_against_reference(const std::string& engine, uint64_t first_seed, int count,
                                    bool plain = false, double read_lock_share = 0,
                                    double sync_share = 0) {
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = first_seed + static_cast<uint64_t>(k);
    GeneratorOptions options = random_options(seed);
    options.read_lock_share = read_lock_share;
    options.sync_share = sync_share;
    const Trace trace = generate_trace(options);
    const testing::PoVerdict expected = testing::po_reference(trace, engine);
    const testing::PoVerdict got =
        verdict_of(plain ? run_plain(engine, trace) : run_engine(engine, trace));
    ASSERT_EQ(got.pairs, expected.pairs) << engine << " seed " << seed << ": engine " << show(got)
                                         << " reference " << show(expected) << "\n"
                                         << to_std_text(trace);
    ASSERT_EQ(got.racy_events, expected.racy_events) << engine << " seed " << seed;
  }
}

TEST(PoProperty, ShbEqualsItsDefinition) {
  check_engine_against_reference("shb", 1000, iterations(12000));
}
TEST(PoProperty, WcpEqualsItsDefinition) {
  check_engine_against_reference("wcp", 2000, iterations(12000));
}
TEST(PoProperty, SdpEqualsItsDefinition) {
  check_engine_against_reference("sdp", 3000, iterations(12000));
}
TEST(PoProperty, DcEqualsItsDefinition) {
  check_engine_against_reference("dc", 4000, iterations(12000));
}
TEST(PoProperty, WdcEqualsItsDefinition) {
  check_engine_against_reference("wdc", 5000, iterations(12000));
}
TEST(PoProperty, DcTpEqualsItsDefinition) {
  check_engine_against_reference("dc-tp", 6000, iterations(12000));
}
TEST(PoProperty, PlainVersionsEqualTheirDefinitions) {
  check_engine_against_reference("shb", 24000, iterations(4000), true);
  check_engine_against_reference("wcp", 12000, iterations(4000), true);
  check_engine_against_reference("dc", 16000, iterations(4000), true);
  check_engine_against_reference("wdc", 20000, iterations(4000), true);
  check_engine_against_reference("wdp", 40000, iterations(4000), true);
}
TEST(PoProperty, WdpEqualsItsDefinition) {
  check_engine_against_reference("wdp", 7000, iterations(12000));
}

// sdp's races, in the same order, and racy events equal its first version's (one full clock per
// thread) on TRACE; with `definition`, its pairs equal the definition's too.
void expect_sdp_as_first_version(const Trace& trace, uint64_t seed, bool definition,
                                 bool& has_races) {
  const auto races_of = [](const RaceSink& sink) {
    std::vector<std::tuple<EventId, EventId, VariableId>> out;
    for (const Race& r : sink.races()) out.emplace_back(r.first.event, r.second.event, r.variable);
    return out;
  };
  const RaceSink first = run_plain("sdp", trace);
  const RaceSink now = run_engine("sdp", trace);
  ASSERT_EQ(races_of(now), races_of(first)) << "seed " << seed << "\n" << to_std_text(trace);
  ASSERT_EQ(verdict_of(now).racy_events, verdict_of(first).racy_events) << "seed " << seed;
  if (definition) {
    ASSERT_EQ(verdict_of(now).pairs, testing::po_reference(trace, "sdp").pairs)
        << "seed " << seed << "\n"
        << to_std_text(trace);
  }
  has_races = !now.races().empty();
}

// sdp keeps only the S4 state that can still matter (engines/po/sdp.cpp); its first version
// (tests/support/sdp_plain.cpp) keeps every (write, earlier section) pair. Both report the same
// races, in the same order, on the random mixes (nested locks, forks and joins, read-write
// locks), longer ones than the definition can judge, and many sections on one or two locks.
TEST(PoProperty, SdpEqualsItsFirstVersion) {
  size_t racy = 0;
  const int count = iterations(6000);
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = 110000 + static_cast<uint64_t>(k);
    Rng rng(seed);
    GeneratorOptions o = random_options(seed);
    if (k % 3 == 1) o.read_lock_share = 0.2 + 0.2 * static_cast<double>(rng.below(3));
    if (k % 2 == 0) {  // longer, more threads
      o.events *= 2 + rng.below(12);
      o.threads += static_cast<uint32_t>(rng.below(6));
    }
    if (k % 5 == 4) {  // lock-protected counters: many sections on one or two locks
      o.locks = 1 + static_cast<uint32_t>(rng.below(2));
      o.variables = 1 + static_cast<uint32_t>(rng.below(2));
      o.cs_share = 0.95;
      o.guarded_share = 0.9;
      o.write_share = 0.6;
      o.nesting = 1 + static_cast<uint32_t>(rng.below(2));
    }
    const Trace trace = generate_trace(o);
    bool has_races = false;
    ASSERT_NO_FATAL_FAILURE(expect_sdp_as_first_version(trace, seed, false, has_races));
    racy += has_races;
  }
  EXPECT_GT(racy, static_cast<size_t>(count) / 10);  // not only race-free traces
}

// Thread churn (many short-lived threads forked and joined, as goroutines or a pool's tasks):
// sdp keeps each thread's H without its own entry until it is used whole and checks races
// against P_t as wide as the threads it knows (engines/po/sdp.cpp); it reports exactly the races,
// in the same order, of its first version (one full clock per thread), and on every tenth trace
// the definition's pairs. Churn traces with locks, read locks and synchronisation orders.
TEST(PoProperty, SdpEqualsItsFirstVersionOnChurnTraces) {
  size_t racy = 0, threads = 0;
  const int count = iterations(2000);
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = 130000 + static_cast<uint64_t>(k);
    Rng rng(seed);
    GeneratorOptions o = random_options(seed);
    o.shape = ForkShape::Churn;
    o.threads = 4 + static_cast<uint32_t>(rng.below(30));
    o.live = 1 + static_cast<uint32_t>(rng.below(4));
    o.events = 40 + rng.below(k % 10 == 0 ? 60 : 300);
    o.early_joins = true;
    o.read_lock_share = k % 3 == 0 ? 0.4 : 0;
    o.sync_share = k % 4 == 1 ? 0.1 : 0;
    const Trace trace = generate_trace(o);
    threads = std::max(threads, size_t{trace.symbols.threads.size()});
    bool has_races = false;
    ASSERT_NO_FATAL_FAILURE(expect_sdp_as_first_version(trace, seed, k % 10 == 0, has_races));
    racy += has_races;
  }
  EXPECT_GT(racy, static_cast<size_t>(count) / 10);  // not only race-free traces
  EXPECT_GE(threads, 20u);                           // many threads over a trace's life
}

// Churn with locks shared between short-lived threads (the goroutines preset's shape): few locks,
// most accesses inside nested sections, so the threads learn one another through the locks and
// case A of S4 imports along H_l (engines/po/sdp.cpp, import_from), also back to a thread that
// released a lock inside a CS it still holds. Same races, in the same order, as the first
// version; on every tenth trace the definition's pairs.
TEST(PoProperty, SdpEqualsItsFirstVersionOnChurnTracesWithSharedLocks) {
  size_t racy = 0, threads = 0;
  const int count = iterations(2000);
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = 150000 + static_cast<uint64_t>(k);
    Rng rng(seed);
    GeneratorOptions o = random_options(seed);
    o.shape = ForkShape::Churn;
    o.threads = 10 + static_cast<uint32_t>(rng.below(40));
    o.live = 2 + static_cast<uint32_t>(rng.below(4));
    o.events = 60 + rng.below(k % 10 == 0 ? 80 : 400);
    o.locks = 1 + static_cast<uint32_t>(rng.below(4));
    o.variables = 2 + static_cast<uint32_t>(rng.below(6));
    o.nesting = 1 + static_cast<uint32_t>(rng.below(3));
    o.cs_share = 0.9;
    o.guarded_share = 0.8;
    o.write_share = 0.5;
    o.nest_chance = 0.4;
    o.read_lock_share = k % 4 == 0 ? 0.3 : 0;
    o.sync_share = k % 5 == 2 ? 0.1 : 0;
    const Trace trace = generate_trace(o);
    threads = std::max(threads, size_t{trace.symbols.threads.size()});
    bool has_races = false;
    ASSERT_NO_FATAL_FAILURE(expect_sdp_as_first_version(trace, seed, k % 10 == 0, has_races));
    racy += has_races;
  }
  EXPECT_GT(racy, static_cast<size_t>(count) / 10);  // not only race-free traces
  EXPECT_GE(threads, 30u);                           // many threads over a trace's life
}

// Read-write locks: half of the acquires in read mode, against the reduction in the reference.
TEST(PoProperty, EnginesWithReadLocksEqualTheirDefinitions) {
  for (const char* engine : {"shb", "wcp", "sdp", "dc", "wdc", "dc-tp", "wdp"})
    check_engine_against_reference(engine, 30000, iterations(6000), false, 0.5);
  // The plain wcp applies the reduction literally (reduced locks), the engine natively.
  check_engine_against_reference("wcp", 40000, iterations(3000), true, 0.5);
}

// Synchronisation orders: about one step in eight a send or recv, against the reference with
// the hard edge send -> recv (tests/support/po_reference.hpp); the plain versions too.
TEST(PoProperty, EnginesWithSyncOrdersEqualTheirDefinitions) {
  for (const char* engine : {"shb", "wcp", "sdp", "dc", "wdc", "dc-tp", "wdp"})
    check_engine_against_reference(engine, 50000, iterations(4000), false, 0, 0.12);
  for (const char* engine : {"shb", "wcp", "dc", "wdc", "wdp"})
    check_engine_against_reference(engine, 60000, iterations(2000), true, 0, 0.12);
}

// Larger traces with read locks than the reference can judge: the engine wcp (the reduction
// natively: per-reader queues, cursors, pruning) reports exactly what the plain wcp (the
// reduction literally, on reduced locks) does.
TEST(PoProperty, WcpWithReadLocksEqualsThePlainReductionOnLargerTraces) {
  for (int k = 0; k < iterations(800); ++k) {
    const uint64_t seed = 50000 + static_cast<uint64_t>(k);
    GeneratorOptions o = random_options(seed);  // the mixes above, longer and with more threads
    o.threads += static_cast<uint32_t>(seed % 7);
    o.events *= 10;
    o.read_lock_share = seed % 3 == 0 ? 0.7 : 0.4;
    const Trace trace = generate_trace(o);
    const testing::PoVerdict plain = verdict_of(run_plain("wcp", trace));
    const testing::PoVerdict engine = verdict_of(run_engine("wcp", trace));
    ASSERT_EQ(engine.pairs, plain.pairs)
        << "seed " << seed << ": engine " << show(engine) << " plain " << show(plain) << "\n"
        << to_std_text(trace);
  }
}

// Deep nesting: variables guarded by more locks than the engines scan (DeepSlotIndex::kShallow;
// past it the rule-(a) slots of a variable are found through an index). The engines report
// exactly what their plain versions (one table entry per (lock, variable)) do.
TEST(PoProperty, DeeplyNestedSectionsGiveThePlainReports) {
  int deep = 0;
  for (int k = 0; k < iterations(100); ++k) {
    const uint64_t seed = 70000 + static_cast<uint64_t>(k);
    GeneratorOptions o;
    o.seed = seed;
    o.threads = 2 + static_cast<uint32_t>(seed % 3);
    o.events = 600 + 10 * (seed % 20);
    o.variables = 2 + static_cast<uint32_t>(seed % 3);
    o.locks = 36 + static_cast<uint32_t>(seed % 8);
    o.nesting = 8 + static_cast<uint32_t>(seed % 24);
    o.shape = seed % 2 == 0 ? ForkShape::None : ForkShape::ForkJoin;
    o.cs_share = 0.9;
    o.guarded_share = 0.5;
    o.write_share = 0.5;
    o.switch_share = 0.3;
    const Trace trace = generate_trace(o);
    // Does some variable meet more than kShallow locks (held at an access)?
    std::vector<std::set<LockId>> guards(trace.symbols.variables.size());
    std::vector<std::vector<LockId>> open(trace.symbols.threads.size());
    for (const Event& e : trace.events) {
      auto& mine = open[e.thread];
      if (e.op == Op::Acquire) mine.push_back(e.target);
      if (e.op == Op::Release) {
        const auto it = std::find(mine.rbegin(), mine.rend(), e.target);
        if (it != mine.rend()) mine.erase(std::next(it).base());
      }
      if (e.is_access()) guards[e.target].insert(mine.begin(), mine.end());
    }
    for (const auto& g : guards) deep += g.size() > po::DeepSlotIndex::kShallow;
    for (const char* engine : {"wcp", "dc", "wdc", "wdp"}) {
      const testing::PoVerdict plain = verdict_of(run_plain(engine, trace));
      const testing::PoVerdict got = verdict_of(run_engine(engine, trace));
      ASSERT_EQ(got.pairs, plain.pairs)
          << engine << " seed " << seed << ": engine " << show(got) << " plain " << show(plain);
      ASSERT_EQ(got.racy_events, plain.racy_events) << engine << " seed " << seed;
    }
    // dc-tp is the relation of wdc (Def. F.1).
    ASSERT_EQ(verdict_of(run_engine("dc-tp", trace)).pairs,
              verdict_of(run_plain("wdc", trace)).pairs)
        << "dc-tp seed " << seed;
  }
  EXPECT_GT(deep, 0);  // the index was used
}

// The random traces exercise every rule: dropping it changes some verdict (otherwise the
// comparisons above would not test it).
TEST(PoProperty, EveryRuleMattersOnTheRandomTraces) {
  int b_matters = 0, wcp_b = 0, s2_matters = 0, s4_matters = 0, own_b_wcp = 0, own_b_sdp = 0,
      wdp_lockset = 0;
  const int count = iterations(4000);
  for (int k = 0; k < count; ++k) {
    const Trace trace = generate_trace(random_options(8000 + static_cast<uint64_t>(k)));
    const auto verdict = [&](const char* name, testing::Rules rules = {}) {
      return testing::po_reference(trace, name, rules).pairs;
    };
    b_matters += verdict("dc") != verdict("wdc");
    wcp_b += verdict("wcp") != verdict("wcp", {.b = false});
    s2_matters += verdict("sdp") != verdict("sdp", {.s2 = false});
    s4_matters += verdict("sdp") != verdict("sdp", {.s4 = false});
    own_b_wcp += verdict("wcp") != verdict("wcp", {.own_thread_b = false});
    own_b_sdp += verdict("sdp") != verdict("sdp", {.own_thread_b = false});
    wdp_lockset += verdict("wdp") != verdict("wdc");
  }
  std::printf(
      "traces %d: wcp rule (b) %d, dc rule (b) %d, S2 %d, S4 %d, own-thread (b): wcp %d sdp %d; "
      "wdp != wdc %d\n",
      count, wcp_b, b_matters, s2_matters, s4_matters, own_b_wcp, own_b_sdp, wdp_lockset);
  EXPECT_GT(b_matters, 0);
  EXPECT_GT(wcp_b, 0);
  EXPECT_GT(s2_matters, 0);
  EXPECT_GT(s4_matters, 0);
  EXPECT_GT(wdp_lockset, 0);
}

// Thread churn (short-lived threads, as goroutines or a pool's tasks) with slot reuse
// (clock/thread_clocks.hpp; budgets of 2..4 slots): engines on the clock kit's ThreadClocks
// (shb, wcp, dc, wdc, dc-tp, wdp) give a joined thread's slot to a new thread, and keep
// per-variable entries per thread (wdp: per thread and lock set), so they report exactly what the
// plain versions (one clock entry per thread) report, and what the definition does on the traces
// small enough for the reference.
TEST(PoProperty, SlotReuseGivesTheSameReportsOnChurnTraces) {
  int reusing = 0;
  const int count = iterations(2000);
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = 60000 + static_cast<uint64_t>(k);
    Rng rng(seed);
    GeneratorOptions o = random_options(seed);
    o.shape = ForkShape::Churn;
    o.threads = 4 + static_cast<uint32_t>(rng.below(20));
    o.live = 1 + static_cast<uint32_t>(rng.below(3));
    o.events = 40 + rng.below(k % 10 == 0 ? 60 : 300);
    o.early_joins = true;
    o.read_lock_share = k % 3 == 0 ? 0.4 : 0;
    const Trace trace = generate_trace(o);
    const size_t budget = 2 + static_cast<size_t>(seed % 3);
    ThreadClocks clocks;
    clocks.reuse_slots_beyond(budget);
    for (const Event& e : trace.events) clocks.apply(e);
    reusing += clocks.threads() < trace.symbols.threads.size();
    for (const char* engine : {"shb", "wcp", "dc", "wdc", "dc-tp", "wdp"}) {
      EngineOptions reuse;
      reuse.clock_slot_budget = budget;
      const RaceSink reused = run_engine(engine, trace, reuse);
      const testing::PoVerdict got = verdict_of(reused);
      // The plain dc family has no read-write locks: the definition judges those traces.
      const bool by_reference =
          o.read_lock_share > 0 && std::string(engine) != "shb" && std::string(engine) != "wcp";
      const testing::PoVerdict plain = by_reference ? testing::po_reference(trace, engine)
                                                    : verdict_of(run_plain(engine, trace));
      ASSERT_EQ(got.pairs, plain.pairs)
          << engine << " seed " << seed << " budget " << budget << ": engine " << show(got)
          << " plain " << show(plain) << "\n"
          << to_std_text(trace);
      ASSERT_EQ(got.racy_events, plain.racy_events) << engine << " seed " << seed;
      for (const Race& r : reused.races()) {  // threads are named, not slots
        ASSERT_EQ(r.first.thread, trace.events[r.first.event - 1].thread) << engine << seed;
        ASSERT_EQ(r.second.thread, trace.events[r.second.event - 1].thread) << engine << seed;
      }
      {
        // Also with sparse thread clocks (ThreadClocks past 2 slots, and with them sparse
        // release snapshots, the dc family's rule-(a) rows, wcp's P, shb's last-write
        // snapshots), with and without slot reuse.
        EngineOptions sparse_options;
        sparse_options.clock_sparse_slots = 2;
        sparse_options.clock_slot_budget = k % 2 == 0 ? budget : SIZE_MAX;
        const RaceSink sparse = run_engine(engine, trace, sparse_options);
        ASSERT_EQ(verdict_of(sparse).pairs, plain.pairs)
            << engine << " sparse, seed " << seed << "\n"
            << to_std_text(trace);
      }
      if (k % 10 == 0) {
        ASSERT_EQ(got.pairs, testing::po_reference(trace, engine).pairs)
            << engine << " seed " << seed << "\n"
            << to_std_text(trace);
      }
    }
  }
  EXPECT_GT(reusing, count / 2);
}

// Delta snapshots (clock/snapshot_pool.hpp, SnapshotPool): forced at every stride (they are
// made from 64 slots on), with short chains, the engines on the pool report exactly the races
// (in order) they report with full rows: on random traces, with thread churn and slot reuse,
// read locks, and (the dc family) sparse clocks switched on mid-trace with deltas in the pool.
TEST(PoProperty, DeltaSnapshotsGiveTheSameReports) {
  auto races_of = [](const RaceSink& sink) {
    std::vector<std::string> out;
    for (const Race& r : sink.races()) {
      std::string s = std::to_string(r.first.event);
      s += ',';
      s += std::to_string(r.second.event);
      s += ',';
      s += std::to_string(r.variable);
      out.push_back(std::move(s));
    }
    return out;
  };
  std::atomic<size_t> made{0};
  const int count = iterations(3000);
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = 90000 + static_cast<uint64_t>(k);
    Rng rng(seed);
    GeneratorOptions o = random_options(seed);
    if (k % 2 == 0) {
      o.shape = ForkShape::Churn;
      o.threads = 4 + static_cast<uint32_t>(rng.below(16));
      o.live = 1 + static_cast<uint32_t>(rng.below(4));
      o.early_joins = true;
    } else {
      o.threads = 2 + static_cast<uint32_t>(rng.below(10));
    }
    o.events = 40 + rng.below(k % 10 == 0 ? 60 : 250);
    o.read_lock_share = k % 3 == 0 ? 0.3 : 0;
    const Trace trace = generate_trace(o);
    const size_t budget = k % 4 == 0 ? SIZE_MAX : 2 + static_cast<size_t>(seed % 3);
    const bool sparse = k % 5 == 1;
    for (const char* engine : {"shb", "wcp", "dc", "wdc", "dc-tp", "wdp"}) {
      const bool dc_family = std::string(engine) != "shb" && std::string(engine) != "wcp";
      EngineOptions full_rows;
      full_rows.clock_slot_budget = budget;
      if (sparse && dc_family) full_rows.clock_sparse_slots = 3;
      EngineOptions deltas = full_rows;
      deltas.snapshot_delta_stride = 4;
      deltas.snapshot_chain = 2 + static_cast<size_t>(k % 6);
      deltas.snapshot_deltas_made = &made;
      const RaceSink full = run_engine(engine, trace, full_rows);
      const RaceSink delta = run_engine(engine, trace, deltas);
      ASSERT_EQ(races_of(delta), races_of(full))
          << engine << " seed " << seed << " budget " << budget << "\n"
          << to_std_text(trace);
      ASSERT_EQ(verdict_of(delta).racy_events, verdict_of(full).racy_events)
          << engine << " seed " << seed;
    }
  }
  EXPECT_GT(made.load(), static_cast<size_t>(count));
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
