// The analyze pipeline: engine selection, batching, the reader thread, errors, diagnostics.
#include <gtest/gtest.h>

#include <algorithm>

#include <random>
#include <span>
#include <string>

#include "racepred/driver/pipeline.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

TEST(ResolveEngines, NamesAllDuplicatesAndErrors) {
  const auto one = resolve_engines({"lockset"});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]->name, "lockset");
  EXPECT_EQ(resolve_engines({"lockset", "lockset"}).size(), 1u);
  const auto all = resolve_engines({"all"});
  size_t online = 0;
  for (const EngineInfo& info : engine_registry()) online += info.mode == EngineMode::Online;
  EXPECT_EQ(all.size(), online);
  for (const EngineInfo* info : all) EXPECT_EQ(info->mode, EngineMode::Online);
  EXPECT_NE(std::find(all.begin(), all.end(), find_engine("lockset")), all.end());
  try {
    resolve_engines({"lockset", "nosuch"});
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("unknown engine 'nosuch'"), std::string::npos) << message;
    EXPECT_NE(message.find("lockset"), std::string::npos) << message;
    EXPECT_NE(message.find("all"), std::string::npos) << message;
  }
  EXPECT_THROW(resolve_engines({}), UsageError);
  // The default engines (comma-separated) exist.
  std::vector<std::string> defaults;
  for (size_t start = 0; start <= kDefaultEngines.size();) {
    size_t comma = kDefaultEngines.find(',', start);
    if (comma == std::string_view::npos) comma = kDefaultEngines.size();
    defaults.emplace_back(kDefaultEngines.substr(start, comma - start));
    start = comma + 1;
  }
  EXPECT_EQ(defaults, (std::vector<std::string>{"shb"}));
  // Every default engine's reports are predicted (or real) races, never possible ones.
  for (const EngineInfo* info : resolve_engines(defaults))
    EXPECT_NE(info->guarantee.confidence, Confidence::Possible) << info->name;
}

void expect_same(const RaceSink& a, const RaceSink& b) {
  EXPECT_EQ(a.race_count(), b.race_count());
  EXPECT_EQ(a.racy_event_count(), b.racy_event_count());
  EXPECT_EQ(a.racy_location_count(), b.racy_location_count());
  // The lists may be bounded differently (--max-races bounds them in the pipeline): the
  // shorter is the start of the longer.
  const auto prefix = [](const auto& x, const auto& y) {
    const size_t n = std::min(x.size(), y.size());
    return std::equal(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n), y.begin());
  };
  EXPECT_TRUE(prefix(a.racy_events(), b.racy_events()));
  EXPECT_TRUE(prefix(a.racy_locations(), b.racy_locations()));
  ASSERT_EQ(a.races().size(), b.races().size());
  for (size_t i = 0; i < a.races().size(); ++i) {
    EXPECT_EQ(a.races()[i].first.event, b.races()[i].first.event);
    EXPECT_EQ(a.races()[i].second.event, b.races()[i].second.event);
  }
}

TEST(Pipeline, SameResultsInEveryBatchingAndThreadingMode) {
  const auto engines = resolve_engines({"lockset"});
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    GeneratorOptions o;  // every thread from the start, overlapping critical sections
    o.seed = seed;
    o.threads = 4;
    o.variables = 3;
    o.locks = 3;
    o.events = 300;
    o.shape = ForkShape::None;
    o.nested_releases = false;
    o.release_at_end = false;
    o.local_share = 0;
    o.switch_share = 1;
    const std::string text = to_std_text(generate_trace(o));
    const Trace trace = parse_trace(text);
    const RaceSink expected = run_engine("lockset", trace, 10);
    for (bool threaded : {false, true})
      for (size_t batch : {size_t{1}, size_t{7}, size_t{1} << 16}) {
        SCOPED_TRACE(::testing::Message()
                     << "seed " << seed << " threaded " << threaded << " batch " << batch);
        PipelineOptions options;
        options.threaded = threaded;
        options.batch_size = batch;
        options.max_races = 10;
        const PipelineResult result = run_pipeline_on_text(text, "r.std", engines, options);
        EXPECT_EQ(result.events, trace.size());
        ASSERT_EQ(result.runs.size(), 1u);
        expect_same(result.runs[0].sink, expected);
        EXPECT_GE(result.runs[0].seconds, 0.0);
      }
  }
}

// Several engines on several engine threads: each engine sees every batch in order whichever
// thread runs it, so every engine reports what it reports alone, for every thread count and
// batch size (batch 1 lets the engines drift apart by the whole queue).
TEST(Pipeline, EngineThreadsGiveEachEngineItsOwnResults) {
  const auto engines = resolve_engines(
      {"lockset", "fasttrack", "hb-pairs", "tsan1", "goldilocks", "shb", "djit", "adjacent"});
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    GeneratorOptions o;
    o.seed = seed;
    o.threads = 5;
    o.variables = 4;
    o.locks = 3;
    o.events = 400;
    const std::string text = to_std_text(generate_trace(o));
    const Trace trace = parse_trace(text);
    std::vector<RaceSink> expected;
    for (const EngineInfo* info : engines) expected.push_back(run_engine(info->name, trace, 10));
    for (size_t threads : {size_t{1}, size_t{2}, size_t{3}, size_t{8}})
      for (size_t batch : {size_t{1}, size_t{5}, size_t{1} << 16}) {
        SCOPED_TRACE(::testing::Message()
                     << "seed " << seed << " threads " << threads << " batch " << batch);
        PipelineOptions options;
        options.engine_threads = threads;
        options.batch_size = batch;
        options.max_races = 10;
        const PipelineResult result = run_pipeline_on_text(text, "p.std", engines, options);
        EXPECT_EQ(result.events, trace.size());
        ASSERT_EQ(result.runs.size(), engines.size());
        for (size_t i = 0; i < engines.size(); ++i) {
          SCOPED_TRACE(engines[i]->name);
          EXPECT_EQ(result.runs[i].info, engines[i]);
          expect_same(result.runs[i].sink, expected[i]);
        }
      }
  }
}

// fasttrack prefetches per-variable state ahead once it has more than 32K variables
// (engines/dispatch.hpp): in batches of one event nothing is ahead, in large batches every
// access is prefetched; the results are the same.
TEST(Pipeline, PrefetchingEnginesGiveTheSameResultsInEveryBatchSize) {
  GeneratorOptions o;
  o.seed = 5;
  o.threads = 6;
  o.variables = 60000;
  o.locks = 4;
  o.events = 200000;
  const std::string text = to_std_text(generate_trace(o));
  const auto engines = resolve_engines({"fasttrack"});
  std::vector<RaceSink> sinks;
  for (size_t batch : {size_t{1}, size_t{1} << 16}) {
    PipelineOptions options;
    options.batch_size = batch;
    options.max_races = 100;
    PipelineResult result = run_pipeline_on_text(text, "v.std", engines, options);
    EXPECT_GT(result.symbols.variables.size(), 40000u);
    EXPECT_GT(result.runs[0].sink.race_count(), 0u);
    sinks.push_back(std::move(result.runs[0].sink));
  }
  expect_same(sinks[0], sinks[1]);
}

// An engine that throws at its n-th batch, beside engines that do not.
class FailingEngine : public Engine {
 public:
  explicit FailingEngine(int batches) : batches_(batches) {}
  void on_events(std::span<const EventId>, std::span<const Event>) override {
    if (--batches_ == 0) throw InputError("error: event 7: the test engine gives up");
  }

 private:
  int batches_;
};

// An engine's error stops every engine thread and the reader (no thread waits for a batch the
// reader can no longer fill, however far the others are) and reaches the caller.
TEST(Pipeline, AnEngineErrorStopsEveryThreadAndPropagates) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "T0|w(x)|1\nT1|r(y)|2\n";
  static const EngineInfo failing_early{
      "failing-early",
      "test",
      EngineMode::Online,
      EngineView::None,
      "throws at its first batch",
      "",
      {},
      [](EngineContext&) -> std::unique_ptr<Engine> { return std::make_unique<FailingEngine>(1); }};
  static const EngineInfo failing_late{"failing-late",
                                       "test",
                                       EngineMode::Online,
                                       EngineView::None,
                                       "throws at its 30th batch",
                                       "",
                                       {},
                                       [](EngineContext&) -> std::unique_ptr<Engine> {
                                         return std::make_unique<FailingEngine>(30);
                                       }};
  for (const EngineInfo* failing : {&failing_early, &failing_late})
    for (size_t threads : {size_t{1}, size_t{2}, size_t{4}}) {
      SCOPED_TRACE(::testing::Message() << failing->name << " threads " << threads);
      std::vector<const EngineInfo*> engines = resolve_engines({"fasttrack", "lockset"});
      engines.insert(engines.begin() + 1, failing);
      PipelineOptions options;
      options.engine_threads = threads;
      options.batch_size = 4;
      try {
        run_pipeline_on_text(text, "f.std", engines, options);
        FAIL() << "expected InputError";
      } catch (const InputError& e) {
        EXPECT_STREQ(e.what(), "error: event 7: the test engine gives up");
      }
    }
}

TEST(Pipeline, CountsSkippedEventsAndReportsThem) {
  const std::string text =
      "# header\n"
      "T0|begin|1\n"
      "T0|w(x)|2\n"
      "\n"
      "T1|w(x)|3\n"
      "T1|end|4\n"
      "T1|branch|5\n";
  const PipelineResult result =
      run_pipeline_on_text(text, "s.std", resolve_engines({"lockset", "lockset"}));
  EXPECT_EQ(result.path, "s.std");
  EXPECT_EQ(result.events, 2u);
  EXPECT_EQ(result.skipped_events(), 3u);
  EXPECT_TRUE(result.any_finding());
  const TraceInfo info = result.trace_info();
  EXPECT_EQ(info.threads, 2u);
  EXPECT_EQ(info.variables, 1u);
  EXPECT_EQ(info.locks, 0u);
  EXPECT_EQ(info.skipped_events, 3u);
  // Ids keep the numbers of the skipped lines: the writes are events 2 and 3.
  ASSERT_EQ(result.runs[0].sink.races().size(), 1u);
  EXPECT_EQ(result.runs[0].sink.races()[0].first.event, 2u);
  EXPECT_EQ(result.runs[0].sink.races()[0].second.event, 3u);
  const auto notes = pipeline_diagnostics(result);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "note: s.std: skipped 3 events with operations no engine uses (begin 1, branch 1, "
            "end 1)");
  const Report report = result.report();
  ASSERT_EQ(report.results.size(), 1u);
  EXPECT_EQ(report.results[0].engine, "lockset");
  EXPECT_EQ(report.trace.events, 2u);
}

TEST(Pipeline, InputErrorsPropagateFromTheReaderThread) {
  std::string text;
  for (int i = 0; i < 50; ++i) text += "T0|w(x)|1\nT1|r(x)|2\n";
  text += "T1|wr(x)|3\n";
  for (int i = 0; i < 50; ++i) text += "T0|w(x)|1\n";
  for (bool threaded : {false, true}) {
    PipelineOptions options;
    options.threaded = threaded;
    options.batch_size = 3;
    try {
      run_pipeline_on_text(text, "bad.std", resolve_engines({"lockset"}), options);
      FAIL() << "expected InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("bad.std:101:4: error: unknown operation 'wr'", 0), 0u)
          << e.what();
    }
  }
  EXPECT_THROW(run_pipeline("/nonexistent/trace.std", resolve_engines({"lockset"})), InputError);
}

TEST(Pipeline, LenientSkipsMalformedLinesWithAWarning) {
  PipelineOptions options;
  options.read.lenient = true;
  options.validation = ValidationMode::Lenient;
  const PipelineResult result = run_pipeline_on_text("T0|w(x)|1\nnonsense\nT1|w(x)|2\n", "l.std",
                                                     resolve_engines({"lockset"}), options);
  EXPECT_EQ(result.events, 2u);
  EXPECT_EQ(result.skipped_events(), 1u);
  EXPECT_EQ(result.runs[0].sink.race_count(), 1u);
  const auto notes = pipeline_diagnostics(result);
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes[0].rfind("warning: l.std: skipped 1 malformed line (--lenient); first:", 0), 0u)
      << notes[0];
}

TEST(Pipeline, ReadsAFileAndHonoursMaxRaces) {
  PipelineOptions options;
  options.max_races = 1;
  const PipelineResult result =
      run_pipeline(std::string(RACEPRED_EXAMPLES_DIR) + "/lockset/example6.std",
                   resolve_engines({"lockset"}), options);
  EXPECT_EQ(result.events, 6u);
  const RaceSink& sink = result.runs[0].sink;
  EXPECT_EQ(sink.race_count(), 3u);
  ASSERT_EQ(sink.races().size(), 1u);
  EXPECT_TRUE(sink.truncated());
  EXPECT_EQ(sink.races()[0].first.event, 2u);
  EXPECT_EQ(sink.races()[0].second.event, 4u);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
