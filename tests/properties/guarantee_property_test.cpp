// Every engine keeps the guarantee it declares in the engine table (engines/engines.def), on
// thousands of random small traces against the exact ground truth (the exact module):
//   sound       every reported race (pair or racy event) is a race of the ground truth
//   first race  the earliest racy event with its latest reported partner is a race
//   complete    every race of the ground truth is reported
//   reference   the reports equal those of the reference engine
//   within      the reports are among those of the named engine
//   labels      a report block labelled real or predicted shows a race of the ground truth
// One test per engine; a failure prints the seed and the trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/trace_index.hpp"
#include "support/small_traces.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using Pair = std::pair<EventId, EventId>;

// What one engine reported, by event ids.
struct Reports {
  std::set<Pair> pairs;  // (first, second); first = 0 when the engine knows only the second
  std::set<EventId> racy;
};

Reports reports_of(const RaceSink& sink) {
  Reports r;
  for (const Race& race : sink.races()) r.pairs.emplace(race.first.event, race.second.event);
  r.racy.insert(sink.racy_events().begin(), sink.racy_events().end());
  return r;
}

// The ground truth of one trace under both notions, by event ids.
struct Truth {
  std::set<Pair> pairs;
  std::set<EventId> racy;
};

Truth truth_of(const TraceIndex& t, exact::RaceNotion notion) {
  exact::SearchOptions options;
  options.notion = notion;
  Truth truth;
  for (auto [e, f] : exact::search(t, options).races) {
    truth.pairs.emplace(t.id(e), t.id(f));
    truth.racy.insert(t.id(f));
  }
  return truth;
}

template <class T>
std::vector<T> missing(const std::set<T>& from, const std::set<T>& in) {
  std::vector<T> out;
  for (const T& x : from)
    if (!in.count(x)) out.push_back(x);
  return out;
}

std::string show(const std::vector<Pair>& pairs) {
  std::string s;
  for (auto [a, b] : pairs)
    s.append(" (").append(std::to_string(a)).append(",").append(std::to_string(b)).append(")");
  return s;
}
std::string show(const std::vector<EventId>& events) {
  std::string s;
  for (EventId e : events) s.append(" ").append(std::to_string(e));
  return s;
}

// a ⊆ b in `unit`; returns the members of a missing from b, printed ("" when a ⊆ b).
std::string not_within(const Reports& a, const Reports& b, RaceUnit unit) {
  return unit == RaceUnit::Pairs ? show(missing(a.pairs, b.pairs)) : show(missing(a.racy, b.racy));
}

// The reference (equal reports) and within (contained reports) claims of `info` on one trace.
void check_relations(const EngineInfo& info, const EngineInfo* reference, const EngineInfo* within,
                     const Reports& got, const Trace& trace) {
  const Guarantee& g = info.guarantee;
  if (reference) {
    const Reports other = reports_of(run_engine(*reference, trace));
    EXPECT_EQ(not_within(got, other, g.reference_unit), "") << "not in " << g.reference;
    EXPECT_EQ(not_within(other, got, g.reference_unit), "") << "missing from " << info.name;
  }
  if (within) {
    const Reports other = reports_of(run_engine(*within, trace));
    EXPECT_EQ(not_within(got, other, g.within_unit), "") << "not within " << g.within;
  }
}

// What the traces of a test hold beyond small_trace_options: a share of the lock acquires in
// read mode, a share of the steps that are send/recv (synchronisation orders).
struct Extras {
  double read_lock_share = 0;
  double sync_share = 0;
  bool sync_on_locks = false;  // sync objects named like the locks (one namespace)
  void apply(GeneratorOptions& o, uint64_t seed) const {
    o.read_lock_share = read_lock_share;
    o.sync_share = sync_share;
    if (sync_share > 0) {
      o.sync_objects = 1 + static_cast<uint32_t>(seed % 2);
      o.sync_on_locks = sync_on_locks;
    }
  }
};

// The guarantees of `info` on n small random traces, seeds first, first + 1, …; the options of
// each come from small_trace_options, with `extras`.
void check_guarantees(const EngineInfo& info, uint64_t first, int n, const Extras& extras) {
  const Guarantee& g = info.guarantee;
  const exact::RaceNotion notion =
      g.truth == GroundTruth::Enabled ? exact::RaceNotion::Enabled : exact::RaceNotion::Adjacent;
  const EngineInfo* reference = g.reference.empty() ? nullptr : find_engine(g.reference);
  const EngineInfo* within = g.within.empty() ? nullptr : find_engine(g.within);
  ASSERT_TRUE(g.reference.empty() || reference) << "unknown reference " << g.reference;
  ASSERT_TRUE(g.within.empty() || within) << "unknown engine " << g.within;
  const bool needs_truth = g.soundness != Soundness::None || g.complete;

  int racy_traces = 0;
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(n); ++seed) {
    GeneratorOptions options = testing::small_trace_options(seed);
    extras.apply(options, seed);
    const Trace trace = generate_trace(options);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const RaceSink sink = run_engine(info, trace);
    const Reports got = reports_of(sink);
    if (!got.racy.empty()) ++racy_traces;

    if (needs_truth) {
      const TraceIndex t(trace);
      const Truth truth = truth_of(t, notion);
      const bool pairs = g.unit == RaceUnit::Pairs;
      if (g.soundness == Soundness::Sound) {
        if (pairs)
          EXPECT_EQ(show(missing(got.pairs, truth.pairs)), "") << "unsound pairs";
        else
          EXPECT_EQ(show(missing(got.racy, truth.racy)), "") << "unsound racy events";
      }
      if (g.soundness == Soundness::FirstRace && !got.racy.empty()) {
        const EventId e = *got.racy.begin();
        EventId f = 0;  // the latest reported partner of e
        for (auto [a, b] : got.pairs)
          if (b == e) f = std::max(f, a);
        if (f != 0)
          EXPECT_TRUE(truth.pairs.count({f, e}))
              << "first race (" << f << "," << e << ") is not a race of the ground truth";
        else
          EXPECT_TRUE(truth.racy.count(e)) << "first racy event " << e << " is not racy";
      }
      // The report's labels (report/writers.hpp) promise no more than the ground truth: every
      // block labelled real or predicted shows a race of it.
      const EngineReport report{info.name,   &sink, 0, {}, g.soundness == Soundness::FirstRace,
                                g.confidence};
      for (const LabelledPair& block : labelled_pairs(report)) {
        if (block.confidence != Confidence::Possible && block.example.first.known()) {
          EXPECT_TRUE(truth.pairs.count({block.example.first.event, block.example.second.event}))
              << "block (" << block.example.first.event << "," << block.example.second.event
              << ") labelled " << confidence_name(block.confidence)
              << " is not a race of the ground truth";
        }
      }
      if (g.complete) {
        if (pairs)
          EXPECT_EQ(show(missing(truth.pairs, got.pairs)), "") << "missed pairs";
        else
          EXPECT_EQ(show(missing(truth.racy, got.racy)), "") << "missed racy events";
      }
    }
    check_relations(info, reference, within, got, trace);
    if (::testing::Test::HasFailure()) break;
  }
  // The traces exercise the engine: a fair share of them are racy for it.
  EXPECT_GT(racy_traces, n / 20) << info.name << " reported races on too few traces";
}

class Guarantees : public ::testing::TestWithParam<std::string> {};

TEST_P(Guarantees, HoldOnRandomTraces) {
  check_guarantees(*find_engine(GetParam()), 1, testing::property_iterations(1500), {});
}

// The same with read-write locks: half of the acquires in read mode (docs/ENGINES.md,
// "Read-write locks"). An engine without a rule for them stops at the first read-lock event
// with an InputError (engines/dispatch.hpp, read_locks_unsupported): skipped, and listed in
// docs/ENGINES.md.
bool handles_read_locks(const EngineInfo& info) {
  GeneratorOptions o;
  o.threads = 2;
  o.events = 20;
  o.read_lock_share = 1;
  o.cs_share = 1;
  try {
    run_engine(info, generate_trace(o));
  } catch (const InputError&) {
    return false;
  }
  return true;
}

TEST_P(Guarantees, HoldOnRandomTracesWithReadLocks) {
  const EngineInfo& info = *find_engine(GetParam());
  if (!handles_read_locks(info)) GTEST_SKIP() << info.name << " has no read-write lock rule";
  check_guarantees(info, 1, testing::property_iterations(1500), {.read_lock_share = 0.5});
}

// The same with synchronisation orders (docs/ENGINES.md, "Synchronisation orders"): about one
// step in six a send or recv on one of two sync objects, against the ground truth that keeps
// every recv after every earlier send. Every engine has a rule for them.
TEST_P(Guarantees, HoldOnRandomTracesWithSyncOrders) {
  check_guarantees(*find_engine(GetParam()), 1, testing::property_iterations(3000),
                   {.sync_share = 0.15});
}

// Sync orders with read locks, and sync objects that share their names with locks.
TEST_P(Guarantees, HoldOnRandomTracesWithSyncOrdersOnLocks) {
  const EngineInfo& info = *find_engine(GetParam());
  if (!handles_read_locks(info)) GTEST_SKIP() << info.name << " has no read-write lock rule";
  check_guarantees(info, 5001, testing::property_iterations(1500),
                   {.read_lock_share = 0.3, .sync_share = 0.15, .sync_on_locks = true});
}

// The claims that need no ground truth (reference, within), on larger traces than exact can
// judge; and every race is listed when nothing is capped. The offline exact-based engines are
// left out: they are exponential.
class MediumGuarantees : public ::testing::TestWithParam<std::string> {};

void check_medium(const EngineInfo& info, const Extras& extras) {
  const Guarantee& g = info.guarantee;
  const EngineInfo* reference = g.reference.empty() ? nullptr : find_engine(g.reference);
  const EngineInfo* within = g.within.empty() ? nullptr : find_engine(g.within);
  if (reference && reference->family == "exact") reference = nullptr;
  if (within && within->family == "exact") within = nullptr;
  const int n = testing::property_iterations(3000);
  for (uint64_t seed = 90000; seed < 90000 + static_cast<uint64_t>(n); ++seed) {
    GeneratorOptions options = testing::medium_trace_options(seed);
    extras.apply(options, seed);
    const Trace trace = generate_trace(options);
    SCOPED_TRACE(testing::trace_context(seed, trace));
    const RaceSink sink = run_engine(info, trace);
    EXPECT_EQ(sink.race_count(), sink.races().size()) << "uncapped run lost races";
    const Reports got = reports_of(sink);
    check_relations(info, reference, within, got, trace);
    if (::testing::Test::HasFailure()) break;
  }
}

TEST_P(MediumGuarantees, ReferencesHoldOnMediumTraces) {
  check_medium(*find_engine(GetParam()), {});
}

TEST_P(MediumGuarantees, ReferencesHoldOnMediumTracesWithReadLocks) {
  const EngineInfo& info = *find_engine(GetParam());
  if (!handles_read_locks(info)) GTEST_SKIP() << info.name << " has no read-write lock rule";
  check_medium(info, {.read_lock_share = 0.5});
}

TEST_P(MediumGuarantees, ReferencesHoldOnMediumTracesWithSyncOrders) {
  check_medium(*find_engine(GetParam()), {.sync_share = 0.05});
}

// Every race engine. The deadlock engines report no races: their findings are checked against
// their own definitions (tests/properties/lockorder_property_test.cpp).
std::vector<std::string> engine_names(bool with_exact) {
  std::vector<std::string> names;
  for (const EngineInfo& info : engine_registry())
    if ((with_exact || info.family != "exact") && info.family != "deadlock")
      names.push_back(info.name);
  return names;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& p) {
  std::string name = p.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Engines, Guarantees, ::testing::ValuesIn(engine_names(true)), test_name);
INSTANTIATE_TEST_SUITE_P(Engines, MediumGuarantees, ::testing::ValuesIn(engine_names(false)),
                         test_name);

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
