// The PWR theorems of seed 003 §6 on thousands of random small traces (fixed seeds), against the
// definitional reference (support/pwr_reference.hpp) and the exact ground truth, and the PWR
// engines against the reference. docs/ENGINES.md ("PWR family") states what is tested.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <map>
#include <string>

#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/exact/exact_trace.hpp"
#include "racepred/exact/locksets.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"
#include "support/exact_support.hpp"
#include "support/pwr_reference.hpp"

namespace racepred {
namespace {

using exact::ExactTrace;
using exact::Intersection;
using exact::LockSet;
using testing::PwrRelation;
using testing::Rod;
using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

int iterations(int normal) {
  return std::getenv("RACEPRED_SANITIZED") ? std::max(200, normal / 10) : normal;
}

// Small random traces; every third one has forks and joins inside critical sections (the
// cross-thread sections of Fig. 2).
GeneratorOptions small_options(uint64_t seed, uint64_t max_events) {
  Rng rng(seed * 104729 + 7);
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 2 + static_cast<uint32_t>(rng.below(3));
  o.events = 4 + rng.below(max_events - 3);
  o.variables = 1 + static_cast<uint32_t>(rng.below(3));
  o.locks = 1 + static_cast<uint32_t>(rng.below(2));
  o.nesting = 1 + static_cast<uint32_t>(rng.below(2));
  const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                              ForkShape::Nested};
  o.shape = shapes[rng.below(4)];
  o.cs_share = 0.3 + 0.15 * static_cast<double>(rng.below(5));
  o.write_share = 0.5;
  o.local_share = 0;
  o.guarded_share = 0.5;
  o.switch_share = 0.5;
  o.release_at_end = rng.below(4) != 0;
  o.early_joins = rng.below(2) != 0;
  if (seed % 3 == 0) {
    o.shape = ForkShape::Nested;
    o.early_joins = true;
    o.cs_share = 0.9;
    o.threads = 3 + static_cast<uint32_t>(rng.below(2));
    o.locks = 1;
    o.variables = 1;
    o.switch_share = 0.8;
  }
  return o;
}

// Random traces built around cross-thread critical sections (Fig. 2, 9, 14 of seed 003): T0
// forks T2, then forks T1 inside a section of L0 and joins it there; T2 may do the same with T3
// and L0 or L1. Bodies are random accesses of x and y, some in small critical sections. A
// random scheduler interleaves the threads (locks, forks and joins respected). The generic
// generator rarely builds such sections with conflicting accesses around them.
Trace cross_thread_trace(uint64_t seed) {
  Rng rng(seed * 31337 + 3);
  using Program = std::vector<std::string>;
  auto body = [&](Program& p, uint64_t max) {
    for (uint64_t k = rng.below(max + 1); k > 0; --k) {
      static const char* const kAccesses[] = {"w(x)", "r(x)", "w(y)", "r(y)"};
      const std::string access = kAccesses[rng.below(2) + (rng.chance(0.7) ? 0 : 2)];
      if (rng.chance(0.3)) {
        const bool l0 = rng.chance(0.5);
        p.push_back(l0 ? "acq(L0)" : "acq(L1)");
        p.push_back(access);
        p.push_back(l0 ? "rel(L0)" : "rel(L1)");
      } else {
        p.push_back(access);
      }
    }
  };
  std::vector<Program> prog(4);
  body(prog[0], 1);
  prog[0].push_back("fork(T2)");
  body(prog[0], 1);
  prog[0].push_back("acq(L0)");
  body(prog[0], 1);
  prog[0].push_back("fork(T1)");
  body(prog[0], 1);
  prog[0].push_back("join(T1)");
  body(prog[0], 1);
  prog[0].push_back("rel(L0)");
  body(prog[0], 2);
  body(prog[1], 3);
  body(prog[2], 2);
  const bool nested = rng.chance(0.6);
  if (nested) {
    const bool l0 = rng.chance(0.6);
    prog[2].push_back(l0 ? "acq(L0)" : "acq(L1)");
    prog[2].push_back("fork(T3)");
    body(prog[2], 1);
    prog[2].push_back("join(T3)");
    prog[2].push_back(l0 ? "rel(L0)" : "rel(L1)");
    body(prog[3], 2);
  }
  body(prog[2], 2);
  std::vector<size_t> pos(4, 0);
  std::vector<bool> started = {true, false, false, false};
  std::map<std::string, int> holder;
  std::string text;
  for (;;) {
    std::vector<int> runnable;
    for (int t = 0; t < 4; ++t) {
      if (!started[t] || pos[t] >= prog[t].size()) continue;
      const std::string& op = prog[t][pos[t]];
      if (op.rfind("acq(", 0) == 0 && holder.count(op.substr(4, 2))) continue;
      if (op.rfind("join(T", 0) == 0) {
        const int u = op[6] - '0';
        if (pos[u] < prog[u].size()) continue;
      }
      runnable.push_back(t);
    }
    if (runnable.empty()) break;
    const int t = runnable[rng.below(runnable.size())];
    const std::string& op = prog[t][pos[t]++];
    if (op.rfind("acq(", 0) == 0) holder[op.substr(4, 2)] = t;
    if (op.rfind("rel(", 0) == 0) holder.erase(op.substr(4, 2));
    if (op.rfind("fork(T", 0) == 0) started[op[6] - '0'] = true;
    text.append("T").append(std::to_string(t)).append("|").append(op).append("|");
    text.append(std::to_string(t * 100 + pos[t])).append("\n");
  }
  return parse_trace(text);
}

std::string context(uint64_t seed, const Trace& trace) {
  return "seed " + std::to_string(seed) + ", trace:\n" + to_std_text(trace);
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
// An engine's race pairs as event indices (generated traces number events 1, 2, …).
Pairs engine_pairs(const char* engine, const Trace& trace) {
  const RaceSink sink = run_engine(engine, trace);
  Pairs out;
  for (const Race& r : sink.races())
    out.emplace_back(static_cast<uint32_t>(r.first.event - 1),
                     static_cast<uint32_t>(r.second.event - 1));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  EXPECT_EQ(out.size(), sink.race_count()) << engine << " reported a pair twice";
  return out;
}

// Lemma 6.2, Lemma 6.3 (1) and (2), Cor. 6.4 for both readings of PWR-3.
TEST(PwrProperties, ReferenceTheorems) {
  const int n = iterations(3000);
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = generate_trace(small_options(seed, 18));
    SCOPED_TRACE(context(seed, trace));
    const ExactTrace t(trace);
    const auto truth = exact::search(t);
    const std::vector<LockSet> s = exact::standard_lock_sets(t);
    const std::vector<LockSet> ct = exact::cross_lock_sets(t, truth.mhb);
    const PwrRelation literal(t, Rod::Literal), closed(t, Rod::Closed);
    for (const PwrRelation* rel : {&literal, &closed}) {
      const char* name = rel == &literal ? "literal" : "closed";
      for (uint32_t e = 0; e < t.size(); ++e)
        for (uint32_t f = 0; f < t.size(); ++f) {
          if (rel->before(e, f)) {
            EXPECT_TRUE(truth.mhb.before(e, f)) << "Lemma 6.2 (" << name << "): e" << e + 1
                                                << " <pwr e" << f + 1 << " but not <mhb";
          }
          if (rel == &literal && literal.before(e, f)) {
            EXPECT_TRUE(closed.before(e, f)) << "literal ⊆ closed";
          }
        }
      const std::vector<LockSet> lh = rel->lock_sets();
      for (uint32_t e = 0; e < t.size(); ++e) {
        EXPECT_TRUE(std::includes(ct[e].begin(), ct[e].end(), lh[e].begin(), lh[e].end()))
            << "Lemma 6.3 (1) (" << name << ") at e" << e + 1;
        LockSet own;
        for (const exact::HeldLock& h : lh[e])
          if (h.thread == t.event(e).thread) own.push_back(h);
        EXPECT_EQ(own, s[e]) << "Lemma 6.3 (2) (" << name << ") at e" << e + 1;
      }
      const Pairs with_s = testing::pwr_races(t, *rel, s, Intersection::Plain);
      const Pairs with_pwr = testing::pwr_races(t, *rel, lh, Intersection::Indexed);
      EXPECT_TRUE(subset(truth.races, with_s))
          << "PWR + LH_S misses " << show(minus(truth.races, with_s)) << " (" << name << ")";
      EXPECT_TRUE(subset(truth.races, with_pwr))
          << "Cor. 6.4 (" << name << "): PWR + LH_pwr misses "
          << show(minus(truth.races, with_pwr));
      EXPECT_TRUE(subset(with_pwr, with_s)) << name;
    }
    if (HasFailure()) break;
  }
}

// The vector-clock engines against the reference (closed reading, LH_S): pwr-edges-unbounded
// reports exactly the reference's PWR races; pwr-unbounded a subset (the pairs still in RW(x));
// every exact race is reported by pwr-edges-unbounded (Cor. 6.4 for the engine).
TEST(PwrProperties, EnginesAgainstReference) {
  const int n = iterations(4000);
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = generate_trace(small_options(seed, 24));
    SCOPED_TRACE(context(seed, trace));
    const ExactTrace t(trace);
    const PwrRelation closed(t, Rod::Closed);
    const Pairs reference =
        testing::pwr_races(t, closed, exact::standard_lock_sets(t), Intersection::Plain);
    const Pairs edges = engine_pairs("pwr-edges-unbounded", trace);
    const Pairs plain = engine_pairs("pwr-unbounded", trace);
    EXPECT_EQ(edges, reference) << "engine " << show(edges) << " reference " << show(reference);
    EXPECT_TRUE(subset(plain, edges)) << show(minus(plain, edges));
    if (t.size() <= 16) {
      const auto truth = exact::search(t);
      EXPECT_TRUE(subset(truth.races, edges)) << show(minus(truth.races, edges));
    }
    if (HasFailure()) break;
  }
}

// pwr-cs against the reference lock sets: with unbounded histories it reports exactly the pairs
// of pwr-unbounded whose LH_pwr sets (closed reading) do not intersect under ∩'; with the
// default bounds pwr-cs ⊆ pwr; pwr-e ⊆ pwr-cs (both bounds). The guarded pairs are pwr's pairs
// that pwr-cs drops.
TEST(PwrProperties, CrossThreadEnginesAgainstReference) {
  const int n = iterations(4000);
  int guarded = 0, e_differs = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace =
        seed % 2 ? cross_thread_trace(seed) : generate_trace(small_options(seed, 24));
    SCOPED_TRACE(context(seed, trace));
    const ExactTrace t(trace);
    const PwrRelation closed(t, Rod::Closed);
    const std::vector<LockSet> lh = closed.lock_sets();
    const Pairs plain = engine_pairs("pwr-unbounded", trace);
    Pairs expected;
    for (auto [a, b] : plain)
      if (exact::disjoint_indexed(lh[a], lh[b])) expected.emplace_back(a, b);
    const Pairs cs = engine_pairs("pwr-cs-unbounded", trace);
    EXPECT_EQ(cs, expected) << "pwr-cs " << show(cs) << " expected " << show(expected);
    const Pairs cs_bounded = engine_pairs("pwr-cs", trace);
    EXPECT_TRUE(subset(cs_bounded, engine_pairs("pwr", trace)));
    const Pairs e = engine_pairs("pwr-e-unbounded", trace);
    EXPECT_TRUE(subset(e, cs)) << show(minus(e, cs));
    EXPECT_TRUE(subset(engine_pairs("pwr-e", trace), cs_bounded));
    // Cor. 6.4 for what pwr-e keeps: every exact race among pwr-cs's pairs is still there.
    if (t.size() <= 16) {
      const auto truth = exact::search(t);
      Pairs truth_in_cs;
      std::set_intersection(truth.races.begin(), truth.races.end(), cs.begin(), cs.end(),
                            std::back_inserter(truth_in_cs));
      EXPECT_TRUE(subset(truth_in_cs, e)) << show(minus(truth_in_cs, e));
    }
    guarded += cs.size() < plain.size();
    e_differs += e.size() < cs.size();
    if (HasFailure()) break;
  }
  // The random traces exercise the interesting cases (not a theorem: a coverage check).
  EXPECT_GT(guarded, 10);
  std::cout << "traces with guarded pairs: " << guarded << ", pwr-e below pwr-cs: " << e_differs
            << "\n";
}

}  // namespace
}  // namespace racepred
