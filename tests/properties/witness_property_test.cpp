// The witness checker (racepred check-witness) against the ground truth and against mutations:
// every witness that `exact` and syncp produce on random traces is accepted, and a witness
// mutated in one of three ways (two events of one thread swapped, a release dropped, another
// write put before a read) is rejected with the rule the mutation breaks, at the event where it
// breaks it. And `analyze --witness`: every witness of every engine with a witness hook is
// accepted, and each engine backs every race its guarantee covers.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "racepred/driver/pipeline.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/engines/syncp/syncp.hpp"
#include "racepred/engines/witness_source.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"
#include "racepred/trace/trace_index.hpp"
#include "racepred/witness/checker.hpp"
#include "support/exact_support.hpp"
#include "support/small_traces.hpp"

namespace racepred::witness {
namespace RACEPRED_TEST_FILE {

Trace small_trace(uint64_t seed) {
  GeneratorOptions o = racepred::testing::small_trace_options(seed);
  if (seed % 3 == 1) o.read_lock_share = 0.5;
  return generate_trace(o);
}

Witness to_witness(const TraceIndex& t, const std::vector<uint32_t>& prefix, uint32_t first,
                   uint32_t second, Notion notion) {
  Witness w;
  w.notion = notion;
  w.first = t.id(first);
  w.second = t.id(second);
  for (uint32_t i : prefix) w.prefix.push_back(t.id(i));
  return w;
}

std::string show(const Witness& w) {
  std::ostringstream s;
  s << "race " << w.first << "/" << w.second << ":";
  for (EventId id : w.prefix) s << ' ' << id;
  return s.str();
}

// The mutations of one valid adjacent witness and the verdict each must get. Returns how many
// were checked.
int check_mutations(const Trace& trace, const TraceIndex& t, Checker& checker, const Witness& w) {
  int checked = 0;
  const auto index = [&](EventId id) { return static_cast<uint32_t>(trace.index_of(id)); };
  const auto expect = [&](const Witness& m, Rule rule, EventId at, const char* what) {
    const Verdict v = checker.check(m);
    EXPECT_EQ(rule_name(v.rule), rule_name(rule)) << what << ": " << show(m) << ": " << v.message;
    EXPECT_EQ(v.event, at) << what << ": " << show(m) << ": " << v.message;
    ++checked;
  };
  const std::vector<EventId>& p = w.prefix;
  // Two events of one thread swapped: the later one runs first, breaking PO.
  for (size_t i = 0; i < p.size(); ++i)
    for (size_t j = i + 1; j < p.size(); ++j)
      if (t.event(index(p[i])).thread == t.event(index(p[j])).thread) {
        Witness m = w;
        std::swap(m.prefix[i], m.prefix[j]);
        expect(m, Rule::PO, p[j], "swapped");
        j = p.size();
        i = p.size();
      }
  // A release dropped: the lock stays held, so the thread's next event breaks PO or another
  // acquire of the lock breaks Lock-1 (or a join of the thread breaks Join), whichever comes first;
  // if neither comes, still valid.
  for (size_t i = 0; i < p.size(); ++i) {
    const Event& r = t.event(index(p[i]));
    if (!is_release_op(r.op)) continue;
    Witness m = w;
    m.prefix.erase(m.prefix.begin() + static_cast<std::ptrdiff_t>(i));
    Rule rule = Rule::None;
    EventId at = kNoEvent;
    for (size_t k = i + 1; k < p.size() && rule == Rule::None; ++k) {
      const Event& e = t.event(index(p[k]));
      if (e.thread == r.thread) {
        rule = Rule::PO;
        at = p[k];
      } else if (e.op == Op::Join && e.target == r.thread) {
        rule = Rule::Join;  // the releasing thread has not run all its events
        at = p[k];
      } else if (is_acquire_op(e.op) && e.target == r.target &&
                 (r.op == Op::Release || e.op == Op::Acquire)) {
        rule = Rule::Lock1;
        at = p[k];
      }
    }
    if (rule == Rule::None) {
      EXPECT_TRUE(checker.check(m).valid()) << "dropped release: " << show(m);
    } else {
      expect(m, rule, at, "dropped release");
    }
    break;
  }
  // Another write put right before a read: it is enabled there (next in its thread, the thread
  // started), so the read now sees it instead of its own last write, breaking LW.
  for (size_t k = 0; k < p.size(); ++k) {
    const uint32_t read = index(p[k]);
    if (t.event(read).op != Op::Read) continue;
    std::vector<uint32_t> ran(trace.symbols.threads.size(), 0);
    std::set<uint32_t> done;
    for (size_t i = 0; i < k; ++i) {
      ++ran[t.event(index(p[i])).thread];
      done.insert(index(p[i]));
    }
    for (uint32_t cand = 0; cand < t.size(); ++cand) {
      const Event& e = t.event(cand);
      if (e.op != Op::Write || e.target != t.event(read).target) continue;
      const ThreadId u = e.thread;
      if (u == t.event(read).thread || t.index_in_thread(cand) != ran[u]) continue;
      const uint32_t fork = t.fork_of(u);
      if (fork != kNoIndex && !done.count(fork)) continue;
      Witness m = w;
      m.prefix.insert(m.prefix.begin() + static_cast<std::ptrdiff_t>(k), t.id(cand));
      expect(m, Rule::LW, p[k], "another writer");
      return checked;
    }
  }
  return checked;
}

TEST(WitnessChecker, AcceptsExactWitnessesAndRejectsMutatedOnes) {
  const int n = racepred::testing::property_iterations(2000);
  int witnesses = 0, mutations = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = small_trace(seed);
    SCOPED_TRACE(racepred::testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    Checker checker(trace);
    for (const exact::RaceNotion notion :
         {exact::RaceNotion::Adjacent, exact::RaceNotion::Enabled}) {
      exact::SearchOptions options;
      options.notion = notion;
      options.witnesses = true;
      const exact::SearchResult result = exact::search(t, options);
      ASSERT_EQ(result.witnesses.size(), result.races.size());
      for (const exact::RaceWitness& rw : result.witnesses) {
        const bool adjacent = notion == exact::RaceNotion::Adjacent;
        const Witness w = to_witness(t, rw.prefix, rw.first, rw.second,
                                     adjacent ? Notion::Adjacent : Notion::Enabled);
        const Verdict v = checker.check(w);
        EXPECT_TRUE(v.valid()) << show(w) << ": " << v.message;
        ++witnesses;
        if (adjacent) mutations += check_mutations(trace, t, checker, w);
      }
    }
    if (HasFailure()) break;
  }
  EXPECT_GT(witnesses, n / 2);
  EXPECT_GT(mutations, n / 2);
}

TEST(WitnessChecker, AcceptsSyncpWitnesses) {
  const int n = racepred::testing::property_iterations(2000);
  int witnesses = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = small_trace(seed);
    SCOPED_TRACE(racepred::testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    Checker checker(trace);
    for (const auto& [e1, e2] : syncp::races(t)) {
      std::vector<uint32_t> order = syncp::witness(t, e1, e2);
      ASSERT_GE(order.size(), 2u);
      order.resize(order.size() - 2);  // I(e1, e2); e1 and e2 are both enabled after it
      const Witness w = to_witness(t, order, e1, e2, Notion::Enabled);
      const Verdict v = checker.check(w);
      EXPECT_TRUE(v.valid()) << show(w) << ": " << v.message;
      ++witnesses;
    }
    if (HasFailure()) break;
  }
  EXPECT_GT(witnesses, n / 5);
}

// A cut (each thread's last event in T', run in trace order) is checked without visiting its
// events. On random cuts around random conflicting pairs, the verdict is the one of the
// event-by-event check of the cut's events, and a valid cut never needs that check.
TEST(WitnessChecker, CutsGetTheVerdictOfTheirEvents) {
  const int n = racepred::testing::property_iterations(2000);
  int valid = 0, invalid = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const Trace trace = small_trace(seed);
    SCOPED_TRACE(racepred::testing::trace_context(seed, trace));
    const TraceIndex t(trace);
    Checker checker(trace);
    std::mt19937_64 rng(seed);
    const auto pairs = t.conflicting_pairs();
    for (size_t k = 0; k < pairs.size() && k < 12; ++k) {
      const auto [a, b] = pairs[std::uniform_int_distribution<size_t>(0, pairs.size() - 1)(rng)];
      const bool adjacent = rng() % 2 == 0;
      // The accesses next (enabled) or last (adjacent); the other threads anywhere before.
      std::vector<uint32_t> count(t.thread_count(), 0);
      for (uint32_t u = 0; u < t.thread_count(); ++u) {
        uint32_t before = 0;  // u's events before the first access
        for (const uint32_t i : t.thread_events(u)) before += i < std::min(a, b);
        count[u] = static_cast<uint32_t>(
            std::uniform_int_distribution<uint32_t>(0, adjacent ? before : before + 2)(rng));
        count[u] = std::min<uint32_t>(count[u], static_cast<uint32_t>(t.thread_events(u).size()));
      }
      for (const uint32_t i : {a, b})
        count[t.event(i).thread] = t.index_in_thread(i) + (adjacent ? 1 : 0);
      Witness cut, listed;
      cut.notion = listed.notion = adjacent ? Notion::Adjacent : Notion::Enabled;
      cut.first = listed.first = t.id(a);
      cut.second = listed.second = t.id(b);
      for (uint32_t u = 0; u < t.thread_count(); ++u)
        if (count[u] > 0) cut.cut.push_back(t.id(t.thread_events(u)[count[u] - 1]));
      for (uint32_t i = 0; i < t.size(); ++i)
        if (t.index_in_thread(i) < count[t.event(i).thread]) listed.prefix.push_back(t.id(i));
      const Verdict expected = checker.check(listed);
      const uint64_t before = checker.listed_events();
      const Verdict got = checker.check(cut);
      EXPECT_EQ(rule_name(got.rule), rule_name(expected.rule))
          << show(listed) << ": " << expected.message;
      EXPECT_EQ(got.event, expected.event) << show(listed);
      if (expected.valid()) {
        EXPECT_EQ(checker.listed_events(), before) << "a valid cut checked event by event";
      }
      EXPECT_EQ(checker.events(cut), listed.prefix.size());
      (expected.valid() ? valid : invalid)++;
    }
    if (HasFailure()) break;
  }
  EXPECT_GT(valid, n / 2);
  EXPECT_GT(invalid, n / 2);
}

// At scale the witnesses of shb are cuts built by one growing closure per thread and checked
// without visiting their events: the work is bounded by the threads times the trace's events
// up to the last race, while the witnesses together hold many times more events.
TEST(AnalyzeWitnesses, ShbWitnessesAtScaleShareTheirWork) {
  GeneratorOptions o;
  o.seed = 1;
  o.events = 60000;
  const Trace trace = generate_trace(o);
  const TraceIndex t(trace);
  std::vector<Race> races;
  {
    PipelineOptions options;
    options.threaded = false;
    const PipelineResult result =
        run_pipeline_on_text(to_std_text(trace), "t.std", {find_engine("shb")}, options);
    races = result.runs.front().sink.races();
  }
  ASSERT_GT(races.size(), 50u);
  ClosureWitnesses closure(t, ClosureWitnesses::Order::Schedulable);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  uint32_t last = 0;
  for (const Race& race : races) {
    pairs.emplace_back(ClosureWitnesses::position(t, race.first.event),
                       ClosureWitnesses::position(t, race.second.event));
    last = std::max(last, pairs.back().second);
  }
  const auto cuts = closure.cuts(pairs);
  uint64_t events = 0;
  Checker checker(trace);
  for (size_t k = 0; k < cuts.size(); ++k) {
    Witness w;
    w.notion = Notion::Enabled;
    w.first = races[k].first.event;
    w.second = races[k].second.event;
    for (const auto& [u, count] : cuts[k]) {
      w.cut.push_back(t.id(t.thread_events(u)[count - 1]));
      events += count;
    }
    const Verdict v = checker.check(w);
    ASSERT_TRUE(v.valid()) << v.message;
  }
  EXPECT_LE(closure.steps(), uint64_t{t.thread_count()} * (last + 1));
  EXPECT_GT(events, 10 * closure.steps());
  EXPECT_EQ(checker.listed_events(), 0u);
}

// The engines that give witnesses: every engine of the table whose engine object has the hook.
std::vector<const EngineInfo*> witness_engines() {
  std::vector<const EngineInfo*> out;
  const Symbols symbols;
  for (const EngineInfo& info : engine_registry()) {
    RaceSink sink;
    EngineContext context{symbols, sink};
    if (info.make(context)->witness_source() != nullptr) out.push_back(&info);
  }
  return out;
}

TEST(AnalyzeWitnesses, EveryWitnessOfEveryEngineIsValid) {
  const std::vector<const EngineInfo*> engines = witness_engines();
  // The engines whose guarantee lets them back their reports have the hook.
  std::set<std::string> names;
  for (const EngineInfo* info : engines) names.insert(info->name);
  for (const char* expected : {"shb", "syncp", "osr", "m2", "adjacent", "hb", "hb-sets", "djit",
                               "hb-epochs", "hb-adaptive", "fasttrack"})
    EXPECT_TRUE(names.count(expected)) << expected;
  for (const EngineInfo* info : engines) {
    // A witness only where the guarantee says the races are real.
    EXPECT_NE(info->guarantee.soundness, Soundness::None) << info->name;
  }
  const int n = racepred::testing::property_iterations(2000);
  std::map<std::string, int> witnessed;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    const std::string text = to_std_text(small_trace(seed));
    const Trace trace = parse_checked_trace(text);
    SCOPED_TRACE(racepred::testing::trace_context(seed, trace));
    PipelineOptions options;
    options.threaded = false;
    options.witnesses = true;
    const PipelineResult result = run_pipeline_on_text(text, "random.std", engines, options);
    Checker checker(trace);
    for (const EngineRun& run : result.runs) {
      SCOPED_TRACE(run.info->name);
      EXPECT_TRUE(run.witness_errors.empty()) << run.witness_errors.front();
      for (const Witness& w : run.witnesses) {
        const Verdict v = checker.check(w);  // again, apart from the pipeline's own check
        EXPECT_TRUE(v.valid()) << show(w) << ": " << v.message;
      }
      // Which races must have one: every race, or those of the earliest racy event.
      size_t covered = 0;
      for (const Race& race : run.sink.races())
        if (run.info->guarantee.soundness == Soundness::Sound ||
            race.second.event == run.sink.first_detected().second.event)
          ++covered;
      EXPECT_EQ(run.witnesses.size(), covered);
      EXPECT_EQ(run.witness_summaries.size(), covered);
      witnessed[run.info->name] += static_cast<int>(run.witnesses.size());
    }
    if (HasFailure()) break;
  }
  for (const EngineInfo* info : engines) EXPECT_GT(witnessed[info->name], n / 10) << info->name;
}

// Without --witness nothing is built: no witness, no label "witnessed".
TEST(AnalyzeWitnesses, NoneWhenNotAsked) {
  const std::string text = to_std_text(small_trace(7));
  PipelineOptions options;
  options.threaded = false;
  const PipelineResult result = run_pipeline_on_text(text, "t.std", witness_engines(), options);
  for (const EngineRun& run : result.runs) {
    EXPECT_TRUE(run.witnesses.empty());
    EXPECT_TRUE(run.witness_summaries.empty());
  }
  for (const EngineReport& r : result.report().results) EXPECT_EQ(r.witnesses, nullptr);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::witness
