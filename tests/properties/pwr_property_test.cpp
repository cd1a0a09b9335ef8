// The PWR theorems of seed 003 §6 on thousands of random small traces (fixed seeds), against the
// definitional reference (support/pwr_reference.hpp) and the exact ground truth, and the PWR
// engines against the reference. docs/ENGINES.md ("PWR family") states what is tested.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <string>

#include "racepred/engines/engine.hpp"
#include "racepred/engines/run.hpp"
#include "racepred/exact/exact_trace.hpp"
#include "racepred/exact/locksets.hpp"
#include "racepred/exact/search.hpp"
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
  }
  return o;
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

}  // namespace
}  // namespace racepred
