// The engine table (engines/engines.def) is complete and consistent: unique names, a family
// folder for each engine, every field filled in, every engine described in docs/ENGINES.md,
// every registered engine reports what its family finds on a small trace, and the view column
// says which engines have the annotated view.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "racepred/clock/thread_clocks.hpp"
#include "racepred/driver/annotate.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(EngineTable, EveryRowIsComplete) {
  std::set<std::string> names;
  for (const EngineInfo& info : engine_registry()) {
    SCOPED_TRACE(info.name);
    EXPECT_TRUE(names.insert(info.name).second) << "duplicate name";
    EXPECT_FALSE(info.description.empty());
    EXPECT_FALSE(info.seed.empty());
    EXPECT_FALSE(info.guarantee.words.empty());
    EXPECT_NE(info.make, nullptr);
    EXPECT_EQ(info.name.find('_'), std::string::npos) << "names use '-'";
    if (!info.guarantee.reference.empty()) {
      EXPECT_NE(find_engine(info.guarantee.reference), nullptr) << info.guarantee.reference;
    }
    if (!info.guarantee.within.empty()) {
      EXPECT_NE(find_engine(info.guarantee.within), nullptr) << info.guarantee.within;
    }
  }
}

// The confidence label may promise only what the guarantee claims (and the property test checks):
// observed or predicted only for sound engines, observed only for the recorded schedule's races,
// witnessed never (it is given per race, to races with a checked witness).
TEST(EngineTable, ConfidenceMatchesTheGuarantee) {
  for (const EngineInfo& info : engine_registry()) {
    SCOPED_TRACE(info.name);
    if (info.guarantee.confidence != Confidence::Possible) {
      EXPECT_EQ(info.guarantee.soundness, Soundness::Sound);
    }
    if (info.guarantee.confidence == Confidence::Observed) {
      EXPECT_EQ(info.name, "adjacent");
    }
    EXPECT_NE(info.guarantee.confidence, Confidence::Witnessed);
  }
  // The sound engines are labelled so; the heuristics stay possible.
  EXPECT_EQ(find_engine("shb")->guarantee.confidence, Confidence::Predicted);
  EXPECT_EQ(find_engine("exact")->guarantee.confidence, Confidence::Predicted);
  EXPECT_EQ(find_engine("adjacent")->guarantee.confidence, Confidence::Observed);
  EXPECT_EQ(find_engine("lockset")->guarantee.confidence, Confidence::Possible);
  EXPECT_EQ(find_engine("fasttrack")->guarantee.confidence, Confidence::Possible);
  EXPECT_EQ(find_engine("wcp")->guarantee.confidence, Confidence::Possible);
}

TEST(EngineTable, EveryFamilyHasItsFolder) {
  const std::filesystem::path src = std::filesystem::path(RACEPRED_SOURCE_DIR) / "src/racepred";
  for (const EngineInfo& info : engine_registry()) {
    SCOPED_TRACE(info.name);
    EXPECT_TRUE(std::filesystem::is_directory(src / "engines" / info.family)) << info.family;
  }
}

TEST(EngineTable, EveryEngineIsDescribedInTheDocs) {
  const std::string docs = read_file(std::string(RACEPRED_SOURCE_DIR) + "/docs/ENGINES.md");
  ASSERT_FALSE(docs.empty());
  for (const EngineInfo& info : engine_registry())
    EXPECT_NE(docs.find("`" + info.name + "`"), std::string::npos)
        << info.name << " is not described in docs/ENGINES.md";
}

// A trace on which the families differ. T1's w(x) (8) is HB-ordered after T0's w(x) (3)
// through the empty critical sections of l, but swapping them is a correct reordering: the one
// predictable race (3,8), which HB misses and WCP and PWR find. w(z) (1, 9) is ordered by the
// fork and w(y) (11, 17) by the join: lock sets report them, happens-before does not. The
// accesses of y at 11 and 14 share the lock l. No two conflicting accesses are adjacent.
constexpr const char* kFamiliesTrace =
    "T0|w(z)|a\nT0|fork(T1)|b\nT0|w(x)|c\nT0|acq(l)|d\nT0|rel(l)|e\nT1|acq(l)|f\n"
    "T1|rel(l)|g\nT1|w(x)|h\nT1|w(z)|i\nT1|acq(l)|j\nT1|w(y)|k\nT1|rel(l)|m\nT0|acq(l)|n\n"
    "T0|r(y)|o\nT0|rel(l)|p\nT0|join(T1)|q\nT0|w(y)|r\n";

using Pairs = std::vector<std::pair<EventId, EventId>>;  // (first, second); kNoEvent: unknown

// What every registered engine reports on kFamiliesTrace. A new engine must add its row.
const std::map<std::string, Pairs>& expected_on_families_trace() {
  static const Pairs none;
  static const Pairs predictable = {{3, 8}};
  static const Pairs locksets = {{1, 9}, {3, 8}, {11, 17}};
  static const std::map<std::string, Pairs> expected = {
      {"lockset", locksets},
      {"tsan1", predictable},  // fork/join order z and y; l does not order critical sections
      {"eraser", {{kNoEvent, 8}, {kNoEvent, 9}, {kNoEvent, 17}}},  // racy events only
      {"hb", none},
      {"hb-sets", none},
      {"hb-pairs", none},
      {"djit", none},
      {"hb-epochs", none},
      {"hb-adaptive", none},
      {"fasttrack", none},
      {"goldilocks", none},
      {"goldilocks-rw", none},
      {"exact", predictable},
      {"exact-enabled", predictable},
      {"ls-standard", locksets},
      {"ls-cross", locksets},
      {"ls-cross-indexed", locksets},
      {"shb", none},
      {"wcp", predictable},
      {"sdp", predictable},
      {"dc-tp", predictable},
      {"dc", predictable},
      {"wdc", predictable},
      {"wdp", predictable},
      {"syncp", predictable},  // T1's section can run before T0 takes l (sync-preserving)
      {"osr", predictable},    // the same witness: T1's section closed, nothing left open
      {"m2", predictable},     // the same witness, the closure adds nothing
      {"pwr", predictable},
      {"pwr-unbounded", predictable},
      {"pwr-edges", predictable},
      {"pwr-edges-unbounded", predictable},
      {"pwr-cs", predictable},
      {"pwr-cs-unbounded", predictable},
      {"pwr-e", predictable},
      {"pwr-e-unbounded", predictable},
      {"adjacent", none},
      {"lockorder", none},  // deadlocks only (no lock is nested here)
      {"spd", none},
      {"exact-deadlocks", none},
      {"exact-ct-deadlocks", none},
  };
  return expected;
}

TEST(EngineTable, EveryEngineReportsItsFamilysRacesOnASmallTrace) {
  const Trace trace = parse_trace(kFamiliesTrace);
  const auto& expected = expected_on_families_trace();
  EXPECT_EQ(expected.size(), engine_registry().size()) << "a row above names no engine";
  for (const EngineInfo& info : engine_registry()) {
    SCOPED_TRACE(info.name);
    const auto it = expected.find(info.name);
    ASSERT_NE(it, expected.end()) << "add the engine's races on kFamiliesTrace";
    const RaceSink sink = run_engine(info, trace);
    Pairs got;
    for (const Race& race : sink.races()) got.emplace_back(race.first.event, race.second.event);
    EXPECT_EQ(got, it->second);
    EXPECT_EQ(sink.race_count(), it->second.size());
    std::vector<EventId> racy;
    for (const auto& pair : it->second) racy.push_back(pair.second);
    std::sort(racy.begin(), racy.end());
    EXPECT_EQ(sink.racy_events(), racy);
  }
}

// The view column, read without constructing engines, is what each engine has: annotator() is
// set exactly for the rows marked Annotated, whether or not the engine is built for the view.
TEST(EngineTable, TheViewColumnIsWhatEachEngineHas) {
  Symbols symbols;
  std::vector<std::string> annotated;
  for (const EngineInfo& info : engine_registry()) {
    SCOPED_TRACE(info.name);
    for (const bool annotate : {false, true}) {
      RaceSink sink(0);
      EngineContext context{symbols, sink};
      context.annotate = annotate;
      const std::unique_ptr<Engine> engine = info.make(context);
      EXPECT_EQ(engine->annotator() != nullptr, info.view == EngineView::Annotated);
    }
    if (info.view == EngineView::Annotated) annotated.push_back(info.name);
  }
  EXPECT_EQ(annotating_engines(), annotated);
  EXPECT_FALSE(annotated.empty());
  const Trace trace = parse_trace(kFamiliesTrace);
  EXPECT_THROW(annotate_trace("pwr", trace), UsageError);
  EXPECT_NO_THROW(annotate_trace("wcp", trace));
}

// Building an engine for its view (EngineContext::annotate) turns slot reuse off, so the view
// shows clocks by thread however small the slot budget: the rows are those of a run without
// reuse. Threads forked and joined one after another would share one slot otherwise.
TEST(EngineTable, AnnotatingShowsClocksByThreadWhateverTheSlotBudget) {
  const Trace trace = parse_trace(
      "T0|fork(T1)|1\nT1|w(x)|2\nT0|join(T1)|3\nT0|fork(T2)|4\nT2|w(x)|5\nT0|join(T2)|6\n"
      "T0|fork(T3)|7\nT3|r(x)|8\nT0|join(T3)|9\nT0|w(x)|10\n");
  const char* engines[] = {"tsan1", "hb-pairs", "djit",  "hb-epochs", "hb-adaptive", "fasttrack",
                           "shb",   "wcp",      "dc-tp", "dc",        "wdc",         "wdp"};
  EngineOptions no_reuse, one_slot;
  no_reuse.clock_slot_budget = SIZE_MAX;
  one_slot.clock_slot_budget = 1;
  for (const char* name : engines) {
    SCOPED_TRACE(name);
    const AnnotationRun wide = annotate_trace(name, trace, 1000, no_reuse);
    const AnnotationRun small = annotate_trace(name, trace, 1000, one_slot);
    ASSERT_EQ(small.rows.size(), wide.rows.size());
    for (size_t i = 0; i < wide.rows.size(); ++i) {
      ASSERT_EQ(small.rows[i].size(), wide.rows[i].size()) << "event " << i + 1;
      for (size_t c = 0; c < wide.rows[i].size(); ++c) {
        EXPECT_EQ(small.rows[i][c].column, wide.rows[i][c].column);
        EXPECT_EQ(small.rows[i][c].value, wide.rows[i][c].value)
            << "event " << i + 1 << ", column " << wide.rows[i][c].column;
      }
    }
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
