// Elmas and Qadeer, "A New Lockset Algorithm and Its Applications" (Goldilocks): the scenarios of
// §1 and the §3/§6 rules on the traces in examples/goldilocks. Their verdicts for `goldilocks` and
// `goldilocks-rw` and the annotated lock sets are `# expect` lines in the traces; here the variants
// the engine table does not list: the eager reference, trimmed lists and the rules as printed.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "racepred/driver/annotate.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/engines/goldilocks/goldilocks.hpp"
#include "racepred/io/reader.hpp"
#include "support/goldilocks_eager.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using Pairs = std::vector<std::pair<EventId, EventId>>;
using Maker = std::function<std::unique_ptr<Engine>(EngineContext&)>;

Trace load_example(const std::string& name) {
  return load_trace(std::string(RACEPRED_EXAMPLES_DIR) + "/goldilocks/" + name);
}

Pairs pairs_of(const RaceSink& sink) {
  Pairs out;
  for (const Race& r : sink.races()) out.emplace_back(r.first.event, r.second.event);
  return out;
}

Pairs run_maker(const Maker& make, const Trace& trace) {
  RaceSink sink(SIZE_MAX);
  EngineContext context{trace.symbols, sink};
  std::unique_ptr<Engine> engine = make(context);
  for (size_t i = 0; i < trace.size(); ++i) engine->on_event(trace.ids[i], trace.events[i]);
  engine->finish();
  sink.finalize();
  return pairs_of(sink);
}

// The examples; their verdicts for goldilocks and goldilocks-rw are `# expect` lines in the
// traces (checked by tests/examples). The variants that the engine table does not list (the eager
// reference, tiny trimmed lists) must agree with the registered engines on every one.
const std::vector<std::string> kExamples = {
    "object_init_publication.std", "racy_publication.std",
    "thread_locality_moves.std",   "locality_lost.std",
    "dynamic_locksets.std",        "fork_join_handover.std",
    "concurrent_reads.std",        "join_under_lock.std",
    "rw_printed_rules.std",        "lock_chain.std",
};

TEST(GoldilocksSeed, EagerReferenceAgrees) {
  for (const std::string& file : kExamples) {
    SCOPED_TRACE(file);
    const Trace trace = load_example(file);
    EXPECT_EQ(
        run_maker(
            [](EngineContext& c) { return make_goldilocks_eager(c, GoldilocksDiscipline::MutEx); },
            trace),
        pairs_of(run_engine("goldilocks", trace)));
    EXPECT_EQ(run_maker(
                  [](EngineContext& c) {
                    return make_goldilocks_eager(c, GoldilocksDiscipline::ConcurrentReads);
                  },
                  trace),
              pairs_of(run_engine("goldilocks-rw", trace)));
  }
}

TEST(GoldilocksSeed, TinyListTrimmingKeepsVerdicts) {
  for (const std::string& file : kExamples) {
    SCOPED_TRACE(file);
    const Trace trace = load_example(file);
    EXPECT_EQ(run_maker(
                  [](EngineContext& c) {
                    return make_goldilocks_lazy(c, GoldilocksDiscipline::MutEx, {2, false});
                  },
                  trace),
              pairs_of(run_engine("goldilocks", trace)));
    EXPECT_EQ(
        run_maker(
            [](EngineContext& c) {
              return make_goldilocks_lazy(c, GoldilocksDiscipline::ConcurrentReads, {2, false});
            },
            trace),
        pairs_of(run_engine("goldilocks-rw", trace)));
  }
}

// The two places where the printed rules lose happens-before order (docs/ENGINES.md).
TEST(GoldilocksSeed, PrintedJoinRuleLosesLocksHeldAcrossTheJoin) {
  const Trace trace = load_example("join_under_lock.std");
  EXPECT_EQ(run_maker(
                [](EngineContext& c) {
                  return make_goldilocks_eager(c, GoldilocksDiscipline::MutEx,
                                               GoldilocksRules::AsPrinted);
                },
                trace),
            (Pairs{{2, 7}}));
}

TEST(GoldilocksSeed, PrintedConcurrentReadRulesLoseOrder) {
  const Trace trace = load_example("rw_printed_rules.std");
  EXPECT_EQ(run_maker(
                [](EngineContext& c) {
                  return make_goldilocks_eager(c, GoldilocksDiscipline::ConcurrentReads,
                                               GoldilocksRules::AsPrinted);
                },
                trace),
            (Pairs{{2, 9}}));
}

// The printed rules agree with the corrected ones where neither correction applies.
TEST(GoldilocksSeed, PrintedRulesOnTheScenarios) {
  for (const char* file : {"object_init_publication.std", "thread_locality_moves.std",
                           "dynamic_locksets.std", "lock_chain.std", "racy_publication.std"}) {
    SCOPED_TRACE(file);
    const Trace trace = load_example(file);
    const Pairs expected = pairs_of(run_engine("goldilocks", trace));
    EXPECT_EQ(run_maker(
                  [](EngineContext& c) {
                    return make_goldilocks_eager(c, GoldilocksDiscipline::MutEx,
                                                 GoldilocksRules::AsPrinted);
                  },
                  trace),
              expected);
  }
}

// The eager reference annotates every event as the registered (lazy) engines do, whose cells
// the examples' `# expect annotate` lines fix (dynamic_locksets: LS, LH; concurrent_reads: LSW,
// LSR).
void expect_same_annotation(const Maker& eager, const char* engine, const std::string& file) {
  SCOPED_TRACE(file);
  const Trace trace = load_example(file);
  const std::vector<Annotation> want = annotate_trace(engine, trace, SIZE_MAX).rows;
  const std::vector<Annotation> got = annotate_trace(eager, "goldilocks", trace, SIZE_MAX).rows;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].size(), want[i].size()) << "e" << i + 1;
    for (size_t k = 0; k < got[i].size(); ++k) {
      EXPECT_EQ(got[i][k].column, want[i][k].column) << "e" << i + 1;
      EXPECT_EQ(got[i][k].value, want[i][k].value) << "e" << i + 1 << " " << got[i][k].column;
    }
  }
}

TEST(GoldilocksSeed, EagerAnnotationAgrees) {
  expect_same_annotation(
      [](EngineContext& c) { return make_goldilocks_eager(c, GoldilocksDiscipline::MutEx); },
      "goldilocks", "dynamic_locksets.std");
  expect_same_annotation(
      [](EngineContext& c) {
        return make_goldilocks_eager(c, GoldilocksDiscipline::ConcurrentReads);
      },
      "goldilocks-rw", "concurrent_reads.std");
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
