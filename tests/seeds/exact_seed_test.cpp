// Sulzmann and Thiemann, "Cross-thread critical sections and efficient dynamic race prediction
// methods": the claims about the example traces of examples/exact/ that go beyond the engines'
// verdicts and annotated lock sets (those are
// `# expect` lines in the traces, checked by tests/examples): critical sections,
// must-happen-before, witnesses, reorderings of the whole trace, stuck states, Lemmas 4.6/5.11.
#include <gtest/gtest.h>

#include <algorithm>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/exact/locksets.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/trace/trace_index.hpp"
#include "support/exact_support.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using exact::Intersection;
using exact::Reorderings;
using exact::SearchOptions;
using exact::SearchResult;
using testing::ix;
using testing::load_example;
using testing::Pairs;
using testing::pairs_of;

// Everything the tests need about one example.
struct Example {
  Trace trace;
  TraceIndex t;
  SearchResult prefixes;  // Def. 3.4/3.8 as written
  SearchResult complete;  // only reorderings of the whole trace
  std::vector<exact::LockSet> standard, cross, cross_complete;

  explicit Example(const std::string& name)
      : trace(load_example(name)),
        t(trace),
        prefixes(run(Reorderings::Prefixes)),
        complete(run(Reorderings::Complete)),
        standard(exact::standard_lock_sets(t)),
        cross(exact::cross_lock_sets(t, prefixes.mhb)),
        cross_complete(exact::cross_lock_sets(t, complete.mhb)) {}

  SearchResult run(Reorderings r) const {
    SearchOptions o;
    o.reorderings = r;
    o.witnesses = true;
    return exact::search(t, o);
  }

  Pairs predicted(const std::vector<exact::LockSet>& sets, Intersection i) const {
    return exact::predicted_pairs(t, sets, i);
  }
  bool mhb(EventId e, EventId f) const { return prefixes.mhb.before(ix(e), ix(f)); }
  bool mhb_complete(EventId e, EventId f) const { return complete.mhb.before(ix(e), ix(f)); }

  // The critical section of the acquire with id `acquire`.
  CriticalSection section(EventId acquire) const {
    for (const CriticalSection& cs : t.critical_sections())
      if (cs.acquire == ix(acquire)) return cs;
    ADD_FAILURE() << "no critical section at e" << acquire;
    return {};
  }
  std::vector<EventId> ids(const std::vector<uint32_t>& indices) const {
    std::vector<EventId> out;
    for (uint32_t i : indices) out.push_back(t.id(i));
    return out;
  }
};

// Every witness is a correctly reordered prefix that shows its race; --complete witnesses
// extend to the whole trace.
void expect_valid_witnesses(const Example& x) {
  for (const SearchResult* r : {&x.prefixes, &x.complete}) {
    ASSERT_EQ(r->witnesses.size(), r->races.size());
    for (size_t k = 0; k < r->races.size(); ++k) {
      const exact::RaceWitness& w = r->witnesses[k];
      std::vector<uint32_t> order = w.prefix;
      EXPECT_EQ(testing::check_reordering(x.t, order), "") << "race " << k;
      ASSERT_GE(order.size(), 2u);
      EXPECT_EQ(order[order.size() - 2], w.first);
      EXPECT_EQ(order.back(), w.second);
      EXPECT_EQ(std::minmax(w.first, w.second), std::minmax(r->races[k].first, r->races[k].second));
      if (r->reorderings == Reorderings::Complete) {
        order.insert(order.end(), w.completion.begin(), w.completion.end());
        EXPECT_EQ(testing::check_reordering(x.t, order), "");
        EXPECT_EQ(order.size(), x.t.size());
      }
    }
  }
}

// Lemma 4.6 and Lemma 5.11 (1), (2) on the example.
void expect_lock_set_lemmas(const Example& x) {
  for (uint32_t i = 0; i < x.t.size(); ++i) {
    for (const exact::HeldLock& h : x.standard[i])
      EXPECT_TRUE(std::find(x.cross[i].begin(), x.cross[i].end(), h) != x.cross[i].end())
          << "Lemma 4.6 / 5.11 (2) at e" << i + 1;
    exact::LockSet own;
    for (const exact::HeldLock& h : x.cross[i])
      if (h.thread == x.t.event(i).thread) own.push_back(h);
    EXPECT_EQ(own, x.standard[i]) << "Lemma 5.11 (2) at e" << i + 1;
  }
}

// A registered engine's race pairs as event ids.
std::vector<std::pair<EventId, EventId>> engine_pairs(const char* name, const Trace& trace) {
  RaceSink sink = run_engine(name, trace);
  std::vector<std::pair<EventId, EventId>> out;
  for (const Race& r : sink.races()) out.emplace_back(r.first.event, r.second.event);
  return out;
}

TEST(ExactSeed003, Fig1LockSetWarningIsARace) {
  Example x("fig01_lockset.std");
  EXPECT_EQ(x.complete.races, pairs_of({{2, 6}}));
  expect_valid_witnesses(x);
  expect_lock_set_lemmas(x);
}

TEST(ExactSeed003, Fig2Example45CriticalSections) {
  Example x("fig02_cross_thread.std");
  // Example 4.5.
  EXPECT_EQ(x.ids(exact::standard_section(x.t, x.section(7))), std::vector<EventId>({8}));
  EXPECT_EQ(x.ids(exact::cross_section(x.t, x.prefixes.mhb, x.section(7))),
            std::vector<EventId>({8}));
  EXPECT_EQ(x.ids(exact::standard_section(x.t, x.section(2))), std::vector<EventId>({3, 5}));
  EXPECT_EQ(x.ids(exact::cross_section(x.t, x.prefixes.mhb, x.section(2))),
            std::vector<EventId>({3, 4, 5}));
  expect_lock_set_lemmas(x);
}

TEST(ExactSeed003, Fig2Example514FalsePositiveOfTheStandardPredictor) {
  Example x("fig02_cross_thread.std");
  EXPECT_TRUE(x.complete.races.empty());
  // HB (§2.3): e4 <hb e5 <hb ... <hb e8, so HB reports no race. They are not must-happen-before
  // ordered (T3 may run first), they are just never adjacent: x guards both.
  EXPECT_FALSE(x.mhb(4, 8));
  EXPECT_FALSE(x.mhb(8, 4));
}

TEST(ExactSeed003, Fig3CriticalSectionsReorderedForTheRace) {
  Example x("fig03_hb_wcp.std");
  EXPECT_EQ(x.complete.races, pairs_of({{3, 7}}));
  // The figure's reordering e1 e5 e6 e2 e7 e3 is a correctly reordered prefix.
  EXPECT_EQ(testing::check_reordering(x.t, {ix(1), ix(5), ix(6), ix(2), ix(7), ix(3)}), "");
  EXPECT_FALSE(x.mhb(4, 5));  // the critical sections can be swapped
  expect_valid_witnesses(x);
}

TEST(ExactSeed003, Fig4RaceBetweenE3AndE10) {
  Example x("fig04_wcp_sdp.std");
  EXPECT_EQ(x.complete.races, pairs_of({{3, 10}}));
  EXPECT_EQ(testing::check_reordering(x.t, {ix(1), ix(2), ix(7), ix(8), ix(9), ix(10), ix(3)}), "");
  expect_valid_witnesses(x);
}

TEST(ExactSeed003, Fig5NoRaceButStuck) {
  Example x("fig05_stuck.std");
  EXPECT_TRUE(x.complete.races.empty());
  // The reordering on the right gets stuck after e1 e2 e3 e9: T2 waits for y (held by T3),
  // T3 waits for x (held by T1 in its cross-thread critical section), T1 waits to join T2.
  EXPECT_GT(x.prefixes.stuck_states, 0u);
  std::vector<EventId> stuck = x.ids(x.prefixes.stuck_witness);
  std::sort(stuck.begin(), stuck.end());
  EXPECT_EQ(stuck, std::vector<EventId>({1, 2, 3, 9}));
  EXPECT_EQ(testing::check_reordering(x.t, {ix(1), ix(2), ix(3), ix(9)}), "");
}

TEST(ExactSeed003, Fig6NoRaceOnlyWhenReorderingsAreComplete) {
  Example x("fig06_dctp.std");
  // The paper: "it is impossible to obtain a valid reordering where e5 and e10 appear next to
  // each other", and §6.1: e5 <mhb e10. Both hold for reorderings of the whole trace...
  EXPECT_TRUE(x.complete.races.empty()) << testing::to_string(x.complete.races);
  EXPECT_TRUE(x.mhb_complete(5, 10));
  // ...and the figure's reordering is one of them.
  EXPECT_EQ(testing::check_reordering(x.t, {ix(1), ix(2), ix(5), ix(3), ix(4), ix(6), ix(7), ix(8),
                                            ix(9), ix(11), ix(12), ix(10)}),
            "");
  // Def. 3.8 as written allows prefixes: e1 e2 e8 e9 e5 e10 stops before the read e11, whose
  // last write forced the order. So (e5, e10) is a predictable race of Def. 3.8 and e5, e10 are
  // not must-happen-before ordered over prefixes (docs/GROUND_TRUTH.md).
  EXPECT_EQ(testing::check_reordering(x.t, {ix(1), ix(2), ix(8), ix(9), ix(5), ix(10)}), "");
  EXPECT_FALSE(x.mhb(5, 10));
  expect_valid_witnesses(x);
}

TEST(ExactSeed003, Fig7IsWellFormed) {
  const Trace trace = load_example("fig07_well_formed.std");
  EXPECT_NO_THROW(TraceIndex t(trace));
  Example x("fig07_well_formed.std");
  EXPECT_TRUE(x.t.conflicting_pairs().empty());
  EXPECT_EQ(x.prefixes.stuck_states, 0u);
  // Both joins of T2 wait for T2's last event.
  EXPECT_TRUE(x.mhb(5, 7));
  EXPECT_TRUE(x.mhb(5, 9));
}

TEST(ExactSeed003, Fig9CrossThreadLockOfE11) {
  Example x("fig09_lh_pwr.std");
  // Lemma 6.3 (3): e6 <mhb e11, so e11 is in T2's cross-thread critical section for y:
  // (y,T2) in LH_CT(e11). The ordering needs reorderings of the whole trace (as in Fig. 6).
  EXPECT_TRUE(x.mhb_complete(6, 11));
  EXPECT_TRUE(x.mhb_complete(5, 11));
  EXPECT_TRUE(x.mhb_complete(11, 15));
  EXPECT_EQ(exact::format_lock_set(x.t, x.cross_complete[ix(11)], true), "{(y,T2)}");
  // T3 does not join T4, so e11 is not in T3's section for x (e13 may come first).
  EXPECT_FALSE(x.mhb_complete(11, 13));
  // Over prefixes T4 may run before T2 starts (nothing reads between them), so e5, e6 and e11
  // are unordered and no lock guards e11.
  EXPECT_FALSE(x.mhb(6, 11));
  expect_valid_witnesses(x);
  expect_lock_set_lemmas(x);
}

TEST(ExactSeed003, Fig10RaceWithTheEarlierWrite) {
  Example x("fig10_recent_accesses.std");
  EXPECT_EQ(x.complete.races, pairs_of({{2, 7}}));
  EXPECT_EQ(testing::check_reordering(x.t, {ix(1), ix(6), ix(7), ix(2)}), "");
  expect_valid_witnesses(x);
}

TEST(ExactSeed003, Fig13NoPredictableRaceNotStuck) {
  Example x("fig13_sdp.std");
  // (1) w(x)6 and w(x)14 share l2 through T1's cross-thread critical section.
  // (3) w(y)10 and w(y)18 cannot be adjacent in a reordering of the whole trace without
  // changing the last write of r(x)19: no predictable race, and no reordering gets stuck.
  EXPECT_TRUE(x.complete.races.empty()) << testing::to_string(x.complete.races);
  EXPECT_EQ(x.prefixes.stuck_states, 0u);
  expect_valid_witnesses(x);
  expect_lock_set_lemmas(x);
}

TEST(ExactSeed003, Fig14NoRace) {
  Example x("fig14_pwr_e.std");
  EXPECT_TRUE(x.complete.races.empty());
  // e4 -> e10 (last write); e6 before e11, e7 before e11; e5 before e13.
  EXPECT_TRUE(x.mhb(4, 10));
  EXPECT_TRUE(x.mhb(6, 11));
  EXPECT_TRUE(x.mhb(7, 11));
  EXPECT_TRUE(x.mhb(5, 13));
  expect_lock_set_lemmas(x);
}

TEST(ExactSeed003, Lemma58FalseNegativeOfCrossThreadLockSets) {
  Example x("lemma58_false_negative.std");
  EXPECT_EQ(x.complete.races, pairs_of({{3, 4}}));
  expect_valid_witnesses(x);
}

TEST(ExactSeed003, EnginesAgreeWithTheLibrary) {
  for (const char* name : {"fig01_lockset.std", "fig02_cross_thread.std", "fig03_hb_wcp.std",
                           "fig04_wcp_sdp.std", "fig05_stuck.std", "fig06_dctp.std",
                           "fig07_well_formed.std", "fig09_lh_pwr.std", "fig10_recent_accesses.std",
                           "fig13_sdp.std", "fig14_pwr_e.std", "lemma58_false_negative.std"}) {
    Example x(name);
    auto ids = [&](const Pairs& pairs) {
      std::vector<std::pair<EventId, EventId>> out;
      for (auto [a, b] : pairs) out.emplace_back(x.t.id(a), x.t.id(b));
      return out;
    };
    EXPECT_EQ(engine_pairs("exact", x.trace), ids(x.prefixes.races)) << name;
    EXPECT_EQ(engine_pairs("ls-standard", x.trace),
              ids(x.predicted(x.standard, Intersection::Plain)))
        << name;
    EXPECT_EQ(engine_pairs("ls-cross", x.trace), ids(x.predicted(x.cross, Intersection::Plain)))
        << name;
    EXPECT_EQ(engine_pairs("ls-cross-indexed", x.trace),
              ids(x.predicted(x.cross, Intersection::Indexed)))
        << name;
    // Lemma 5.7 and Corollary 5.13 on the paper's examples: no false negatives.
    for (auto race : x.prefixes.races) {
      const Pairs s = x.predicted(x.standard, Intersection::Plain);
      const Pairs ct = x.predicted(x.cross, Intersection::Indexed);
      EXPECT_TRUE(std::find(s.begin(), s.end(), race) != s.end()) << name;
      EXPECT_TRUE(std::find(ct.begin(), ct.end(), race) != ct.end()) << name;
    }
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
