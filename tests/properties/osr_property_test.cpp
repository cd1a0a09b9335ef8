// The osr engine (engines/osr/) against the definition of optimistic synchronisation-reversal
// races (Shi, Mathur and Pavlogiannis, "Optimistic prediction of synchronization-reversal data
// races", ICSE 2024) computed per pair by search (tests/support/osr_reference.hpp); the
// definition against the enabled ground truth; its containment of sync-preserving races; and
// the engine's witnesses against the independent witness checker.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/engines/osr/osr.hpp"
#include "racepred/engines/syncp/syncp.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/trace_index.hpp"
#include "racepred/witness/checker.hpp"
#include "support/exact_support.hpp"
#include "support/osr_reference.hpp"
#include "support/small_traces.hpp"
#include "support/syncp_reference.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using testing::Pairs;

// Small traces (2-4 threads, up to 20 events), every third one with read-write locks, every
// fifth with send/recv.
Trace small_trace(uint64_t seed) {
  GeneratorOptions o = testing::small_trace_options(seed);
  if (seed % 3 == 1) o.read_lock_share = 0.5;
  if (seed % 5 == 2) o.sync_share = 0.15;
  return generate_trace(o);
}

// Medium traces (2-5 threads, up to 57 events, nested sections), for the checks without search.
Trace medium_trace(uint64_t seed) {
  GeneratorOptions o = testing::medium_trace_options(seed);
  if (seed % 4 == 3) o.read_lock_share = 0.4;
  if (seed % 5 == 2) o.sync_share = 0.1;
  return generate_trace(o);
}

using testing::engine_pairs;
using testing::pair_text;
using testing::racy;
using testing::show;

// The engine reports, for each racy event and each other thread and operation, the earliest
// OSR partner, so its racy events are exactly those of the definition.
TEST(Osr, EqualsTheDefinitionOnSmallTraces) {
  const int n = testing::property_iterations(3000);
  int racy_traces = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = small_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    const Pairs all = testing::osr_all_races(t);
    const Pairs expected = testing::syncp_earliest_partners(t, all);
    Pairs got = osr::races(t);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(show(t, got), show(t, expected));
    EXPECT_EQ(racy(got), racy(all));
    EXPECT_EQ(show(t, engine_pairs(t, run_engine("osr", trace))), show(t, expected))
        << "the registered engine differs from osr::races";
    for (const auto& [e1, e2] : t.conflicting_pairs()) {
      EXPECT_EQ(osr::is_race(t, e1, e2),
                std::binary_search(all.begin(), all.end(), std::make_pair(e1, e2)))
          << pair_text(t, e1, e2);
      const std::vector<bool> in = testing::osr_closure_set(t, e1, e2);
      const std::vector<uint32_t> prefixes = testing::syncp_ideal_prefixes(t, in);
      if (!in[e1] && !in[e2]) {
        EXPECT_EQ(osr::closure(t, e1, e2), prefixes) << pair_text(t, e1, e2);
      }
    }
    if (!got.empty()) ++racy_traces;
    if (HasFailure()) break;
  }
  EXPECT_GT(racy_traces, n / 10);
}

// Every OSR race of the definition (not only the reported ones) is a race of the enabled ground
// truth: the definition is sound.
TEST(Osr, DefinitionIsWithinTheEnabledGroundTruth) {
  const int n = testing::property_iterations(1500);
  int races = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = small_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    exact::SearchOptions options;
    options.notion = exact::RaceNotion::Enabled;
    const auto truth = exact::search(t, options).races;
    const std::set<std::pair<uint32_t, uint32_t>> enabled(truth.begin(), truth.end());
    for (const auto& [e1, e2] : testing::osr_all_races(t)) {
      ++races;
      EXPECT_TRUE(enabled.count({e1, e2})) << pair_text(t, e1, e2);
    }
    if (HasFailure()) break;
  }
  EXPECT_GT(races, n / 5);
}

// Every sync-preserving race is an OSR race (the sync-preserving witness closes every section
// but the latest of each lock; OSR closes all it can), so syncp's racy events are among osr's;
// and OSR finds races that need a reversal, which syncp cannot.
TEST(Osr, ContainsSyncPreservingRaces) {
  const int n = testing::property_iterations(3000);
  int sync_races = 0, beyond = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = small_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    const Pairs osr_all = testing::osr_all_races(t);
    const std::set<std::pair<uint32_t, uint32_t>> osr_set(osr_all.begin(), osr_all.end());
    // The per-pair definition of tests/support/syncp_reference.hpp has no sync orders: on
    // traces with send/recv the engine's pairs stand for it.
    const Pairs sync_all = t.has_sync_ops() ? syncp::races(t) : testing::syncp_all_races(t);
    for (const auto& p : sync_all) {
      ++sync_races;
      EXPECT_TRUE(osr_set.count(p)) << "sync-preserving " << pair_text(t, p.first, p.second);
    }
    if (!t.has_sync_ops()) beyond += static_cast<int>(osr_all.size() - sync_all.size());
    if (HasFailure()) break;
  }
  EXPECT_GT(sync_races, n / 5);
  EXPECT_GT(beyond, 0);  // races that need a section reversed (rare in traces this small)
}

// The same containment through the engines on medium traces (no search): syncp's racy events
// are among osr's.
TEST(Osr, RacyEventsIncludeSyncpsOnMediumTraces) {
  const int n = testing::property_iterations(2000);
  int racy_events = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = medium_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    const std::set<uint32_t> mine = racy(osr::races(t));
    for (const uint32_t e : racy(syncp::races(t))) {
      ++racy_events;
      EXPECT_TRUE(mine.count(e)) << "syncp racy event " << t.id(e);
    }
    if (HasFailure()) break;
  }
  EXPECT_GT(racy_events, n / 5);
}

// The race check decides the acyclicity of P ∪ B by the abstract graph over the reversed
// sections (successor queries within S); the witness linearises S event by event and fails
// exactly on a cycle. The two agree on every conflicting pair of medium traces (nested and
// read sections, send/recv), among them pairs whose witness reverses a section.
TEST(Osr, AbstractGraphAgreesWithTheLinearisation) {
  const int n = testing::property_iterations(500);
  int pairs = 0, races = 0, reversed = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = medium_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    for (const auto& [e1, e2] : t.conflicting_pairs()) {
      const std::vector<uint32_t> order = osr::witness(t, e1, e2);
      EXPECT_EQ(osr::is_race(t, e1, e2), !order.empty()) << pair_text(t, e1, e2);
      ++pairs;
      if (order.empty()) continue;
      ++races;
      reversed += std::is_sorted(order.begin(), order.end()) ? 0 : 1;
    }
    if (HasFailure()) break;
  }
  EXPECT_GT(pairs, n);
  EXPECT_GT(races, n / 5);
  EXPECT_GT(reversed, n / 100);
}

// The witness of every reported race: a correctly reordered prefix (the independent checker of
// witness/checker.hpp, and the test support's own check) after which e1 and e2 are enabled.
void check_witnesses(const Trace& trace, int& witnesses, int& reversed) {
  const TraceIndex t(trace);
  witness::Checker checker(trace);
  for (const auto& [e1, e2] : osr::races(t)) {
    SCOPED_TRACE("race " + pair_text(t, e1, e2));
    std::vector<uint32_t> order = osr::witness(t, e1, e2);
    ASSERT_GE(order.size(), 2u);
    EXPECT_EQ(order[order.size() - 2], e1);
    EXPECT_EQ(order.back(), e2);
    order.resize(order.size() - 2);
    EXPECT_EQ(testing::check_reordering(t, order), "");
    witness::Witness w;
    w.engine = "osr";
    w.first = t.id(e1);
    w.second = t.id(e2);
    w.notion = witness::Notion::Enabled;
    for (const uint32_t i : order) w.prefix.push_back(t.id(i));
    const witness::Verdict v = checker.check(w);
    EXPECT_TRUE(v.valid()) << v.message;
    reversed += std::is_sorted(order.begin(), order.end()) ? 0 : 1;
    ++witnesses;
  }
}

TEST(Osr, WitnessesPassTheChecker) {
  const int n = testing::property_iterations(3000);
  int witnesses = 0, reversed = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = seed % 2 ? small_trace(seed) : medium_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    check_witnesses(trace, witnesses, reversed);
    if (HasFailure()) break;
  }
  EXPECT_GT(witnesses, n / 2);
  EXPECT_GT(reversed, n / 100);  // witnesses that reverse sections are among them
}

// Short-lived threads (the churn shape: forked, joined, and the next forked by the same thread)
// share slots in the analysis: a thread forked after its forker joined another runs in that
// one's slot, after its events. Races, closures and witnesses stay those of the definition.
GeneratorOptions churn_options(uint64_t seed) {
  GeneratorOptions o = testing::small_trace_options(seed);
  o.shape = ForkShape::Churn;
  o.threads = 3 + static_cast<uint32_t>(seed % 4);
  o.live = 1 + static_cast<uint32_t>(seed % 3 == 0);
  o.events = 14 + seed % 13;
  if (seed % 4 == 1) o.read_lock_share = 0.5;
  if (seed % 6 == 2) o.sync_share = 0.15;
  return o;
}

// Whether some thread forks after it joined a thread that ended holding no lock (what lets the
// forked one take the joined one's slot).
bool forks_after_a_join(const TraceIndex& t) {
  std::vector<uint8_t> held(t.thread_count(), 0), joined(t.thread_count(), 0);
  for (uint32_t i = 0; i < t.size(); ++i)
    if ((t.event(i).op == Op::Acquire || t.event(i).op == Op::ReadAcquire) &&
        t.matching(i) == kNoIndex)
      held[t.event(i).thread] = 1;
  for (uint32_t i = 0; i < t.size(); ++i) {
    const Event& e = t.event(i);
    if (e.op == Op::Join && !held[e.target] && !t.thread_events(e.target).empty())
      joined[e.thread] = 1;
    if (e.op == Op::Fork && joined[e.thread] && !t.thread_events(e.target).empty()) return true;
  }
  return false;
}

TEST(Osr, ThreadsSharingSlotsEqualTheDefinition) {
  const int n = testing::property_iterations(1500);
  int shared = 0, racy_traces = 0, witnesses = 0, reversed = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = generate_trace(churn_options(seed));
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    if (forks_after_a_join(t)) ++shared;
    const Pairs all = testing::osr_all_races(t);
    Pairs got = osr::races(t);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(show(t, got), show(t, testing::syncp_earliest_partners(t, all)));
    EXPECT_EQ(racy(got), racy(all));
    osr::Checker checker(t);
    for (const auto& [e1, e2] : t.conflicting_pairs()) {
      const bool race = std::binary_search(all.begin(), all.end(), std::make_pair(e1, e2));
      EXPECT_EQ(checker.check(e1, e2, nullptr), race) << pair_text(t, e1, e2);
      const std::vector<bool> in = testing::osr_closure_set(t, e1, e2);
      if (!in[e1] && !in[e2]) {
        EXPECT_EQ(osr::closure(t, e1, e2), testing::syncp_ideal_prefixes(t, in))
            << pair_text(t, e1, e2);
      }
    }
    check_witnesses(trace, witnesses, reversed);
    if (!got.empty()) ++racy_traces;
    if (HasFailure()) break;
  }
  EXPECT_GT(shared, n / 3);
  EXPECT_GT(racy_traces, n / 10);
  EXPECT_GT(witnesses, n / 4);
}

// osr::explain gives the check's verdict with its reasons: the closure, the open sections (the
// acquires in S whose release is not), two of one lock (not all read sections), and a cycle of
// open sections only when the pair is no race.
TEST(Osr, ExplanationAgreesWithTheCheck) {
  using V = osr::Explanation::Verdict;
  const int n = testing::property_iterations(300);
  int verdicts[4] = {0, 0, 0, 0};
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = medium_trace(seed);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    osr::Checker checker(t);
    for (const auto& [e1, e2] : t.conflicting_pairs()) {
      const osr::Explanation x = checker.explain(e1, e2);
      ++verdicts[static_cast<int>(x.verdict)];
      EXPECT_EQ(x.verdict == V::Race, osr::is_race(t, e1, e2)) << pair_text(t, e1, e2);
      EXPECT_EQ(x.closure, osr::closure(t, e1, e2)) << pair_text(t, e1, e2);
      const auto in_s = [&](uint32_t i) {
        return t.index_in_thread(i) < x.closure[t.event(i).thread];
      };
      EXPECT_EQ(x.verdict == V::Ordered, in_s(e1) || in_s(e2)) << pair_text(t, e1, e2);
      if (x.verdict == V::Ordered) continue;
      // The open sections, from the closure alone; two of one lock, not all read sections.
      std::vector<uint32_t> open;
      std::map<LockId, std::pair<int, bool>> per_lock;  // count, any write section
      for (uint32_t i = 0; i < t.size(); ++i) {
        const Op op = t.event(i).op;
        if ((op != Op::Acquire && op != Op::ReadAcquire) || !in_s(i)) continue;
        const uint32_t r = t.matching(i);
        if (r != kNoIndex && in_s(r)) continue;
        open.push_back(i);
        auto& [count, write] = per_lock[t.event(i).target];
        ++count;
        write |= op == Op::Acquire;
      }
      std::vector<uint32_t> got = x.open;
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, open) << pair_text(t, e1, e2);
      bool two = false;
      for (const auto& [lock, c] : per_lock) two |= c.first > 1 && c.second;
      EXPECT_EQ(x.verdict == V::TwoOpen, two) << pair_text(t, e1, e2);
      if (x.verdict == V::TwoOpen) {
        EXPECT_GT(per_lock[x.lock].first, 1);
      }
      EXPECT_EQ(x.verdict == V::Cycle, !x.cycle.empty()) << pair_text(t, e1, e2);
      for (const uint32_t a : x.cycle)
        EXPECT_TRUE(std::binary_search(open.begin(), open.end(), a)) << pair_text(t, e1, e2);
      // A B edge leaves a release in S later in the trace than an open section's acquire.
      for (const uint32_t r : x.reversed) {
        EXPECT_TRUE(in_s(r)) << pair_text(t, e1, e2);
        EXPECT_GT(r, open.empty() ? 0 : open.front()) << pair_text(t, e1, e2);
      }
      if (x.verdict == V::Cycle) {
        EXPECT_FALSE(x.reversed.empty()) << pair_text(t, e1, e2);
      }
    }
    if (HasFailure()) break;
  }
  for (const int v : verdicts) EXPECT_GT(v, n / 50);
}

// The three patterns where focs-lab/rapid's OSR departs from the definition (docs/ENGINES.md,
// "osr"; examples/osr/focs_*.std), decided by the definition and the enabled ground truth.
struct FocsCase {
  const char* text;
  uint32_t first, second;  // event ids
  osr::Explanation::Verdict verdict;
};

// STD lines without locations: each event gets its line number as its location.
std::string with_locations(const char* text) {
  std::string out, line;
  int n = 0;
  for (const char* p = text; *p != 0; ++p) {
    if (*p != '\n') {
      line += *p;
      continue;
    }
    out += line + "|" + std::to_string(++n) + "\n";
    line.clear();
  }
  return out;
}

TEST(Osr, WhereFocsLabDeparts) {
  using V = osr::Explanation::Verdict;
  const FocsCase cases[] = {
      // Threads run in another order than they were forked: focs-lab reports (5, 10).
      {"T0|fork(T1)\nT0|fork(T2)\nT2|acq(L)\nT2|w(y)\nT2|w(x)\nT2|rel(L)\nT1|r(y)\n"
       "T1|acq(L)\nT1|rel(L)\nT1|r(x)\n",
       5, 10, V::Cycle},
      // The cycle goes through a third thread (T2) that T1's section reaches first: focs-lab
      // reports (6, 12).
      {"T0|fork(T1)\nT0|fork(T2)\nT0|fork(T3)\nT1|acq(L)\nT1|r(a)\nT1|w(x)\nT1|rel(L)\n"
       "T2|w(a)\nT3|r(a)\nT3|acq(L)\nT3|rel(L)\nT3|r(x)\n",
       6, 12, V::Cycle},
      // T2's section is closed by a release later than the second access: focs-lab misses
      // (4, 9).
      {"T0|fork(T1)\nT0|fork(T2)\nT1|acq(L)\nT1|w(x)\nT1|rel(L)\nT2|acq(L)\nT2|w(z)\n"
       "T0|r(z)\nT0|w(x)\nT2|rel(L)\n",
       4, 9, V::Race},
  };
  for (const FocsCase& c : cases) {
    const Trace trace = parse_checked_trace(with_locations(c.text));
    const TraceIndex t(trace);
    const uint32_t e1 = c.first - 1, e2 = c.second - 1;
    SCOPED_TRACE(pair_text(t, e1, e2));
    const osr::Explanation x = osr::explain(t, e1, e2);
    EXPECT_EQ(static_cast<int>(x.verdict), static_cast<int>(c.verdict));
    exact::SearchOptions options;
    options.notion = exact::RaceNotion::Enabled;
    const auto truth = exact::search(t, options).races;
    const bool predictable =
        std::find(truth.begin(), truth.end(), std::make_pair(e1, e2)) != truth.end();
    EXPECT_EQ(predictable, c.verdict == V::Race);
    if (c.verdict == V::Race) {
      // S holds T2's release, after the second access in the trace.
      EXPECT_EQ(x.closure[t.event(t.size() - 1).thread], t.index_in_thread(t.size() - 1) + 1);
    }
  }
}

// 8,929 short-lived threads with events, at most 4 alive: more threads than osr's limit of
// 8,192 slots, which count the threads alive at once; its witnesses pass the checker. 8,300
// threads all alive are refused with a message that names the limit.
TEST(Osr, ManyShortLivedThreadsFitTheSlots) {
  GeneratorOptions o;
  o.seed = 7;
  o.shape = ForkShape::Churn;
  o.threads = 14000;
  o.live = 4;
  o.events = 120000;
  o.variables = 50;
  o.locks = 4;
  const Trace trace = generate_trace(o);
  const TraceIndex t(trace);
  uint32_t running = 0;
  for (ThreadId x = 0; x < t.thread_count(); ++x) running += t.thread_events(x).empty() ? 0 : 1;
  ASSERT_GT(running, 8192u);
  const auto races = osr::races(t);
  EXPECT_GT(races.size(), 100u);
  const size_t k = std::min<size_t>(races.size(), 20);
  const std::vector<std::vector<uint32_t>> prefixes = osr::witnesses(t, std::span(races.data(), k));
  witness::Checker checker(trace);
  for (size_t r = 0; r < k; ++r) {
    witness::Witness w;
    w.engine = "osr";
    w.first = t.id(races[r].first);
    w.second = t.id(races[r].second);
    w.notion = witness::Notion::Enabled;
    for (const uint32_t i : prefixes[r]) w.prefix.push_back(t.id(i));
    const witness::Verdict v = checker.check(w);
    EXPECT_TRUE(v.valid()) << v.message;
  }

  std::string text;
  for (int x = 1; x <= 8300; ++x) text += "T0|fork(T" + std::to_string(x) + ")\n";
  for (int x = 1; x <= 8300; ++x)
    text += "T" + std::to_string(x) + "|w(V" + std::to_string(x % 7) + ")\n";
  const TraceIndex wide(parse_checked_trace(with_locations(text.c_str())));
  try {
    (void)osr::races(wide);
    ADD_FAILURE() << "8,300 threads alive at once were accepted";
  } catch (const BudgetError& e) {
    EXPECT_NE(std::string(e.what()).find("alive at once"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("8192"), std::string::npos) << e.what();
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
