// The PWR theorems of Sulzmann and Thiemann §6 on thousands of random small traces (fixed seeds),
// against the definitional reference (support/pwr_reference.hpp) and the exact ground truth, and
// the PWR engines against the reference. docs/ENGINES.md ("PWR family") states what is tested.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/engines/pwr/pwr.hpp"
#include "racepred/exact/locksets.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/trace_index.hpp"
#include "support/exact_support.hpp"
#include "support/pwr_reference.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

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
GeneratorOptions small_options(uint64_t seed, uint64_t max_events, double read_lock_share,
                               double sync_share = 0) {
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
  o.read_lock_share = read_lock_share;
  o.sync_share = sync_share;
  return o;
}

// The tests run on traces with exclusive locks only and again with half of the acquires in
// read mode (docs/ENGINES.md, "Read-write locks"), on other seeds.
struct Variant {
  double read_lock_share;
  uint64_t first_seed;
  int divisor;            // the read-lock variant runs a share of the iterations
  double sync_share = 0;  // share of the steps that are send/recv (synchronisation orders)
};
void PrintTo(const Variant& v, std::ostream* os) {
  *os << "read_lock_share " << v.read_lock_share << ", seeds from " << v.first_seed;
}
class PwrProperties : public ::testing::TestWithParam<Variant> {};
std::string variant_name(const ::testing::TestParamInfo<Variant>& p) {
  return p.param.sync_share > 0        ? "SyncOrders"
         : p.param.read_lock_share > 0 ? "ReadLocks"
                                       : "ExclusiveLocks";
}

// Random traces built around cross-thread critical sections (Fig. 2, 9, 14 of Sulzmann and
// Thiemann): T0 forks T2, then forks T1 inside a section of L0 and joins it there; T2 may do the
// same with T3 and L0 or L1. Bodies are random accesses of x and y, some in small critical
// sections. A random scheduler interleaves the threads (locks, forks and joins respected). The
// generic generator rarely builds such sections with conflicting accesses around them. With
// read_lock_share, that share of the sections (also the ones around forks) is in read mode
// (racq/rrel).
Trace cross_thread_trace(uint64_t seed, double read_lock_share) {
  Rng rng(seed * 31337 + 3);
  using Program = std::vector<std::string>;
  auto section = [&](Program& p, bool l0) {
    const bool read = read_lock_share > 0 && rng.chance(read_lock_share);
    const std::string lock = l0 ? "(L0)" : "(L1)";
    p.push_back((read ? "racq" : "acq") + lock);
    return (read ? "rrel" : "rel") + lock;
  };
  auto body = [&](Program& p, uint64_t max) {
    for (uint64_t k = rng.below(max + 1); k > 0; --k) {
      static const char* const kAccesses[] = {"w(x)", "r(x)", "w(y)", "r(y)"};
      const std::string access = kAccesses[rng.below(2) + (rng.chance(0.7) ? 0 : 2)];
      if (rng.chance(0.3)) {
        const std::string release = section(p, rng.chance(0.5));
        p.push_back(access);
        p.push_back(release);
      } else {
        p.push_back(access);
      }
    }
  };
  std::vector<Program> prog(4);
  body(prog[0], 1);
  prog[0].push_back("fork(T2)");
  body(prog[0], 1);
  const std::string release0 = section(prog[0], true);
  body(prog[0], 1);
  prog[0].push_back("fork(T1)");
  body(prog[0], 1);
  prog[0].push_back("join(T1)");
  body(prog[0], 1);
  prog[0].push_back(release0);
  body(prog[0], 2);
  body(prog[1], 3);
  body(prog[2], 2);
  const bool nested = rng.chance(0.6);
  if (nested) {
    const std::string release2 = section(prog[2], rng.chance(0.6));
    prog[2].push_back("fork(T3)");
    body(prog[2], 1);
    prog[2].push_back("join(T3)");
    prog[2].push_back(release2);
    body(prog[3], 2);
  }
  body(prog[2], 2);
  std::vector<size_t> pos(4, 0);
  std::vector<bool> started = {true, false, false, false};
  struct Holds {
    int writer = -1;
    std::set<int> readers;
  };
  std::map<std::string, Holds> holds;  // by lock name
  auto starts_with = [](const std::string& op, const char* prefix) {
    return op.rfind(prefix, 0) == 0;
  };
  auto lock_of = [](const std::string& op) { return op.substr(op.find('(') + 1, 2); };
  std::string text;
  for (;;) {
    std::vector<int> runnable;
    for (int t = 0; t < 4; ++t) {
      if (!started[t] || pos[t] >= prog[t].size()) continue;
      const std::string& op = prog[t][pos[t]];
      if (starts_with(op, "acq(") || starts_with(op, "racq(")) {
        const Holds& h = holds[lock_of(op)];
        // (a re-entrant acquire blocks its thread, which ends the trace early)
        if (h.writer >= 0 || (op[0] == 'a' && !h.readers.empty()) || h.readers.count(t)) continue;
      }
      if (starts_with(op, "join(T")) {
        const int u = op[6] - '0';
        if (pos[u] < prog[u].size()) continue;
      }
      runnable.push_back(t);
    }
    if (runnable.empty()) break;
    const int t = runnable[rng.below(runnable.size())];
    const std::string& op = prog[t][pos[t]++];
    if (starts_with(op, "acq(")) holds[lock_of(op)].writer = t;
    if (starts_with(op, "rel(")) holds[lock_of(op)].writer = -1;
    if (starts_with(op, "racq(")) holds[lock_of(op)].readers.insert(t);
    if (starts_with(op, "rrel(")) holds[lock_of(op)].readers.erase(t);
    if (starts_with(op, "fork(T")) started[op[6] - '0'] = true;
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
Pairs engine_pairs(const char* engine, const Trace& trace, const EngineOptions& options = {}) {
  const RaceSink sink = run_engine(engine, trace, options);
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
TEST_P(PwrProperties, ReferenceTheorems) {
  const Variant v = GetParam();
  const uint64_t n = static_cast<uint64_t>(iterations(3000 / v.divisor));
  for (uint64_t seed = v.first_seed; seed < v.first_seed + n; ++seed) {
    const Trace trace = generate_trace(small_options(seed, 18, v.read_lock_share, v.sync_share));
    SCOPED_TRACE(context(seed, trace));
    const TraceIndex t(trace);
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
TEST_P(PwrProperties, EnginesAgainstReference) {
  const Variant v = GetParam();
  const uint64_t n = static_cast<uint64_t>(iterations(4000 / v.divisor));
  for (uint64_t seed = v.first_seed; seed < v.first_seed + n; ++seed) {
    const Trace trace = generate_trace(small_options(seed, 24, v.read_lock_share, v.sync_share));
    SCOPED_TRACE(context(seed, trace));
    const TraceIndex t(trace);
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

// pwr-edges keeps the ids of an edge in 32 bits and moves them to a side table past 2^32 - 1
// events ("far" edges): with every edge far (the limit lowered to 2) both pwr-edges engines
// report what they report with every edge near.
TEST(PwrEdgesRepresentation, FarEdgesSameAsNear) {
  const uint64_t n = static_cast<uint64_t>(iterations(1000));
  for (uint64_t seed = 1; seed <= n; ++seed) {
    const Trace trace = generate_trace(small_options(seed, 40, seed % 3 == 0 ? 0.3 : 0.0));
    SCOPED_TRACE(context(seed, trace));
    const Pairs near_unbounded = engine_pairs("pwr-edges-unbounded", trace);
    const Pairs near_bounded = engine_pairs("pwr-edges", trace);
    EngineOptions far;
    far.pwr_edge_id_limit = seed % 2 ? 2 : 5;
    const Pairs far_unbounded = engine_pairs("pwr-edges-unbounded", trace, far);
    const Pairs far_bounded = engine_pairs("pwr-edges", trace, far);
    EXPECT_EQ(far_unbounded, near_unbounded);
    EXPECT_EQ(far_bounded, near_bounded);
    if (HasFailure()) break;
  }
}

// pwr-cs against the reference lock sets: with unbounded histories it reports exactly the pairs
// of pwr-unbounded whose LH_pwr sets (closed reading) do not intersect under ∩'; with the
// default bounds pwr-cs ⊆ pwr; pwr-e ⊆ pwr-cs (both bounds). The guarded pairs are pwr's pairs
// that pwr-cs drops.
TEST_P(PwrProperties, CrossThreadEnginesAgainstReference) {
  const Variant v = GetParam();
  const uint64_t n = static_cast<uint64_t>(iterations(4000 / v.divisor));
  int guarded = 0, e_differs = 0;
  for (uint64_t seed = v.first_seed; seed < v.first_seed + n; ++seed) {
    const Trace trace =
        seed % 2 ? cross_thread_trace(seed, v.read_lock_share)
                 : generate_trace(small_options(seed, 24, v.read_lock_share, v.sync_share));
    SCOPED_TRACE(context(seed, trace));
    const TraceIndex t(trace);
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

INSTANTIATE_TEST_SUITE_P(Locks, PwrProperties,
                         ::testing::Values(Variant{0, 1, 1}, Variant{0.5, 500001, 2},
                                           Variant{0, 700001, 2, 0.12}),
                         variant_name);

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
