// Seeds 001 and 004: every annotated example of the engines hb, hb-sets, hb-pairs and tsan1,
// value by value, and every verdict the lectures state for them. The traces live in
// examples/lecture (seed 001, shared with the lockset tests) and examples/hb (seed 004); their
// headers quote the seed.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "racepred/driver/annotate.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace {

using Pairs = std::set<std::pair<EventId, EventId>>;

Trace example(const std::string& name) {
  return load_trace(std::string(RACEPRED_EXAMPLES_DIR) + "/" + name);
}

Pairs pairs(const std::string& engine, const Trace& trace) {
  const RaceSink sink = run_engine(engine, trace, SIZE_MAX);
  Pairs out;
  for (const Race& r : sink.races()) out.insert({r.first.event, r.second.event});
  EXPECT_EQ(out.size(), sink.race_count()) << engine << ": each pair reported once";
  return out;
}

// The annotated view of one engine: cell(id, column).
class Annotated {
 public:
  Annotated(const std::string& engine, const Trace& trace)
      : trace_(trace), run_(annotate_trace(engine, trace, SIZE_MAX)) {}
  std::string cell(EventId id, const std::string& column) const {
    const size_t i = trace_.index_of(id);
    EXPECT_NE(i, SIZE_MAX) << "no event " << id;
    if (i == SIZE_MAX) return "<no event>";
    for (const AnnotationCell& c : run_.rows[i])
      if (c.column == column) return c.value;
    return "";
  }
  const RaceSink& sink() const { return run_.sink; }

 private:
  const Trace& trace_;
  AnnotationRun run_;
};

// Seed 004 spells writes and reads wr(x) and rd(x); racepred uses the STD spelling w(x), r(x).
std::string std_spelling(std::string s) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"wr(", "w("}, {"rd(", "r("}})
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p))
      s.replace(p, from.size(), to);
  return s;
}

// Event ids listed in an event-set cell "[0:w(x)_1,0:acq(y)_2]".
std::set<EventId> ids_in_set(const std::string& cell) {
  std::set<EventId> ids;
  for (size_t p = cell.find('_'); p != std::string::npos; p = cell.find('_', p + 1))
    ids.insert(std::stoull(cell.substr(p + 1)));
  return ids;
}

// ---------------------------------------------------------------------------------------------
// Seed 001: HB method, vector clocks, VC_pre_post

TEST(Seed001VcPrePost, TraceAAnnotatedVectorClocksAndNoRace) {
  // "Applying algorithm VC_pre_post on our running example yields the following annotated trace".
  const Trace t = example("lecture/trace_a.std");
  const Annotated hb("hb", t);
  EXPECT_EQ(hb.cell(1, "VC_pre_post"), "[1,0]_w(x)_[2,0]");
  EXPECT_EQ(hb.cell(2, "VC_pre_post"), "[2,0]_acq(y)_[3,0]");
  EXPECT_EQ(hb.cell(3, "VC_pre_post"), "[3,0]_rel(y)_[4,0]");
  EXPECT_EQ(hb.cell(4, "VC_pre_post"), "[0,1]_acq(y)_[3,2]");
  EXPECT_EQ(hb.cell(5, "VC_pre_post"), "[3,2]_w(x)_[3,3]");
  EXPECT_EQ(hb.cell(6, "VC_pre_post"), "[3,3]_rel(y)_[3,4]");
  // "We find [1,0] < [3,2]. Hence, there is no HB data race."
  EXPECT_EQ(hb.sink().race_count(), 0u);
  EXPECT_EQ(pairs("hb", t), Pairs{});
  EXPECT_EQ(pairs("hb-sets", t), Pairs{});
  EXPECT_EQ(pairs("hb-pairs", t), Pairs{});
  // "LS(w(x)_1) ∩ LS(w(x)_5) = {}. Hence, we argue that ... represent a data race": without fork
  // events nothing orders the two threads for the lockset-style predictor.
  EXPECT_EQ(pairs("tsan1", t), (Pairs{{1, 5}}));
}

TEST(Seed001VcPrePost, TraceBAndTraceCHaveTheSameHbRace) {
  // Trace B: "w(x)_1 and w(x)_5 are unordered ... we can argue that w(x)_1 and w(x)_5 are in race".
  const Trace b = example("lecture/trace_b.std");
  EXPECT_EQ(pairs("hb", b), (Pairs{{2, 4}}));
  // "The HB relations derived from trace B and trace [C] are the same!"
  const Trace c = example("lecture/trace_c.std");
  EXPECT_EQ(pairs("hb", c), (Pairs{{2, 3}}));
  // The same pair of seed positions (kept as locations): w(x)_5 of T2 and w(x)_1 of T1.
  for (const Trace* t : {&b, &c}) {
    const RaceSink sink = run_engine("hb", *t, SIZE_MAX);
    ASSERT_EQ(sink.races().size(), 1u);
    EXPECT_EQ(t->location_name(sink.races()[0].first.location), "e5");
    EXPECT_EQ(t->location_name(sink.races()[0].second.location), "e1");
  }
  for (const char* engine : {"hb-sets", "hb-pairs"}) {
    EXPECT_EQ(pairs(engine, b), (Pairs{{2, 4}})) << engine;
    EXPECT_EQ(pairs(engine, c), (Pairs{{2, 3}})) << engine;
  }
}

TEST(Seed001VcPrePost, TraceIHbUnsound) {
  // "We encounter a write-read race because w(y)_2 and r(y)_3 appear right next to each other"
  // and "we find the write-write data race (w(x)_4, w(x)_1)" (a false positive).
  const Trace t = example("lecture/trace_i.std");
  EXPECT_EQ(pairs("hb", t), (Pairs{{1, 4}, {2, 3}}));
  EXPECT_EQ(pairs("hb-sets", t), (Pairs{{1, 4}, {2, 3}}));
  EXPECT_EQ(pairs("hb-pairs", t), (Pairs{{1, 4}, {2, 3}}));
}

TEST(Seed001VcPrePost, PreVectorClocksForSynchronization) {
  // "Pre vector clocks for synchronization" and VC_pre_post "Consider another trace".
  const Trace t = example("lecture/pre_vc_sync.std");
  const Annotated hb("hb", t);
  EXPECT_EQ(hb.cell(1, "VC_pre_post"), "[1,0]_acq(y)_[2,0]");
  EXPECT_EQ(hb.cell(2, "VC_pre_post"), "[2,0]_rel(y)_[3,0]");
  EXPECT_EQ(hb.cell(3, "VC_pre_post"), "[3,0]_w(x)_[4,0]");
  EXPECT_EQ(hb.cell(4, "VC_pre_post"), "[0,1]_acq(y)_[2,2]");  // sync([2,0],[0,1]) = [2,1], inc
  EXPECT_EQ(hb.cell(5, "VC_pre_post"), "[2,2]_w(x)_[2,3]");
  EXPECT_EQ(hb.cell(6, "VC_pre_post"), "[2,3]_rel(y)_[2,4]");
  // "We encounter the following write-write HB data race pair (0#w(x)_3, 1#w(x)_5)".
  EXPECT_EQ(pairs("hb", t), (Pairs{{3, 5}}));
  EXPECT_EQ(hb.cell(5, "races"), "(e3,e5)");
}

// ---------------------------------------------------------------------------------------------
// Seed 001: online approach, VC_W_R_Races

TEST(Seed001VcWrRaces, FirstExampleTable) {
  // "We consider a run of algorithm VC_W_R (and its extension VC_W_R_Races) on the above trace".
  // The seed repeats W(x) on every row; racepred shows W(x) of the accessed variable on access
  // rows (the rows where it changes): {} at e1, e2 and { [3,0] } at e4, e6 are carried over.
  const Trace t = example("lecture/pre_vc_sync.std");
  const Annotated a("hb-pairs", t);
  EXPECT_EQ(a.cell(1, "VC_pre_post"), "[1,0]_acq(y)_[2,0]");
  EXPECT_EQ(a.cell(2, "VC_pre_post"), "[2,0]_rel(y)_[3,0]");
  EXPECT_EQ(a.cell(3, "VC_pre_post"), "[3,0]_w(x)_[4,0]");
  EXPECT_EQ(a.cell(3, "W(x)"), "{ [3,0] }");
  EXPECT_EQ(a.cell(3, "Race pairs"), "");
  EXPECT_EQ(a.cell(4, "VC_pre_post"), "[0,1]_acq(y)_[2,2]");
  EXPECT_EQ(a.cell(5, "VC_pre_post"), "[2,2]_w(x)_[2,3]");
  EXPECT_EQ(a.cell(5, "W(x)"), "{ [3,0], [2,2] }");
  EXPECT_EQ(a.cell(5, "Race pairs"), "([3,0], [2,2])");
  EXPECT_EQ(a.cell(5, "races"), "(e3,e5)");
  EXPECT_EQ(a.cell(6, "VC_pre_post"), "[2,3]_rel(y)_[2,4]");
  for (EventId id : {1, 2, 4, 6}) EXPECT_EQ(a.cell(id, "Race pairs"), "") << id;
  EXPECT_EQ(a.cell(5, "R(x)"), "");  // "There are no reads, so we only consider W(x)."
  EXPECT_EQ(pairs("hb-pairs", t), (Pairs{{3, 5}}));
}

TEST(Seed001VcWrRaces, SecondExampleMissesAnEarlierPair) {
  const Trace t = example("lecture/vc_w_r_two_writes.std");
  const Annotated a("hb-pairs", t);
  EXPECT_EQ(a.cell(1, "VC_pre_post"), "[1,0]_w(x)_[2,0]");
  EXPECT_EQ(a.cell(1, "W(x)"), "{ [1,0] }");
  EXPECT_EQ(a.cell(2, "VC_pre_post"), "[2,0]_w(x)_[3,0]");
  EXPECT_EQ(a.cell(2, "W(x)"), "{ [2,0] }");
  EXPECT_EQ(a.cell(3, "VC_pre_post"), "[0,1]_w(x)_[0,2]");
  EXPECT_EQ(a.cell(3, "W(x)"), "{ [2,0], [0,1] }");
  EXPECT_EQ(a.cell(3, "Race pairs"), "([2,0], [0,1])");
  // "We find the race pair ([2,0],[0,1]) which corresponds to the pair of events (w(x)_2, w(x)_3)
  // ... another race pair ([1,0],[0,1]) corresponding to (w(x)_1, w(x)_3). This pair is not
  // reported by VC_W_R_Races." "The offline approach based on algorithm VC_pre_post is able to
  // detect the write-write data race (w(x)_1, w(x)_3)."
  EXPECT_EQ(pairs("hb-pairs", t), (Pairs{{2, 3}}));
  EXPECT_EQ(pairs("hb", t), (Pairs{{1, 3}, {2, 3}}));
  const Annotated hb("hb", t);
  EXPECT_EQ(hb.cell(3, "VC_pre_post"), "[0,1]_w(x)_[0,2]");
  EXPECT_EQ(hb.cell(3, "races"), "(e1,e3) (e2,e3)");
}

// ---------------------------------------------------------------------------------------------
// Seed 001: the Go framework (lockset style predictor, similar to TSan V1, and HB)

TEST(Seed001GoFramework, Trace1TwoUnorderedWrites) {
  // main(): testLS(trace1()) and testHB(trace1()) carry the comment "No race, trivial example.",
  // but the seed's code reports the pair: the threads start with [1,0] and [0,1] (incomparable)
  // and hold no locks, and the writes are adjacent in the trace itself, a real race. We follow
  // the code (docs/ENGINES.md, "tsan1").
  const Trace t = example("lecture/go_trace1.std");
  EXPECT_EQ(pairs("tsan1", t), (Pairs{{1, 2}}));
  EXPECT_EQ(pairs("hb", t), (Pairs{{1, 2}}));
}

TEST(Seed001GoFramework, Trace1bForkOrdersTheWrites) {
  // testLS(trace1b()): "No race, no race reported. lockset algorithm combined with fork-join
  // happens-before."
  const Trace t = example("lecture/go_trace1b.std");
  EXPECT_EQ(pairs("tsan1", t), Pairs{});
  EXPECT_EQ(pairs("hb", t), Pairs{});
  const Annotated a("tsan1", t);
  EXPECT_EQ(a.cell(1, "Th(t)"), "[1,0]");
  EXPECT_EQ(a.cell(2, "Th(t)"), "[2,0]");
  EXPECT_EQ(a.cell(3, "Th(t)"), "[2,1]");  // sync([0,1], [2,0]) at the fork
  EXPECT_EQ(a.cell(3, "W(x)"), "{1#w(x)_3 [2,1] {}}");
  EXPECT_EQ(a.cell(4, "W(x)"), "{1#w(x)_4 [2,2] {}}");
}

TEST(Seed001GoFramework, Trace1cWithoutForkRaces) {
  // testLS(trace1c()) and testHB(trace1c()): "Race reported."
  const Trace t = example("lecture/go_trace1c.std");
  EXPECT_EQ(pairs("tsan1", t), (Pairs{{1, 2}, {1, 3}}));
  EXPECT_EQ(pairs("hb", t), (Pairs{{1, 2}, {1, 3}}));
  const Annotated a("tsan1", t);
  EXPECT_EQ(a.cell(2, "W(x)"), "{0#w(x)_1 [1,0] {}, 1#w(x)_2 [0,1] {}}");
  EXPECT_EQ(a.cell(3, "W(x)"), "{0#w(x)_1 [1,0] {}, 1#w(x)_3 [0,2] {}}");
  EXPECT_EQ(a.cell(3, "races"), "(e1,e3)");
}

TEST(Seed001GoFramework, Trace2OnlyTheLatestWriteIsKept) {
  // testLS(trace2()): "No race reported cause we only keep track of the latest write."
  const Trace t = example("lecture/go_trace2.std");
  EXPECT_EQ(pairs("tsan1", t), Pairs{});
  const Annotated a("tsan1", t);
  EXPECT_EQ(a.cell(1, "LS(t)"), "{}");
  EXPECT_EQ(a.cell(3, "LS(t)"), "{y}");
  EXPECT_EQ(a.cell(3, "W(x)"), "{0#w(x)_3 [3,0] {y}}");  // w(x)_1 is ordered before w(x)_3
  EXPECT_EQ(a.cell(6, "LS(t)"), "{y}");
  EXPECT_EQ(a.cell(6, "W(x)"), "{0#w(x)_3 [3,0] {y}, 1#w(x)_6 [0,2] {y}}");
  EXPECT_EQ(a.cell(6, "races"), "");
  // testHB(trace2()): "No race reported because critical sections are ordered".
  EXPECT_EQ(pairs("hb", t), Pairs{});
  EXPECT_EQ(pairs("hb-pairs", t), Pairs{});
  EXPECT_EQ(pairs("hb-sets", t), Pairs{});
}

// ---------------------------------------------------------------------------------------------
// Seed 004: event sets and the set-based race predictor

TEST(Seed004EventSets, TraceAnnotatedWithEventSets) {
  // "Example - Trace annotated with event sets": ES_e = D(t) after e.
  const Trace t = example("hb/sets_event_sets.std");
  const Annotated a("hb-sets", t);
  const std::vector<std::set<EventId>> es = {{1},          {1, 2},          {1, 2, 3},
                                             {1, 2, 3, 4}, {1, 2, 3, 4, 5}, {1, 2, 3, 4, 5, 6}};
  for (EventId id = 1; id <= 6; ++id) EXPECT_EQ(ids_in_set(a.cell(id, "D(t)")), es[id - 1]) << id;
  // "Because of w(x)_1 < w(x)_5, the HB method concludes that there is no data race."
  EXPECT_EQ(a.sink().race_count(), 0u);
  EXPECT_EQ(pairs("hb", t), Pairs{});
}

TEST(Seed004SetBased, RaceNotDetected) {
  const Trace t = example("hb/sets_race_not_detected.std");
  const Annotated a("hb-sets", t);
  EXPECT_EQ(a.cell(2, "D(t)"), std_spelling("[0:fork(T1)_1,0:acq(y)_2]"));
  EXPECT_EQ(a.cell(3, "W(x)"), "undefined");
  EXPECT_EQ(a.cell(4, "Rel(y)"), std_spelling("[0:fork(T1)_1,0:acq(y)_2,0:wr(x)_3,0:rel(y)_4]"));
  EXPECT_EQ(a.cell(5, "D(t)"),
            std_spelling("[0:fork(T1)_1,0:acq(y)_2,0:wr(x)_3,0:rel(y)_4,1:acq(y)_5]"));
  EXPECT_EQ(a.cell(6, "Rel(y)"),
            std_spelling("[0:fork(T1)_1,0:acq(y)_2,0:wr(x)_3,0:rel(y)_4,1:acq(y)_5,1:rel(y)_6]"));
  EXPECT_EQ(a.cell(7, "W(x)"), std_spelling("0:wr(x)_3"));
  // "Therefore, we report there is no race. This is a false negative".
  EXPECT_EQ(a.sink().race_count(), 0u);
  for (const char* engine : {"hb", "hb-sets", "hb-pairs"}) EXPECT_EQ(pairs(engine, t), Pairs{});
}

TEST(Seed004SetBased, RaceDetected) {
  const Trace t = example("hb/sets_race_detected.std");
  const Annotated a("hb-sets", t);
  EXPECT_EQ(a.cell(2, "D(t)"), std_spelling("[0:fork(T1)_1,0:acq(y)_2]"));
  EXPECT_EQ(a.cell(3, "W(x)"), "undefined");
  EXPECT_EQ(a.cell(4, "Rel(y)"), std_spelling("[0:fork(T1)_1,0:acq(y)_2,0:wr(x)_3,0:rel(y)_4]"));
  EXPECT_EQ(a.cell(5, "W(x)"), std_spelling("0:wr(x)_3"));
  EXPECT_EQ(a.cell(6, "D(t)"),
            std_spelling("[0:fork(T1)_1,0:acq(y)_2,0:wr(x)_3,0:rel(y)_4,1:wr(x)_5,1:acq(y)_6]"));
  EXPECT_EQ(a.cell(7, "Rel(y)"),
            std_spelling(
                "[0:fork(T1)_1,0:acq(y)_2,0:wr(x)_3,0:rel(y)_4,1:wr(x)_5,1:acq(y)_6,1:rel(y)_7]"));
  // "Under the HB relation, the two writes on x are not ordered. Hence, we report that they are
  // in a race."
  EXPECT_EQ(a.cell(5, "races"), "(e3,e5)");
  for (const char* engine : {"hb", "hb-sets", "hb-pairs"})
    EXPECT_EQ(pairs(engine, t), (Pairs{{3, 5}})) << engine;
}

TEST(Seed004SetBased, EarlierRaceNotDetected) {
  const Trace t = example("hb/sets_earlier_race_not_detected.std");
  const Annotated a("hb-sets", t);
  EXPECT_EQ(a.cell(2, "D(t)"), std_spelling("[0:fork(T1)_1,0:acq(y)_2]"));
  EXPECT_EQ(a.cell(3, "W(x)"), "undefined");
  EXPECT_EQ(a.cell(4, "W(x)"), std_spelling("0:wr(x)_3"));
  EXPECT_EQ(a.cell(5, "Rel(y)"),
            std_spelling("[0:fork(T1)_1,0:acq(y)_2,0:wr(x)_3,0:wr(x)_4,0:rel(y)_5]"));
  EXPECT_EQ(a.cell(6, "W(x)"), std_spelling("0:wr(x)_4"));
  EXPECT_EQ(a.cell(7, "D(t)"), std_spelling("[0:fork(T1)_1,0:acq(y)_2,0:wr(x)_3,0:wr(x)_4,0:"
                                            "rel(y)_5,1:wr(x)_6,1:acq(y)_7]"));
  EXPECT_EQ(a.cell(8, "Rel(y)"), std_spelling("[0:fork(T1)_1,0:acq(y)_2,0:wr(x)_3,0:wr(x)_4,0:"
                                              "rel(y)_5,1:wr(x)_6,1:acq(y)_7,1:rel(y)_8]"));
  // "The write at trace position 3 and the write at trace position 6 are in a race. However, we
  // only maintain the most recent write. Hence, we only report that the write at trace position
  // 4 is in a race with the write at trace position 6."
  EXPECT_EQ(pairs("hb-sets", t), (Pairs{{4, 6}}));
  EXPECT_EQ(pairs("hb", t), (Pairs{{3, 6}, {4, 6}}));
  EXPECT_EQ(pairs("hb-pairs", t), (Pairs{{4, 6}}));
}

TEST(Seed004SetBased, ReadWriteRaces) {
  const Trace t = example("hb/sets_read_write_races.std");
  const Annotated a("hb-sets", t);
  EXPECT_EQ(a.cell(1, "W(x)"), "undefined");
  EXPECT_EQ(a.cell(4, "W(x)"), std_spelling("0:wr(x)_1"));
  EXPECT_EQ(a.cell(5, "W(x)"), std_spelling("0:wr(x)_1"));
  EXPECT_EQ(a.cell(6, "D(t)"), std_spelling("[0:wr(x)_1,0:fork(T1)_2,0:fork(T2)_3,2:acq(y)_6]"));
  EXPECT_EQ(a.cell(7, "W(x)"), std_spelling("0:wr(x)_1"));
  EXPECT_EQ(a.cell(7, "R(x)"), std_spelling("[0:rd(x)_4,1:rd(x)_5]"));
  EXPECT_EQ(a.cell(8, "Rel(y)"),
            std_spelling("[0:wr(x)_1,0:fork(T1)_2,0:fork(T2)_3,2:acq(y)_6,2:wr(x)_7,2:rel(y)_8]"));
  // "We find that the two reads are in a race with the write." "Note that when processing the
  // write in T2, we find that D(T2) contains the earlier write."
  EXPECT_EQ(a.cell(7, "races"), "(e4,e7) (e5,e7)");
  for (const char* engine : {"hb", "hb-sets", "hb-pairs", "tsan1"})
    EXPECT_EQ(pairs(engine, t), (Pairs{{4, 7}, {5, 7}})) << engine;
}

// ---------------------------------------------------------------------------------------------
// The annotate command end to end

std::string run_cli(const std::string& args, int* exit_code) {
  const std::string command = std::string(RACEPRED_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = pclose(pipe);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(AnnotateCommand, PrintsTheSeedTable) {
  int code = 0;
  const std::string out = run_cli(
      "annotate -e hb --width 0 " + std::string(RACEPRED_EXAMPLES_DIR) + "/lecture/pre_vc_sync.std",
      &code);
  EXPECT_EQ(code, 1);  // races reported
  EXPECT_EQ(out,
            "thread indices (vector clocks, epochs): 0=T1 1=T2\n"
            "    T1      T2      VC_pre_post         races\n"
            "--  ------  ------  ------------------  -------\n"
            "e1  acq(y)          [1,0]_acq(y)_[2,0]\n"
            "e2  rel(y)          [2,0]_rel(y)_[3,0]\n"
            "e3  w(x)            [3,0]_w(x)_[4,0]\n"
            "e4          acq(y)  [0,1]_acq(y)_[2,2]\n"
            "e5          w(x)    [2,2]_w(x)_[2,3]    (e3,e5)\n"
            "e6          rel(y)  [2,3]_rel(y)_[2,4]\n"
            "\n"
            "hb: 1 race pair: (e3,e5)\n");
}

TEST(AnnotateCommand, JsonHasOneObjectPerEvent) {
  int code = 0;
  const std::string out =
      run_cli("annotate -e hb-sets --format json " + std::string(RACEPRED_EXAMPLES_DIR) +
                  "/hb/sets_race_detected.std",
              &code);
  EXPECT_EQ(code, 1);
  const auto doc = nlohmann::json::parse(out);
  EXPECT_EQ(doc["schema"], "racepred/1");
  EXPECT_EQ(doc["engine"], "hb-sets");
  ASSERT_EQ(doc["events"].size(), 7u);
  const auto& e5 = doc["events"][4];
  EXPECT_EQ(e5["id"], 5);
  EXPECT_EQ(e5["thread"], "T1");
  EXPECT_EQ(e5["op"], "w");
  EXPECT_EQ(e5["target"], "x");
  EXPECT_EQ(e5["location"], "L5");
  EXPECT_EQ(e5["cells"]["W(x)"], "0:w(x)_3");
  EXPECT_EQ(e5["cells"]["races"], "(e3,e5)");
  EXPECT_EQ(doc["races"][0]["first"], 3);
  EXPECT_EQ(doc["races"][0]["second"], 5);
  EXPECT_EQ(doc["race_count"], 1);
}

TEST(AnnotateCommand, UnknownEngineListsTheAnnotatingOnes) {
  int code = 0;
  const std::string out =
      run_cli("annotate -e no-such-engine " + std::string(RACEPRED_EXAMPLES_DIR) +
                  "/hb/sets_race_detected.std",
              &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find("unknown engine 'no-such-engine'"), std::string::npos) << out;
  for (const char* engine : {"hb", "hb-sets", "hb-pairs", "tsan1"})
    EXPECT_NE(out.find(engine), std::string::npos) << out;
}

TEST(AnnotateCommand, NoRaceExitsZero) {
  int code = 0;
  const std::string out = run_cli(
      "annotate -e hb " + std::string(RACEPRED_EXAMPLES_DIR) + "/hb/sets_race_not_detected.std",
      &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("hb: no race"), std::string::npos) << out;
}

}  // namespace
}  // namespace racepred
