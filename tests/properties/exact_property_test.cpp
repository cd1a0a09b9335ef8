// Theorems of Sulzmann and Thiemann (§3–5) on thousands of random small traces, plus a brute-force
// oracle for the memoised search. Fixed seeds; a failure prints the seed and the trace in STD.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <iterator>
#include <set>
#include <string>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/exact/locksets.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/trace_index.hpp"
#include "support/exact_support.hpp"
#include "support/small_traces.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using exact::Intersection;
using exact::LockSet;
using exact::RaceNotion;
using exact::Reorderings;
using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

int iterations(int normal) {
  return testing::property_iterations(normal);
}
GeneratorOptions small_options(uint64_t seed) {
  return testing::small_trace_options(seed);
}
std::string failure_context(uint64_t seed, const Trace& trace) {
  return testing::trace_context(seed, trace);
}

bool subset(const Pairs& a, const Pairs& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}
Pairs minus(const Pairs& a, const Pairs& b) {
  Pairs out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}
std::string show(const Pairs& p) {
  return testing::to_string(p);
}

// Brute force: every correctly reordered prefix, one sequence at a time (no memoisation, no
// canonical last writes), checked with the independent Def. 3.4 checker.
struct Oracle {
  Pairs adjacent, adjacent_complete, enabled;
  std::set<std::pair<uint32_t, uint32_t>> can_precede, can_precede_complete;  // (f, e): f before e
  // required[f]: events before f in every prefix that runs f (intersection).
  std::vector<std::set<uint32_t>> required;
  std::vector<bool> seen;
};

Oracle brute_force(const TraceIndex& t) {
  Oracle o;
  o.required.resize(t.size());
  o.seen.assign(t.size(), false);
  std::vector<uint32_t> seq;
  std::vector<uint32_t> position(t.thread_count(), 0);
  auto add = [](Pairs& pairs, uint32_t a, uint32_t b) {
    const std::pair<uint32_t, uint32_t> p(std::min(a, b), std::max(a, b));
    if (!std::binary_search(pairs.begin(), pairs.end(), p))
      pairs.insert(std::upper_bound(pairs.begin(), pairs.end(), p), p);
  };
  std::function<void()> go = [&] {
    // Both-enabled pairs: next events of started threads.
    std::vector<uint32_t> next;
    for (uint32_t u = 0; u < t.thread_count(); ++u) {
      const auto& ev = t.thread_events(u);
      if (position[u] >= ev.size()) continue;
      const uint32_t f = t.fork_of(u);
      if (f != kNoIndex && std::find(seq.begin(), seq.end(), f) == seq.end()) continue;
      next.push_back(ev[position[u]]);
    }
    for (size_t a = 0; a < next.size(); ++a)
      for (size_t b = a + 1; b < next.size(); ++b)
        if (conflicting(t.event(next[a]), t.event(next[b]))) add(o.enabled, next[a], next[b]);
    if (seq.size() == t.size()) {
      for (size_t k = 0; k < seq.size(); ++k)
        for (size_t j = 0; j < k; ++j) o.can_precede_complete.insert({seq[j], seq[k]});
      for (size_t k = 1; k < seq.size(); ++k)
        if (conflicting(t.event(seq[k - 1]), t.event(seq[k])))
          add(o.adjacent_complete, seq[k - 1], seq[k]);
    }
    for (uint32_t i : next) {
      seq.push_back(i);
      if (testing::check_reordering(t, seq).empty()) {
        for (size_t j = 0; j + 1 < seq.size(); ++j) o.can_precede.insert({seq[j], i});
        std::set<uint32_t> before(seq.begin(), seq.end() - 1);
        if (!o.seen[i]) {
          o.required[i] = before;
          o.seen[i] = true;
        } else {
          std::set<uint32_t> both;
          std::set_intersection(o.required[i].begin(), o.required[i].end(), before.begin(),
                                before.end(), std::inserter(both, both.begin()));
          o.required[i] = both;
        }
        if (seq.size() >= 2 && conflicting(t.event(seq[seq.size() - 2]), t.event(i)))
          add(o.adjacent, seq[seq.size() - 2], i);
        ++position[t.event(i).thread];
        go();
        --position[t.event(i).thread];
      }
      seq.pop_back();
    }
  };
  go();
  return o;
}

exact::SearchResult search(const TraceIndex& t, RaceNotion notion, Reorderings r,
                           bool witnesses = false) {
  exact::SearchOptions o;
  o.notion = notion;
  o.reorderings = r;
  o.witnesses = witnesses;
  return exact::search(t, o);
}

// The search against brute force over every sequence check_reordering accepts, on n traces;
// sync_share: a share of the steps that are send/recv (check_reordering keeps every recv after
// every earlier send on its object, independently of the trace index).
void search_agrees_with_brute_force(int n, double sync_share) {
  int checked = 0;
  int sync_traces = 0;
  for (uint64_t seed = 1; checked < n; ++seed) {
    GeneratorOptions o = small_options(seed);
    o.events = std::min<uint64_t>(o.events, 9);
    o.sync_share = sync_share;
    o.sync_objects = 1 + static_cast<uint32_t>(seed % 2);
    const Trace trace = generate_trace(o);
    SCOPED_TRACE(failure_context(seed, trace));
    const TraceIndex t(trace);
    const Oracle oracle = brute_force(t);
    const auto adjacent = search(t, RaceNotion::Adjacent, Reorderings::Prefixes, true);
    const auto enabled = search(t, RaceNotion::Enabled, Reorderings::Prefixes);
    const auto complete = search(t, RaceNotion::Adjacent, Reorderings::Complete, true);
    EXPECT_EQ(adjacent.races, oracle.adjacent)
        << show(adjacent.races) << " vs " << show(oracle.adjacent);
    EXPECT_EQ(enabled.races, oracle.enabled);
    EXPECT_EQ(complete.races, oracle.adjacent_complete);
    for (uint32_t e = 0; e < t.size(); ++e)
      for (uint32_t f = 0; f < t.size(); ++f) {
        if (e == f) continue;
        // e <mhb f iff every prefix running f has e before it; the literal reading: f never
        // precedes e (the whole trace is a reordering, so both co-occur).
        EXPECT_EQ(adjacent.mhb.before(e, f), oracle.required[f].count(e) > 0)
            << "e" << e + 1 << " <mhb e" << f + 1;
        EXPECT_EQ(adjacent.mhb.before_in_common(e, f), !oracle.can_precede.count({f, e}))
            << "e" << e + 1 << " <mhb(literal) e" << f + 1;
        EXPECT_EQ(complete.mhb.before(e, f), !oracle.can_precede_complete.count({f, e}))
            << "e" << e + 1 << " <mhb(complete) e" << f + 1;
      }
    for (const auto* r : {&adjacent, &complete})
      for (const exact::RaceWitness& w : r->witnesses) {
        std::vector<uint32_t> order = w.prefix;
        order.insert(order.end(), w.completion.begin(), w.completion.end());
        EXPECT_EQ(testing::check_reordering(t, order), "");
      }
    if (::testing::Test::HasFailure()) break;
    ++checked;
    sync_traces += t.has_sync_ops();
  }
  EXPECT_EQ(checked, n);
  if (sync_share > 0) {
    EXPECT_GT(sync_traces, n / 2);
  }
}

TEST(ExactProperties, SearchAgreesWithBruteForce) {
  search_agrees_with_brute_force(iterations(3000), 0);
}

TEST(ExactProperties, SearchAgreesWithBruteForceWithSyncOrders) {
  search_agrees_with_brute_force(iterations(3000), 0.25);
}

// The lock-set theorems of §4–5 for one semantics of the reorderings.
void check_lock_set_theorems(const TraceIndex& t, Reorderings r) {
  const auto result = search(t, RaceNotion::Adjacent, r);
  const Pairs& truth = result.races;  // G_DR
  const std::vector<LockSet> s = exact::standard_lock_sets(t);
  const std::vector<LockSet> ct = exact::cross_lock_sets(t, result.mhb);
  const Pairs conflicting = t.conflicting_pairs();

  // LH_C straight from Def. 4.3/4.4 (locks of the cross-thread sections holding e).
  std::vector<std::vector<LockId>> c(t.size());
  for (const CriticalSection& cs : t.critical_sections())
    for (uint32_t i : exact::cross_section(t, result.mhb, cs)) c[i].push_back(cs.lock);
  std::vector<LockSet> c_sets(t.size());
  for (uint32_t i = 0; i < t.size(); ++i) {
    std::sort(c[i].begin(), c[i].end());
    c[i].erase(std::unique(c[i].begin(), c[i].end()), c[i].end());
    for (LockId l : c[i]) c_sets[i].push_back({l, 0});
    // Lemma 5.11 (1): π1(LH_CT(e)) = LH_C(e).
    EXPECT_EQ(exact::locks_of(ct[i]), c[i]) << "Lemma 5.11 (1) at e" << i + 1;
    // Lemma 5.11 (2): LH_S(e) = {(x,t) ∈ LH_CT(e) | t = thread(e)}.
    LockSet own;
    for (const exact::HeldLock& h : ct[i])
      if (h.thread == t.event(i).thread) own.push_back(h);
    EXPECT_EQ(own, s[i]) << "Lemma 5.11 (2) at e" << i + 1;
    // Lemma 4.6 (1): LH_S(e) ⊆ LH_C(e).
    for (const exact::HeldLock& h : s[i])
      EXPECT_TRUE(std::binary_search(c[i].begin(), c[i].end(), h.lock))
          << "Lemma 4.6 at e" << i + 1;
  }

  const Pairs p_s = exact::predicted_pairs(t, s, Intersection::Plain);
  const Pairs p_c = exact::predicted_pairs(t, c_sets, Intersection::Plain);
  const Pairs p_ct = exact::predicted_pairs(t, ct, Intersection::Indexed);
  // The bulk predictor agrees with the definition of P_DR pair by pair.
  Pairs p_s_direct, p_c_direct, p_ct_direct;
  for (auto [e, f] : conflicting) {
    if (exact::disjoint(s[e], s[f])) p_s_direct.emplace_back(e, f);
    if (exact::disjoint(c_sets[e], c_sets[f])) p_c_direct.emplace_back(e, f);
    if (exact::disjoint_indexed(ct[e], ct[f])) p_ct_direct.emplace_back(e, f);
  }
  EXPECT_EQ(p_s, p_s_direct);
  EXPECT_EQ(p_c, p_c_direct);
  EXPECT_EQ(p_ct, p_ct_direct);
  EXPECT_EQ(exact::predicted_pairs(t, ct, Intersection::Plain), p_c);

  const Pairs fn_s = minus(truth, p_s), fn_c = minus(truth, p_c), fn_ct = minus(truth, p_ct);
  const Pairs fp_s = minus(p_s, truth), fp_c = minus(p_c, truth), fp_ct = minus(p_ct, truth);
  EXPECT_TRUE(fn_s.empty()) << "Lemma 5.7: false negatives of LH_S: " << show(fn_s);
  EXPECT_TRUE(fn_ct.empty()) << "Cor. 5.13: false negatives of LH_CT: " << show(fn_ct);
  EXPECT_TRUE(subset(p_c, p_s)) << "Cor. 5.4";
  EXPECT_TRUE(subset(fp_c, fp_s)) << "Cor. 5.5";
  EXPECT_TRUE(subset(fn_s, fn_c)) << "Cor. 5.6";
  EXPECT_TRUE(subset(fn_s, fn_ct) && subset(fn_ct, fn_c)) << "Cor. 5.12 (false negatives)";
  EXPECT_TRUE(subset(fp_c, fp_ct) && subset(fp_ct, fp_s)) << "Cor. 5.12 (false positives)";
  EXPECT_TRUE(subset(p_c, p_ct)) << "Lemma 5.11 (3)";
  EXPECT_TRUE(subset(p_ct, p_s)) << "Lemma 5.11 (4)";
}

TEST(ExactProperties, LockSetTheorems) {
  const int n = iterations(15000);
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = generate_trace(small_options(seed));
    SCOPED_TRACE(failure_context(seed, trace));
    const TraceIndex t(trace);
    check_lock_set_theorems(t, Reorderings::Prefixes);
    check_lock_set_theorems(t, Reorderings::Complete);
    if (HasFailure()) break;
  }
}

// Lemma 3.6: must-happen-before is a strict partial order; it contains program order, fork,
// join and last-write edges. Reorderings of the whole trace order more.
TEST(ExactProperties, MustHappenBeforeIsAStrictPartialOrder) {
  const int n = iterations(4000);
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = generate_trace(small_options(seed));
    SCOPED_TRACE(failure_context(seed, trace));
    const TraceIndex t(trace);
    const auto prefixes = search(t, RaceNotion::Adjacent, Reorderings::Prefixes);
    const auto complete = search(t, RaceNotion::Adjacent, Reorderings::Complete);
    const uint32_t size = static_cast<uint32_t>(t.size());
    for (const exact::MustHappenBefore* mhb : {&prefixes.mhb, &complete.mhb}) {
      for (uint32_t e = 0; e < size; ++e) {
        EXPECT_FALSE(mhb->before(e, e));
        for (uint32_t f = 0; f < size; ++f) {
          if (mhb->before(e, f)) {
            EXPECT_FALSE(mhb->before(f, e));
            EXPECT_LT(e, f);  // the trace itself is a reordering
            for (uint32_t g = 0; g < size; ++g)
              if (mhb->before(f, g)) {
                EXPECT_TRUE(mhb->before(e, g)) << "transitivity " << e << " " << f << " " << g;
              }
          }
        }
        const Event& ev = t.event(e);
        for (uint32_t f : t.thread_events(ev.thread))
          if (f > e) {
            EXPECT_TRUE(mhb->before(e, f)) << "program order";
          }
        if (ev.op == Op::Fork) {
          for (uint32_t f : t.thread_events(ev.target)) EXPECT_TRUE(mhb->before(e, f)) << "fork";
        }
        if (ev.op == Op::Join) {
          for (uint32_t f : t.thread_events(ev.target)) EXPECT_TRUE(mhb->before(f, e)) << "join";
        }
        if (ev.op == Op::Read && t.last_write(e) != kNoIndex) {
          EXPECT_TRUE(mhb->before(t.last_write(e), e)) << "last write";
        }
      }
    }
    for (uint32_t e = 0; e < size; ++e)
      for (uint32_t f = 0; f < size; ++f) {
        if (prefixes.mhb.before(e, f)) {
          EXPECT_TRUE(complete.mhb.before(e, f));
          EXPECT_TRUE(prefixes.mhb.before_in_common(e, f));
        }
        // Over complete reorderings both readings of Def. 3.5 coincide.
        EXPECT_EQ(complete.mhb.before(e, f), complete.mhb.before_in_common(e, f));
      }
    if (HasFailure()) break;
  }
}

// Def. 3.8 races ⊆ both-enabled races; races of complete reorderings ⊆ races of prefixes.
TEST(ExactProperties, RaceNotionsAreNested) {
  const int n = iterations(5000);
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = generate_trace(small_options(seed));
    SCOPED_TRACE(failure_context(seed, trace));
    const TraceIndex t(trace);
    const auto adjacent = search(t, RaceNotion::Adjacent, Reorderings::Prefixes, true);
    const auto enabled = search(t, RaceNotion::Enabled, Reorderings::Prefixes);
    const auto complete = search(t, RaceNotion::Adjacent, Reorderings::Complete, true);
    const auto complete_enabled = search(t, RaceNotion::Enabled, Reorderings::Complete);
    EXPECT_TRUE(subset(adjacent.races, enabled.races))
        << show(minus(adjacent.races, enabled.races));
    EXPECT_TRUE(subset(complete.races, adjacent.races));
    EXPECT_TRUE(subset(complete.races, complete_enabled.races));
    EXPECT_TRUE(subset(complete_enabled.races, enabled.races));
    EXPECT_TRUE(subset(adjacent.races, t.conflicting_pairs()));
    // The two events of a race run in the witness's order, so the other order is not required
    // (a write and the read that reads it may race: they can be adjacent).
    for (const auto* r : {&adjacent, &complete})
      for (const exact::RaceWitness& w : r->witnesses)
        EXPECT_FALSE(r->mhb.before(w.second, w.first));
    if (HasFailure()) break;
  }
}

// The random traces reach every case the theorems distinguish (guards against a generator that
// makes the properties above hold vacuously).
TEST(ExactProperties, RandomTracesCoverTheInterestingCases) {
  const int n = iterations(2000);
  int races = 0, fp_standard = 0, fn_cross = 0, cross_better = 0, prefix_only = 0, enabled_only = 0,
      literal_not_transitive = 0, stuck = 0, cross_locks = 0, cross_removes_fp = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const TraceIndex t(generate_trace(small_options(seed)));
    const auto adjacent = search(t, RaceNotion::Adjacent, Reorderings::Prefixes);
    const auto enabled = search(t, RaceNotion::Enabled, Reorderings::Prefixes);
    const auto complete = search(t, RaceNotion::Adjacent, Reorderings::Complete);
    const auto s = exact::standard_lock_sets(t);
    const auto ct = exact::cross_lock_sets(t, adjacent.mhb);
    const Pairs p_s = exact::predicted_pairs(t, s, Intersection::Plain);
    const Pairs p_c = exact::predicted_pairs(t, ct, Intersection::Plain);
    races += !adjacent.races.empty();
    fp_standard += !minus(p_s, adjacent.races).empty();
    fn_cross += !minus(adjacent.races, p_c).empty();
    cross_better += p_c.size() < p_s.size();
    bool more = false;
    for (uint32_t i = 0; i < t.size(); ++i) more |= ct[i].size() > s[i].size();
    cross_locks += more;
    cross_removes_fp += !minus(minus(p_s, adjacent.races), p_c).empty();
    prefix_only += complete.races.size() < adjacent.races.size();
    enabled_only += adjacent.races.size() < enabled.races.size();
    stuck += adjacent.stuck_states > 0;
    bool found = false;
    for (uint32_t e = 0; e < t.size() && !found; ++e)
      for (uint32_t f = 0; f < t.size() && !found; ++f)
        for (uint32_t g = 0; g < t.size() && !found; ++g)
          found = adjacent.mhb.before_in_common(e, f) && adjacent.mhb.before_in_common(f, g) &&
                  !adjacent.mhb.before_in_common(e, g);
    literal_not_transitive += found;
  }
  std::cout << "of " << n << " traces: " << races << " with races, " << fp_standard
            << " with LH_S false positives, " << cross_better << " where LH_C predicts less, "
            << fn_cross << " with LH_C false negatives, " << cross_locks
            << " with cross-thread locks, " << cross_removes_fp
            << " where LH_C removes a false positive, " << prefix_only
            << " with races only over prefixes, " << enabled_only
            << " with races only when enabled, " << stuck << " that can get stuck, "
            << literal_not_transitive << " where the literal Def. 3.5 over prefixes is not "
            << "transitive\n";
  for (int count : {races, fp_standard, fn_cross, cross_better, prefix_only, enabled_only, stuck,
                    literal_not_transitive, cross_locks, cross_removes_fp})
    EXPECT_GT(count, 0);
}

// Engines of other parts against the ground truth.
// The engines' own claims against the ground truth (lockset complete, the first hb race real,
// …) are checked for every engine of the table in guarantee_property_test.cpp.

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
