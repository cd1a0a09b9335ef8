// Seeds 001 and 004: every annotated example for djit, hb-epochs, hb-adaptive and fasttrack,
// value by value (vector clocks, W(x), R(x), race pairs) and every verdict the lectures state.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "racepred/driver/annotate.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace {

const std::vector<std::string> kEngines = {"djit", "hb-epochs", "hb-adaptive", "fasttrack"};
using Pairs = std::vector<std::pair<EventId, EventId>>;

struct Run {
  Trace trace;
  std::vector<Annotation> rows;
  RaceSink sink{SIZE_MAX};
};

// Runs `engine` as `racepred annotate` does.
std::unique_ptr<Run> annotate(const std::string& engine, const std::string& example) {
  auto run = std::make_unique<Run>();
  run->trace = load_trace(std::string(RACEPRED_EXAMPLES_DIR) + "/hb/" + example);
  const EngineInfo* info = find_engine(engine);
  EXPECT_NE(info, nullptr) << engine;
  AnnotationRun result = annotate_trace(*info, run->trace, SIZE_MAX);
  run->rows = std::move(result.rows);
  run->sink = std::move(result.sink);
  return run;
}

std::string cell(const Run& run, size_t event, const std::string& column) {
  const Annotation& row = run.rows.at(event - 1);
  for (const AnnotationCell& c : row)
    if (c.column == column) return c.value;
  ADD_FAILURE() << "no column " << column;
  return "";
}

std::vector<std::string> column(const Run& run, const std::string& name) {
  std::vector<std::string> out;
  for (size_t e = 1; e <= run.rows.size(); ++e) out.push_back(cell(run, e, name));
  return out;
}

Pairs pairs(const Run& run) {
  Pairs out;
  for (const Race& r : run.sink.races()) out.emplace_back(r.first.event, r.second.event);
  return out;
}

// ---- Seed 004, "Vector clock based race detector a la FastTrack", examples ----------------

TEST(HbLocationsSeed004, RaceNotDetected) {
  for (const std::string& engine : kEngines) {
    SCOPED_TRACE(engine);
    auto run = annotate(engine, "fasttrack_race_not_detected.std");
    EXPECT_EQ(column(*run, "Th"), (std::vector<std::string>{"[1,0]", "[2,0]", "[3,0]", "[4,0]",
                                                            "[1,1]", "[4,2]", "[4,3]"}));
    EXPECT_EQ(run->sink.race_count(), 0u);  // "we report there is no race"
    EXPECT_EQ(cell(*run, 7, "races"), "");
  }
  auto ft = annotate("fasttrack", "fasttrack_race_not_detected.std");
  EXPECT_EQ(cell(*ft, 3, "W(x)"), "undefined");
  EXPECT_EQ(cell(*ft, 7, "W(x)"), "0#3");
  EXPECT_EQ(cell(*ft, 7, "W(x)'"), "1#3");
}

TEST(HbLocationsSeed004, RaceDetected) {
  for (const std::string& engine : kEngines) {
    SCOPED_TRACE(engine);
    auto run = annotate(engine, "fasttrack_race_detected.std");
    EXPECT_EQ(column(*run, "Th"), (std::vector<std::string>{"[1,0]", "[2,0]", "[3,0]", "[4,0]",
                                                            "[1,1]", "[1,2]", "[4,3]"}));
    EXPECT_EQ(pairs(*run), (Pairs{{3, 5}}));
    EXPECT_EQ(cell(*run, 5, "races"), "(e3,e5)");
    EXPECT_EQ(run->sink.races()[0].first.op, Op::Write);
  }
  auto ft = annotate("fasttrack", "fasttrack_race_detected.std");
  EXPECT_EQ(cell(*ft, 3, "W(x)"), "undefined");
  EXPECT_EQ(cell(*ft, 5, "W(x)"), "0#3");
}

TEST(HbLocationsSeed004, EarlierRaceNotDetected) {
  for (const std::string& engine : kEngines) {
    SCOPED_TRACE(engine);
    auto run = annotate(engine, "fasttrack_earlier_race_not_detected.std");
    EXPECT_EQ(column(*run, "Th"), (std::vector<std::string>{"[1,0]", "[2,0]", "[3,0]", "[4,0]",
                                                            "[5,0]", "[1,1]", "[1,2]", "[5,3]"}));
    // "we only report that the write at trace position 4 is in a race with the write at 6"
    EXPECT_EQ(pairs(*run), (Pairs{{4, 6}}));
  }
  auto ft = annotate("fasttrack", "fasttrack_earlier_race_not_detected.std");
  EXPECT_EQ(cell(*ft, 3, "W(x)"), "undefined");
  EXPECT_EQ(cell(*ft, 4, "W(x)"), "0#3");
  EXPECT_EQ(cell(*ft, 6, "W(x)"), "0#4");
}

TEST(HbLocationsSeed004, ReadWriteRaces) {
  for (const std::string& engine : kEngines) {
    SCOPED_TRACE(engine);
    auto run = annotate(engine, "fasttrack_read_write_races.std");
    EXPECT_EQ(column(*run, "Th"),
              (std::vector<std::string>{"[1,0,0]", "[2,0,0]", "[3,0,0]", "[4,0,0]", "[2,1,0]",
                                        "[3,0,1]", "[3,0,2]", "[3,0,3]"}));
    // "the two reads are in a race with the write"
    EXPECT_EQ(pairs(*run), (Pairs{{4, 7}, {5, 7}}));
    EXPECT_EQ(cell(*run, 7, "races"), "(e4,e7) (e5,e7)");
    for (const Race& r : run->sink.races()) EXPECT_EQ(race_kind(r), RaceKind::ReadWrite);
  }
  auto ft = annotate("fasttrack", "fasttrack_read_write_races.std");
  EXPECT_EQ(cell(*ft, 1, "W(x)"), "undefined");
  EXPECT_EQ(cell(*ft, 7, "W(x)"), "0#1");
  EXPECT_EQ(cell(*ft, 7, "R(x)"), "[0#4,1#1]");
  EXPECT_EQ(cell(*ft, 4, "R(x)"), "");     // no read yet
  EXPECT_EQ(cell(*ft, 5, "R(x)"), "0#4");  // one read: still an epoch (semi-adaptive)
  // Fully adaptive: the same W(x), R(x) at the write.
  auto ad = annotate("hb-adaptive", "fasttrack_read_write_races.std");
  EXPECT_EQ(cell(*ad, 7, "W(x)"), "0#1");
  EXPECT_EQ(cell(*ad, 7, "R(x)"), "[0#4,1#1]");
  EXPECT_EQ(cell(*ad, 7, "W(x)'"), "2#2");  // 0#1 ⪯ Th(T2) = [3,0,2]: back to an epoch
  // Sets of epochs and VC_RaceLoc's vector clocks for the same state.
  auto ep = annotate("hb-epochs", "fasttrack_read_write_races.std");
  EXPECT_EQ(cell(*ep, 7, "W(x)"), "{0#1}");
  EXPECT_EQ(cell(*ep, 7, "R(x)"), "{0#4,1#1}");
  auto dj = annotate("djit", "fasttrack_read_write_races.std");
  EXPECT_EQ(cell(*dj, 7, "W(x)"), "[1,0,0]");
  EXPECT_EQ(cell(*dj, 7, "R(x)"), "[4,1,0]");
  EXPECT_EQ(cell(*dj, 7, "W(x)'"), "[1,0,2]");
}

// ---- Seed 001 -----------------------------------------------------------------------------

// "Trace A" annotated by VC_pre_post: every engine computes the same thread clocks.
TEST(HbLocationsSeed001, TraceAPrePostClocks) {
  for (const std::string& engine : kEngines) {
    SCOPED_TRACE(engine);
    auto run = annotate(engine, "raceloc_trace_a.std");
    EXPECT_EQ(column(*run, "Th"),
              (std::vector<std::string>{"[1,0]", "[2,0]", "[3,0]", "[0,1]", "[3,2]", "[3,3]"}));
    EXPECT_EQ(column(*run, "Th'"),
              (std::vector<std::string>{"[2,0]", "[3,0]", "[4,0]", "[3,2]", "[3,3]", "[3,4]"}));
    EXPECT_EQ(run->sink.race_count(), 0u);  // "there is no HB data race"
  }
}

// "Pre vector clocks for synchronization" and the VC_W_R table: W(x) after each event is
// {} {} {[3,0]} {[3,0]} {[3,0],[2,2]}, i.e. the epochs {0#3} and {0#3,1#2}.
TEST(HbLocationsSeed001, CriticalSectionRace) {
  for (const std::string& engine : kEngines) {
    SCOPED_TRACE(engine);
    auto run = annotate(engine, "raceloc_cs_race.std");
    EXPECT_EQ(column(*run, "Th"),
              (std::vector<std::string>{"[1,0]", "[2,0]", "[3,0]", "[0,1]", "[2,2]", "[2,3]"}));
    EXPECT_EQ(column(*run, "Th'"),
              (std::vector<std::string>{"[2,0]", "[3,0]", "[4,0]", "[2,2]", "[2,3]", "[2,4]"}));
    EXPECT_EQ(pairs(*run), (Pairs{{3, 5}}));  // race pair ([3,0], [2,2])
  }
  auto ep = annotate("hb-epochs", "raceloc_cs_race.std");
  EXPECT_EQ(cell(*ep, 3, "W(x)"), "{}");
  EXPECT_EQ(cell(*ep, 3, "W(x)'"), "{0#3}");
  EXPECT_EQ(cell(*ep, 5, "W(x)"), "{0#3}");
  EXPECT_EQ(cell(*ep, 5, "W(x)'"), "{0#3,1#2}");
  auto dj = annotate("djit", "raceloc_cs_race.std");
  EXPECT_EQ(cell(*dj, 5, "W(x)"), "[3,0]");
  EXPECT_EQ(cell(*dj, 5, "W(x)'"), "[3,2]");  // supremum of {[3,0],[2,2]} at the entries
  auto ad = annotate("hb-adaptive", "raceloc_cs_race.std");
  EXPECT_EQ(cell(*ad, 5, "W(x)"), "0#3");
  EXPECT_EQ(cell(*ad, 5, "W(x)'"), "[0#3,1#2]");  // Wh(x) = [j#k, i#Th(i)(i)]
  auto ft = annotate("fasttrack", "raceloc_cs_race.std");
  EXPECT_EQ(cell(*ft, 5, "W(x)'"), "1#2");  // Ws(x): single epoch
}

// VC_W_R's second table: W(x) = {[1,0]}, {[2,0]}, {[2,0],[0,1]}; only (2,3) is reported,
// "(w(x)1, w(x)3) ... is not reported by VC_W_R_Races".
TEST(HbLocationsSeed001, OnlyMostRecentWrites) {
  for (const std::string& engine : kEngines) {
    SCOPED_TRACE(engine);
    auto run = annotate(engine, "raceloc_last_writes.std");
    EXPECT_EQ(column(*run, "Th"), (std::vector<std::string>{"[1,0]", "[2,0]", "[0,1]"}));
    EXPECT_EQ(column(*run, "Th'"), (std::vector<std::string>{"[2,0]", "[3,0]", "[0,2]"}));
    EXPECT_EQ(pairs(*run), (Pairs{{2, 3}}));
  }
  auto ep = annotate("hb-epochs", "raceloc_last_writes.std");
  EXPECT_EQ(column(*ep, "W(x)'"), (std::vector<std::string>{"{0#1}", "{0#2}", "{0#2,1#1}"}));
  auto dj = annotate("djit", "raceloc_last_writes.std");
  EXPECT_EQ(column(*dj, "W(x)'"), (std::vector<std::string>{"[1,0]", "[2,0]", "[2,1]"}));
}

// "FastTrack does not report that w(x)3 is part of a data race"; Adaptive_Epoch "reports the
// same race locations as all the other (online) algorithms".
TEST(HbLocationsSeed001, FastTrackMissesALocation) {
  for (const char* engine : {"djit", "hb-epochs", "hb-adaptive"}) {
    SCOPED_TRACE(engine);
    auto run = annotate(engine, "raceloc_fasttrack_misses.std");
    EXPECT_EQ(run->sink.racy_events(), (std::vector<EventId>{2, 3}));
    EXPECT_EQ(pairs(*run), (Pairs{{1, 2}, {1, 3}}));
  }
  auto ft = annotate("fasttrack", "raceloc_fasttrack_misses.std");
  EXPECT_EQ(ft->sink.racy_events(), (std::vector<EventId>{2}));
  EXPECT_EQ(pairs(*ft), (Pairs{{1, 2}}));
  EXPECT_EQ(cell(*ft, 3, "W(x)"), "1#1");  // Ws(x) holds only T2's own write
  auto ad = annotate("hb-adaptive", "raceloc_fasttrack_misses.std");
  EXPECT_EQ(cell(*ad, 2, "W(x)'"), "[0#1,1#1]");  // concurrent writes: Wh(x) a vector clock
  EXPECT_EQ(cell(*ad, 3, "W(x)'"), "[0#1,1#2]");  // not subsumed: V(i) = Th(i)(i)
}

// Trace I: HB reports the real race (2,3) first and the false positive (1,4) after it.
TEST(HbLocationsSeed001, TraceIHbFalsePositive) {
  for (const std::string& engine : kEngines) {
    SCOPED_TRACE(engine);
    auto run = annotate(engine, "raceloc_trace_i.std");
    EXPECT_EQ(pairs(*run), (Pairs{{1, 4}, {2, 3}}));
    EXPECT_EQ(run->sink.racy_events(), (std::vector<EventId>{3, 4}));
  }
}

// The verdicts end to end: `racepred analyze -e ENGINE --format json` on every example (exit
// code 1 = races, 0 = none; racy events as the seeds state them).
TEST(HbLocationsSeed, AnalyzeCommandVerdicts) {
  struct Case {
    const char* example;
    std::vector<EventId> racy;            // djit, hb-epochs, hb-adaptive
    std::vector<EventId> fasttrack_racy;  // fasttrack
  };
  const std::vector<Case> cases = {
      {"fasttrack_race_not_detected.std", {}, {}},
      {"fasttrack_race_detected.std", {5}, {5}},
      {"fasttrack_earlier_race_not_detected.std", {6}, {6}},
      {"fasttrack_read_write_races.std", {7}, {7}},
      {"raceloc_trace_a.std", {}, {}},
      {"raceloc_cs_race.std", {5}, {5}},
      {"raceloc_last_writes.std", {3}, {3}},
      {"raceloc_fasttrack_misses.std", {2, 3}, {2}},
      {"raceloc_trace_i.std", {3, 4}, {3, 4}},
  };
  for (const Case& c : cases) {
    for (const std::string& engine : kEngines) {
      SCOPED_TRACE(std::string(c.example) + " " + engine);
      std::string command = RACEPRED_BINARY;
      command.append(" analyze --format json -e ").append(engine).append(" ");
      command.append(RACEPRED_EXAMPLES_DIR).append("/hb/").append(c.example);
      FILE* pipe = popen(command.c_str(), "r");
      ASSERT_NE(pipe, nullptr);
      std::string out;
      char buffer[4096];
      for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
      const int status = pclose(pipe);
      const auto& expected = engine == "fasttrack" ? c.fasttrack_racy : c.racy;
      EXPECT_EQ(WEXITSTATUS(status), expected.empty() ? 0 : 1);
      const nlohmann::json report = nlohmann::json::parse(out);
      const nlohmann::json& result = report.at("results").at(0);
      EXPECT_EQ(result.at("engine"), engine);
      EXPECT_EQ(result.at("racy_events").get<std::vector<EventId>>(), expected);
      for (const auto& race : result.at("races")) EXPECT_FALSE(race.at("first").is_null());
    }
  }
}

// Every engine is registered with a description, guarantee and seed section, online.
TEST(HbLocationsSeed, Registered) {
  for (const std::string& engine : kEngines) {
    const EngineInfo* info = find_engine(engine);
    ASSERT_NE(info, nullptr) << engine;
    EXPECT_FALSE(info->description.empty());
    EXPECT_FALSE(info->guarantee.words.empty());
    EXPECT_FALSE(info->seed.empty());
    EXPECT_EQ(info->mode, EngineMode::Online);
  }
}

}  // namespace
}  // namespace racepred
