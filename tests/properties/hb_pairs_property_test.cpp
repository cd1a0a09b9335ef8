// Properties of hb, hb-sets, hb-pairs and tsan1 on random well-formed traces (fixed seeds):
//  - hb reports exactly the conflicting pairs that a graph-reachability definition of HB leaves
//    unordered (program order, fork -> first event, last event -> join, release -> later acquire
//    of the same lock, transitively closed), with and without dropping known accesses, and
//    counts the same when it keeps only a few races;
//  - hb-sets and hb-pairs report subsets of hb's pairs (so their racy events are racy for hb);
//  - tsan1 reports a subset of the pairs that are unordered by fork/join and program order alone
//    and hold disjoint lock sets, and (once the lockset engine is registered) of lockset's pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/hb/hb.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using Pairs = std::set<std::pair<EventId, EventId>>;

// Concatenates its arguments into a message (GCC 12 warns wrongly about "lit" + std::string).
template <class... Args>
std::string cat(const Args&... args) {
  std::ostringstream s;
  (s << ... << args);
  return s.str();
}

// ---------------------------------------------------------------------------------------------
// Reference relations by graph reachability.

struct Reference {
  Pairs hb;     // conflicting pairs unordered by HB
  Pairs tsan1;  // conflicting, unordered by program order + fork/join, disjoint lock sets
};

Reference reference(const Trace& trace) {
  const size_t n = trace.size();
  const size_t threads = trace.symbols.threads.size();
  // succ_hb: HB edges; succ_fj: the same without release -> acquire.
  std::vector<std::vector<size_t>> succ_hb(n), succ_fj(n);
  auto edge = [&](size_t a, size_t b, bool lock) {
    succ_hb[a].push_back(b);
    if (!lock) succ_fj[a].push_back(b);
  };
  std::vector<size_t> last(threads, SIZE_MAX), first(threads, SIZE_MAX);
  for (size_t i = 0; i < n; ++i) {
    const Event& e = trace.events[i];
    if (last[e.thread] != SIZE_MAX) edge(last[e.thread], i, false);
    if (first[e.thread] == SIZE_MAX) first[e.thread] = i;
    last[e.thread] = i;
  }
  std::vector<size_t> fork_at(threads, SIZE_MAX);
  for (size_t i = 0; i < n; ++i) {
    const Event& e = trace.events[i];
    if (e.op == Op::Fork) {
      fork_at[e.target] = i;
      if (first[e.target] != SIZE_MAX) edge(i, first[e.target], false);
    }
    if (e.op == Op::Join) {
      if (last[e.target] != SIZE_MAX)
        edge(last[e.target], i, false);
      else if (fork_at[e.target] != SIZE_MAX)
        edge(fork_at[e.target], i, false);  // a forked thread without events: fork < join
    }
    if (e.op == Op::Release)
      for (size_t j = i + 1; j < n; ++j)
        if (trace.events[j].op == Op::Acquire && trace.events[j].target == e.target)
          edge(i, j, true);
  }
  // All edges point forward in the trace: close transitively from the end.
  auto closure = [&](const std::vector<std::vector<size_t>>& succ) {
    std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
    for (size_t i = n; i-- > 0;)
      for (size_t s : succ[i]) {
        reach[i][s] = true;
        for (size_t k = s + 1; k < n; ++k)
          if (reach[s][k]) reach[i][k] = true;
      }
    return reach;
  };
  const auto hb = closure(succ_hb);
  const auto fj = closure(succ_fj);
  // Lock sets of the accesses.
  std::vector<std::set<LockId>> held(threads);
  std::vector<std::set<LockId>> ls(n);
  for (size_t i = 0; i < n; ++i) {
    const Event& e = trace.events[i];
    if (e.op == Op::Acquire) held[e.thread].insert(e.target);
    if (e.op == Op::Release) held[e.thread].erase(e.target);
    ls[i] = held[e.thread];
  }
  Reference ref;
  for (size_t j = 0; j < n; ++j)
    for (size_t i = 0; i < j; ++i) {
      if (!conflicting(trace.events[i], trace.events[j])) continue;
      const std::pair<EventId, EventId> p{trace.ids[i], trace.ids[j]};
      if (!hb[i][j]) ref.hb.insert(p);
      bool disjoint = true;
      for (LockId y : ls[i])
        if (ls[j].count(y)) disjoint = false;
      if (!fj[i][j] && disjoint) ref.tsan1.insert(p);
    }
  return ref;
}

Pairs pairs_of(const RaceSink& sink) {
  Pairs out;
  for (const Race& r : sink.races()) out.insert({r.first.event, r.second.event});
  return out;
}

RaceSink run_hb_pruning_always(const Trace& trace) {
  return run_engine([](EngineContext& context) { return make_hb_engine(context, 1); }, trace);
}

std::string show(const Pairs& p) {
  std::ostringstream s;
  for (const auto& [a, b] : p) s << '(' << a << ',' << b << ") ";
  return p.empty() ? "none" : s.str();
}

bool subset(const Pairs& a, const Pairs& b) {
  for (const auto& p : a)
    if (!b.count(p)) return false;
  return true;
}

int iterations(int normal) {
  return std::getenv("RACEPRED_SANITIZED") ? normal / 8 : normal;
}

// Runs `check` on `count` random traces of the shared generator (trace/generator.hpp) from
// `seed`; reports the first failure with its trace. Even traces have the generator's fork
// skeletons, odd ones the random shape: forked threads that never run, joins of such threads,
// threads forked at any point while others run unforked from the start.
template <class Check>
void for_random_traces(uint64_t seed, int count, Check check) {
  Rng rng(seed);
  for (int k = 0; k < count; ++k) {
    const uint64_t trace_seed = rng.next();
    Rng trace_rng(trace_seed);
    GeneratorOptions o;
    o.seed = trace_seed;
    o.threads = 2 + static_cast<uint32_t>(trace_rng.below(3));
    o.events = 4 + trace_rng.below(37);
    o.variables = 1 + static_cast<uint32_t>(trace_rng.below(3));
    o.locks = static_cast<uint32_t>(trace_rng.below(3));
    o.nesting = o.locks == 0 ? 0 : 1 + static_cast<uint32_t>(trace_rng.below(2));
    if (k % 2 == 0) {
      const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                                  ForkShape::Nested};
      o.shape = shapes[trace_rng.below(4)];
      o.local_share = 0.3;
      o.release_at_end = trace_rng.below(2) == 0;
    } else {
      o.shape = trace_rng.below(3) != 0 ? ForkShape::Random : ForkShape::None;
      o.forked_share = 0.75;
      o.local_share = 0;
      o.guarded_share = 0;
      o.write_share = 0.5;
      o.switch_share = 1;
      o.cs_share = 0.4;
    }
    const Trace trace = generate_trace(o);
    const std::string failure = check(trace);
    if (!failure.empty()) {
      FAIL() << failure << "\nseed " << seed << ", trace #" << k << " (trace seed " << trace_seed
             << "):\n"
             << to_std_text(trace);
    }
  }
}

TEST(HbPairsProperty, HbEqualsGraphReachability) {
  for_random_traces(0x5eed0001, iterations(4000), [](const Trace& trace) -> std::string {
    const Reference ref = reference(trace);
    const Pairs hb = pairs_of(run_engine("hb", trace, SIZE_MAX));
    if (hb != ref.hb) return cat("hb: ", show(hb), "\nexpected: ", show(ref.hb));
    const Pairs pruned = pairs_of(run_hb_pruning_always(trace));
    if (pruned != ref.hb)
      return cat("hb (dropping often): ", show(pruned), "\nexpected: ", show(ref.hb));
    return "";
  });
}

TEST(HbPairsProperty, EnginesCountWhatTheyDoNotKeep) {
  for_random_traces(0x5eed0002, iterations(2000), [](const Trace& trace) -> std::string {
    for (const char* engine : {"hb", "hb-sets", "hb-pairs", "tsan1"}) {
      const RaceSink all = run_engine(engine, trace, SIZE_MAX);
      const RaceSink few = run_engine(engine, trace, 2);
      if (few.race_count() != all.race_count())
        return cat(engine, ": race_count ", few.race_count(), " with 2 kept, ", all.race_count(),
                   " with all kept");
      if (few.racy_events() != all.racy_events())
        return cat(engine, ": racy events differ with 2 kept");
      // The kept races are the first in detection order (by second event, then first).
      std::vector<Race> sorted = all.races();
      std::sort(sorted.begin(), sorted.end(), detected_before);
      Pairs first_two;
      for (size_t k = 0; k < sorted.size() && k < 2; ++k)
        first_two.insert({sorted[k].first.event, sorted[k].second.event});
      const Pairs kept = pairs_of(few);
      if (kept != first_two)
        return cat(engine, ": kept ", show(kept), ", expected ", show(first_two));
    }
    return "";
  });
}

TEST(HbPairsProperty, HbSetsAndHbPairsAreSubsetsOfHb) {
  for_random_traces(0x5eed0003, iterations(4000), [](const Trace& trace) -> std::string {
    const RaceSink hb_sink = run_engine("hb", trace, SIZE_MAX);
    const Pairs hb = pairs_of(hb_sink);
    const Pairs sets = pairs_of(run_engine("hb-sets", trace, SIZE_MAX));
    if (!subset(sets, hb)) return cat("hb-sets ", show(sets), " not within hb ", show(hb));
    const RaceSink wr_sink = run_engine("hb-pairs", trace, SIZE_MAX);
    const Pairs wr = pairs_of(wr_sink);
    if (!subset(wr, hb)) return cat("hb-pairs ", show(wr), " not within hb ", show(hb));
    const auto& racy = hb_sink.racy_events();
    for (EventId e : wr_sink.racy_events())
      if (!std::binary_search(racy.begin(), racy.end(), e))
        return cat("racy event ", e, " of hb-pairs is not racy for hb");
    // Each engine names every pair once and only conflicting ones in trace order.
    for (const RaceSink* s : {&hb_sink, &wr_sink})
      if (s->race_count() != s->races().size()) return "a pair reported twice";
    return "";
  });
}

TEST(HbPairsProperty, Tsan1WithinForkJoinLockset) {
  for_random_traces(0x5eed0004, iterations(4000), [](const Trace& trace) -> std::string {
    const Reference ref = reference(trace);
    const RaceSink sink = run_engine("tsan1", trace, SIZE_MAX);
    const Pairs tsan1 = pairs_of(sink);
    if (sink.race_count() != tsan1.size()) return "tsan1 reported a pair twice";
    if (!subset(tsan1, ref.tsan1))
      return cat("tsan1 ", show(tsan1), " not within fork/join+lockset pairs ", show(ref.tsan1));
    return "";
  });
}

TEST(HbPairsProperty, Tsan1WithinLocksetEngine) {
  ASSERT_NE(find_engine("lockset"), nullptr);
  for_random_traces(0x5eed0005, iterations(4000), [](const Trace& trace) -> std::string {
    const Pairs tsan1 = pairs_of(run_engine("tsan1", trace, SIZE_MAX));
    const Pairs lockset = pairs_of(run_engine("lockset", trace, SIZE_MAX));
    if (!subset(tsan1, lockset))
      return cat("tsan1 ", show(tsan1), " not within lockset ", show(lockset));
    return "";
  });
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
