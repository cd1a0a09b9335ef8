// Properties of the lecture's race-location engines on random well-formed traces (Sulzmann,
// "Dynamic data race prediction": "race locations cover all race pairs", VC_RaceLoc =
// VC_RaceLoc_epochs = Adaptive_Epoch, "FastTrack may miss out on some locations"), checked against
// a graph-reachability HB oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "racepred/driver/run.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using Pair = std::pair<EventId, EventId>;

struct GenParams {
  int max_threads = 4;
  int max_variables = 3;
  int max_locks = 2;
  int max_events = 30;
};

// A random well-formed trace of the shared generator (trace/generator.hpp, shape random): locks
// are released in any order, a thread runs only after its fork (a quarter run unforked from the
// start), threads are joined at random points and never run again.
Trace random_trace(Rng& rng, const GenParams& p) {
  GeneratorOptions o;
  o.seed = rng.next();
  o.threads = 2 + static_cast<uint32_t>(rng.below(static_cast<uint64_t>(p.max_threads - 1)));
  o.variables = 1 + static_cast<uint32_t>(rng.below(static_cast<uint64_t>(p.max_variables)));
  o.locks = 1 + static_cast<uint32_t>(rng.below(static_cast<uint64_t>(p.max_locks)));
  o.nesting = o.locks;
  o.events = 2 + rng.below(static_cast<uint64_t>(p.max_events - 1));
  o.shape = ForkShape::Random;
  o.forked_share = 0.75;
  o.nested_releases = false;
  o.release_at_end = false;
  o.local_share = 0;
  o.guarded_share = 0;
  o.write_share = 0.5;
  o.switch_share = 1;
  o.cs_share = 0.4;
  return generate_trace(o);
}

std::string to_std(const Trace& trace) {
  std::string s;
  for (const Event& e : trace.events) {
    s.append(trace.to_std(e));
    s.push_back('\n');
  }
  return s;
}

// HB as a graph: program order, fork → first event of the child, last event of the child →
// join (fork → join for a child without events), release → every later acquire of the same
// lock, closed transitively; hb_[j] = the events HB-before event j.
class HbOracle {
 public:
  explicit HbOracle(const Trace& trace) : n_(trace.size()), words_((n_ + 63) / 64) {
    hb_.assign(n_, std::vector<uint64_t>(words_, 0));
    std::map<ThreadId, size_t> last;     // last event of each thread so far
    std::map<ThreadId, size_t> fork_of;  // fork event of each thread
    std::map<LockId, std::vector<size_t>> releases;
    for (size_t j = 0; j < n_; ++j) {
      const Event& e = trace.events[j];
      std::vector<size_t> preds;
      if (auto it = last.find(e.thread); it != last.end())
        preds.push_back(it->second);
      else if (auto f = fork_of.find(e.thread); f != fork_of.end())
        preds.push_back(f->second);
      if (e.op == Op::Acquire)
        for (size_t r : releases[e.target]) preds.push_back(r);
      if (e.op == Op::Join) {  // a child without events: its start and end join fork → join
        if (auto it = last.find(e.target); it != last.end())
          preds.push_back(it->second);
        else if (auto f = fork_of.find(e.target); f != fork_of.end())
          preds.push_back(f->second);
      }
      for (size_t p : preds) {
        for (size_t w = 0; w < words_; ++w) hb_[j][w] |= hb_[p][w];
        hb_[j][p / 64] |= uint64_t{1} << (p % 64);
      }
      if (e.op == Op::Fork) fork_of[e.target] = j;
      if (e.op == Op::Release) releases[e.target].push_back(j);
      last[e.thread] = j;
    }
  }
  // Event at index i happens before the event at index j.
  bool before(size_t i, size_t j) const { return (hb_[j][i / 64] >> (i % 64)) & 1; }

 private:
  size_t n_, words_;
  std::vector<std::vector<uint64_t>> hb_;
};

struct Result {
  std::vector<EventId> racy;
  std::set<Pair> pairs;
  uint64_t count = 0;
  std::vector<Race> races;
};

Result run(const std::string& engine, const Trace& trace) {
  RaceSink sink = run_engine(engine, trace);
  Result r;
  r.racy = sink.racy_events();
  r.count = sink.race_count();
  r.races = sink.races();
  for (const Race& race : sink.races()) r.pairs.emplace(race.first.event, race.second.event);
  return r;
}

// The HB racy events, djit's pairs (per other thread its last unordered conflicting access) and
// hb-epochs' pairs (the unordered epochs of the sets We(x), Re(x)) computed from the oracle.
struct Expected {
  std::vector<EventId> racy;
  std::set<Pair> djit_pairs;
  std::set<Pair> epoch_pairs;
};

Expected expected(const Trace& trace) {
  const HbOracle hb(trace);
  Expected x;
  const auto& ev = trace.events;
  for (size_t j = 0; j < ev.size(); ++j) {
    if (!ev[j].is_access()) continue;
    bool racy = false;
    for (size_t i = 0; i < j; ++i)
      if (conflicting(ev[i], ev[j]) && !hb.before(i, j)) racy = true;
    if (racy) x.racy.push_back(trace.ids[j]);
    // djit: the last write (for a write also the last read) of each other thread.
    std::map<std::pair<ThreadId, Op>, size_t> latest;
    for (size_t i = 0; i < j; ++i)
      if (ev[i].is_access() && ev[i].target == ev[j].target && ev[i].thread != ev[j].thread)
        latest[{ev[i].thread, ev[i].op}] = i;
    for (const auto& [key, i] : latest)
      if (conflicting(ev[i], ev[j]) && !hb.before(i, j))
        x.djit_pairs.emplace(trace.ids[i], trace.ids[j]);
    // hb-epochs: i is in We(x) (Re(x)) at j iff no access of the same kind on x between i and
    // j has i HB-before it.
    for (size_t i = 0; i < j; ++i) {
      if (!conflicting(ev[i], ev[j]) || hb.before(i, j)) continue;
      bool pruned = false;
      for (size_t k = i + 1; k < j && !pruned; ++k)
        pruned = ev[k].is_access() && ev[k].op == ev[i].op && ev[k].target == ev[i].target &&
                 hb.before(i, k);
      if (!pruned) x.epoch_pairs.emplace(trace.ids[i], trace.ids[j]);
    }
  }
  return x;
}

std::map<VariableId, EventId> first_racy_per_variable(const Result& r) {
  std::map<VariableId, EventId> first;
  for (const Race& race : r.races) {
    auto [it, inserted] = first.try_emplace(race.variable, race.second.event);
    if (!inserted) it->second = std::min(it->second, race.second.event);
  }
  return first;
}

// Every reported pair is an HB race: first before second, conflicting, not HB-ordered, with
// the threads, locations and ops of the trace; no pair twice.
void expect_valid_pairs(const std::string& engine, const Result& r, const Trace& trace) {
  const HbOracle hb(trace);
  EXPECT_EQ(r.count, r.pairs.size()) << engine << " reported a pair twice";
  for (const Race& race : r.races) {
    const size_t i = trace.index_of(race.first.event), j = trace.index_of(race.second.event);
    ASSERT_TRUE(i < j && j < trace.size()) << engine;
    const Event& a = trace.events[i];
    const Event& b = trace.events[j];
    EXPECT_TRUE(conflicting(a, b)) << engine;
    EXPECT_FALSE(hb.before(i, j)) << engine;
    EXPECT_EQ(race.variable, b.target) << engine;
    EXPECT_EQ(race.first.thread, a.thread) << engine;
    EXPECT_EQ(race.first.location, a.location) << engine;
    EXPECT_EQ(race.first.op, a.op) << engine;
    EXPECT_EQ(race.second.location, b.location) << engine;
  }
}

// How often the interesting cases occur, so that the properties are not checked vacuously.
struct Coverage {
  int traces = 0, racy = 0, fasttrack_fewer = 0, epochs_fewer_pairs = 0;
};

void check_trace(const Trace& trace, uint64_t seed, Coverage& coverage) {
  std::string context("seed ");  // (appending avoids a false -Wrestrict of g++ 12)
  context.append(std::to_string(seed));
  context.append(", trace:\n").append(to_std(trace));
  SCOPED_TRACE(context);
  const Expected x = expected(trace);
  const Result djit = run("djit", trace);
  const Result epochs = run("hb-epochs", trace);
  const Result adaptive = run("hb-adaptive", trace);
  const Result fasttrack = run("fasttrack", trace);

  EXPECT_EQ(djit.racy, x.racy) << "djit racy events differ from the HB oracle";
  EXPECT_EQ(djit.pairs, x.djit_pairs) << "djit pairs differ from its counting rule";
  EXPECT_EQ(epochs.racy, djit.racy) << "hb-epochs racy events differ from djit";
  EXPECT_EQ(epochs.pairs, x.epoch_pairs) << "hb-epochs pairs differ from its counting rule";
  EXPECT_EQ(adaptive.racy, djit.racy) << "hb-adaptive racy events differ from djit";
  EXPECT_TRUE(std::includes(djit.racy.begin(), djit.racy.end(), fasttrack.racy.begin(),
                            fasttrack.racy.end()))
      << "fasttrack racy events are not a subset of djit's";
  EXPECT_EQ(first_racy_per_variable(fasttrack), first_racy_per_variable(djit))
      << "fasttrack's first racy event of a variable differs from djit's";
  ++coverage.traces;
  coverage.racy += !djit.racy.empty();
  coverage.fasttrack_fewer += fasttrack.racy.size() < djit.racy.size();
  coverage.epochs_fewer_pairs += epochs.pairs.size() < djit.pairs.size();
  for (const auto& [name, r] : {std::pair<std::string, const Result*>{"djit", &djit},
                                {"hb-epochs", &epochs},
                                {"hb-adaptive", &adaptive},
                                {"fasttrack", &fasttrack}}) {
    expect_valid_pairs(name, *r, trace);
    EXPECT_TRUE(
        std::includes(djit.pairs.begin(), djit.pairs.end(), r->pairs.begin(), r->pairs.end()))
        << name << " reports a pair that is not (a thread's latest unordered access, event)";
  }
}

// More than a fifth of the traces race and more than 2% do not; fasttrack misses racy events
// and hb-epochs reports fewer pairs than djit on some of them.
void expect_coverage(const Coverage& coverage) {
  EXPECT_GT(coverage.racy * 5, coverage.traces);
  EXPECT_GT((coverage.traces - coverage.racy) * 50, coverage.traces);
  EXPECT_GT(coverage.fasttrack_fewer, 0);
  EXPECT_GT(coverage.epochs_fewer_pairs, 0);
  std::printf(
      "%d traces, %d racy, fasttrack fewer racy events on %d, hb-epochs fewer pairs on %d\n",
      coverage.traces, coverage.racy, coverage.fasttrack_fewer, coverage.epochs_fewer_pairs);
}

int iterations(int normal) {
  return std::getenv("RACEPRED_SANITIZED") ? std::max(300, normal / 10) : normal;
}

void run_random(uint64_t base_seed, const GenParams& params, int count) {
  Coverage coverage;
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = base_seed + static_cast<uint64_t>(k);
    Rng rng(seed);
    const Trace trace = random_trace(rng, params);
    check_trace(trace, seed, coverage);
    if (::testing::Test::HasFailure()) return;  // the first failing seed is enough
  }
  expect_coverage(coverage);
}

// The same properties on small traces of the shared generator (trace/generator.hpp), over all
// its thread shapes, with and without critical sections left open at the end.
TEST(HbLocationsProperty, GeneratorTraces) {
  Coverage coverage;
  const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                              ForkShape::Nested};
  const int count = iterations(2000);
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = 7000 + static_cast<uint64_t>(k);
    Rng rng(seed);
    GeneratorOptions o;
    o.seed = seed;
    o.threads = 2 + static_cast<uint32_t>(rng.below(5));
    o.events = 10 + rng.below(60);
    o.variables = 1 + static_cast<uint32_t>(rng.below(4));
    o.locks = 1 + static_cast<uint32_t>(rng.below(3));
    o.shape = shapes[k % 4];
    o.release_at_end = rng.below(2) != 0;
    o.cs_share = 0.5;
    o.local_share = 0.3;
    o.switch_share = 0.5;
    const Trace trace = generate_trace(o);
    check_trace(trace, seed, coverage);
    if (HasFailure()) return;
  }
  expect_coverage(coverage);
}

TEST(HbLocationsProperty, SmallTraces) {
  run_random(1000, GenParams{}, iterations(4000));
}

// More threads than the initial clock stride (4) and than 8: the per-variable state is
// re-laid out mid-trace.
TEST(HbLocationsProperty, ManyThreads) {
  run_random(500000, GenParams{12, 3, 3, 80}, iterations(1500));
}

TEST(HbLocationsProperty, ManyVariablesLongTraces) {
  run_random(900000, GenParams{5, 12, 3, 150}, iterations(600));
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
