// Text and JSON report writers (docs/CLI.md, schema racepred/2) over the findings model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "racepred/io/reader.hpp"
#include "racepred/report/writers.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using nlohmann::json;

// Events: 1 T1 w(x)@A, 2 T2 r(x)@B, 3 T2 w(x)@B, 4 T3 w(y)@C, 5 T1 w(y)@D.
const char* const kTrace = "T1|w(x)|A\nT2|r(x)|B\nT2|w(x)|B\nT3|w(y)|C\n# comment\nT1|w(y)|D\n";

struct Fixture {
  Trace trace = parse_trace(kTrace, {}, "t.std");
  Access at(EventId id) const { return Access::of(id, trace.events[trace.index_of(id)]); }
  Race race(EventId first, EventId second) const {
    return Race{at(first), at(second), trace.events[trace.index_of(second)].target};
  }
  Report report(const std::vector<EngineReport>& results) const {
    Report r;
    r.trace = TraceInfo{"t.std",
                        5,
                        trace.symbols.threads.size(),
                        trace.symbols.variables.size(),
                        trace.symbols.locks.size(),
                        2,
                        ""};
    r.symbols = &trace.symbols;
    r.results = results;
    return r;
  }
};

TEST(JsonReport, FieldsMatchTheSchema) {
  Fixture f;
  RaceSink sink;
  sink.report(f.race(1, 3));
  sink.report(f.race(1, 2));
  // An engine that knows only the later event: first = kNoEvent.
  sink.report(Race{Access{kNoEvent, 0, 0, Op::Read}, f.at(5), f.race(4, 5).variable});
  sink.finalize();
  RaceSink empty;
  empty.finalize();
  const Report report = f.report({{"lockset", &sink, 0.5}, {"other", &empty, 0.0}});

  std::ostringstream out;
  write_json_report(out, report);
  const json j = json::parse(out.str());
  EXPECT_EQ(j["schema"], "racepred/2");
  const json& t = j["trace"];
  EXPECT_EQ(t["path"], "t.std");
  EXPECT_EQ(t["events"], 5);
  EXPECT_EQ(t["threads"], 3);
  EXPECT_EQ(t["variables"], 2);
  EXPECT_EQ(t["locks"], 0);
  EXPECT_EQ(t["skipped_events"], 2);
  ASSERT_EQ(j["results"].size(), 2u);

  const json& r = j["results"][0];
  EXPECT_EQ(r["engine"], "lockset");
  ASSERT_EQ(r["findings"].size(), 3u);
  for (const json& finding : r["findings"]) {
    EXPECT_EQ(finding["kind"], "data-race");
    EXPECT_EQ(finding["count"], 1);
  }
  // Sorted by (first, second), with null first first.
  const json& unknown = r["findings"][0];
  EXPECT_TRUE(unknown["first"].is_null());
  EXPECT_EQ(unknown["second"], 5);
  EXPECT_EQ(unknown["variable"], "y");
  EXPECT_TRUE(unknown["access"].is_null());
  EXPECT_TRUE(unknown["first_thread"].is_null());
  EXPECT_EQ(unknown["second_thread"], "T1");
  EXPECT_TRUE(unknown["first_location"].is_null());
  EXPECT_EQ(unknown["second_location"], "D");
  const json& wr = r["findings"][1];
  EXPECT_EQ(wr["first"], 1);
  EXPECT_EQ(wr["second"], 2);
  EXPECT_EQ(wr["variable"], "x");
  EXPECT_EQ(wr["access"], "write-read");
  EXPECT_EQ(wr["first_thread"], "T1");
  EXPECT_EQ(wr["second_thread"], "T2");
  EXPECT_EQ(wr["first_location"], "A");
  EXPECT_EQ(wr["second_location"], "B");
  EXPECT_EQ(r["findings"][2]["access"], "write-write");
  EXPECT_EQ(r["counts"], json::parse(R"({"data-race": 3, "read-read-violation": 0,
                                         "deadlock": 0, "failure": 0})"));
  EXPECT_EQ(r["race_count"], 3);
  EXPECT_EQ(r["location_pair_count"], 2);  // (A, B) twice and (unknown, D)
  EXPECT_FALSE(r.contains("location_pair_count_is_lower_bound"));
  EXPECT_EQ(r["racy_events"], json::array({2, 3, 5}));
  EXPECT_EQ(r["racy_event_count"], 3);
  EXPECT_EQ(r["racy_locations"], json::array({"B", "D"}));
  EXPECT_EQ(r["truncated"], false);
  EXPECT_DOUBLE_EQ(r["seconds"].get<double>(), 0.5);
  EXPECT_EQ(r["extras"], json::object());

  const json& e = j["results"][1];
  EXPECT_EQ(e["engine"], "other");
  EXPECT_TRUE(e["findings"].is_array() && e["findings"].empty());
  EXPECT_EQ(e["race_count"], 0);
  EXPECT_TRUE(e["racy_events"].is_array() && e["racy_events"].empty());
  EXPECT_TRUE(e["racy_locations"].is_array() && e["racy_locations"].empty());

  // Keys in the order docs/CLI.md lists them.
  std::vector<std::string> keys;
  const nlohmann::ordered_json ordered = json_report(report);
  for (const auto& item : ordered["results"][0].items()) keys.push_back(item.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"engine", "confidence", "first_race_claim", "findings",
                                      "counts", "race_count", "location_pair_count", "racy_events",
                                      "racy_event_count", "racy_locations", "racy_location_count",
                                      "truncated", "first_detected", "seconds", "extras"}));
}

TEST(JsonReport, ReadWriteKindAndTruncation) {
  Fixture f;
  RaceSink sink(1);
  sink.report(f.race(2, 3));  // read then write: same thread, but the writer does not care
  sink.report(f.race(1, 3));
  sink.add_uncounted_races(4);
  sink.finalize();
  const json j = json_report(f.report({{"e", &sink, 0}}));
  const json& r = j["results"][0];
  ASSERT_EQ(r["findings"].size(), 1u);
  EXPECT_EQ(r["findings"][0]["first"], 1);
  EXPECT_EQ(r["race_count"], 6);
  EXPECT_EQ(r["truncated"], true);
  EXPECT_EQ(r["location_pair_count_is_lower_bound"], true);  // 4 races without their locations
  RaceSink rw;
  rw.report(f.race(2, 3));
  rw.finalize();
  EXPECT_EQ(json_report(f.report({{"e", &rw, 0}}))["results"][0]["findings"][0]["access"],
            "read-write");
}

TEST(JsonReport, InvalidUtf8NamesDoNotFail) {
  const Trace trace = parse_trace("T\xff|w(x)|L\xfe\nT2|w(x)|L\n");
  RaceSink sink;
  sink.report(Race{Access::of(1, trace.events[0]), Access::of(2, trace.events[1]), 0});
  sink.finalize();
  Report report;
  report.symbols = &trace.symbols;
  report.results = {{"e", &sink, 0}};
  std::ostringstream out;
  write_json_report(out, report);
  EXPECT_NO_THROW(json::parse(out.str()));
}

TEST(TextReport, BlocksPerLocationPairAndSummary) {
  Fixture f;
  RaceSink sink;
  sink.report(f.race(1, 2));  // A → B
  sink.report(f.race(1, 3));  // A → B again
  sink.report(f.race(4, 5));  // C → D
  sink.finalize();
  const Report report = f.report({{"lockset", &sink, 0.25}});
  std::ostringstream out;
  write_text_report(out, report);
  const std::string text = out.str();
  const std::string fp_ab = report_fingerprint(report, Finding::of_race(f.race(1, 2)));
  const std::string fp_cd = report_fingerprint(report, Finding::of_race(f.race(4, 5)));
  EXPECT_NE(fp_ab, fp_cd);
  EXPECT_EQ(
      text,
      "==================\n"
      "WARNING: data race (engine lockset, possible)\n"
      "  Read of x by thread T2 at B (event 2)\n"
      "  Previous write of x by thread T1 at A (event 1)\n"
      "  2 races at this pair of locations (A, B); the first detected is shown\n"
      "  Possible: this engine's heuristic flags the pair, but it may be a false alarm.\n"
      "  Fingerprint: " +
          fp_ab +
          "\n"
          "==================\n"
          "WARNING: data race (engine lockset, possible)\n"
          "  Write of y by thread T1 at D (event 5)\n"
          "  Previous write of y by thread T3 at C (event 4)\n"
          "  1 race at this pair of locations (C, D)\n"
          "  Possible: this engine's heuristic flags the pair, but it may be a false "
          "alarm.\n"
          "  Fingerprint: " +
          fp_cd +
          "\n"
          "==================\n"
          "SUMMARY: racepred: 3 races (3 racy events, 2 racy locations) with engine lockset "
          "in t.std (5 events, 0.250 s)\n"
          "SUMMARY: racepred: 2 distinct races by pair of locations (0 observed, 0 witnessed, 0 "
          "predicted, 2 "
          "possible) in t.std; engine: lockset (possible)\n");
}

// An engine whose guarantee is about its first race labels that race predicted, the others
// possible; the race is the earliest racy event with its latest partner.
TEST(TextReport, FirstRaceClaimLabelsTheRaceItIsAbout) {
  Fixture f;
  RaceSink sink;
  sink.report(f.race(1, 3));  // event 3's partners: 1 (A) and 2 (B, same thread: a made-up
  sink.report(f.race(2, 3));  // pair, the writer does not check); the claim is about (2,3)
  sink.report(f.race(4, 5));
  sink.finalize();
  std::ostringstream out;
  write_text_report(out, f.report({{"hb", &sink, 0, {}, true}}));
  const std::string text = out.str();
  EXPECT_NE(text.find("WARNING: data race (engine hb, predicted)\n"
                      "  Write of x by thread T2 at B (event 3)\n"
                      "  Previous read of x by thread T2 at B (event 2)\n"
                      "  1 race at this pair of locations (B, B)\n"
                      "  Predicted (sound engine): another schedule of this run, with every read "
                      "seeing the same write, runs the two accesses concurrently (--witness builds "
                      "and checks it).\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("WARNING: data race (engine hb, possible)\n"
                      "  Write of x by thread T2 at B (event 3)\n"
                      "  Previous write of x by thread T1 at A (event 1)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("WARNING: data race (engine hb, possible)\n"
                      "  Write of y by thread T1 at D (event 5)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          "SUMMARY: racepred: 3 distinct races by pair of locations (0 observed, 0 witnessed, 1 "
          "predicted, 2 possible) in t.std; engine: hb (first race predicted, "
          "others possible)\n"),
      std::string::npos)
      << text;
  const json j = json_report(f.report({{"hb", &sink, 0, {}, true}}));
  const json& r = j["results"][0];
  EXPECT_EQ(r["confidence"], "possible");
  EXPECT_EQ(r["first_race_claim"], true);
  ASSERT_EQ(r["findings"].size(), 3u);
  EXPECT_EQ(r["findings"][0]["confidence"], "possible");   // (1,3)
  EXPECT_EQ(r["findings"][1]["confidence"], "predicted");  // (2,3)
  EXPECT_EQ(r["findings"][2]["confidence"], "possible");   // (4,5)
  EXPECT_EQ(r["first_detected"]["first"], 1);  // detected first, but not the claim's race
  EXPECT_EQ(r["first_detected"]["confidence"], "possible");

  // When --max-races cut the partners of the first racy event, the race cannot be named.
  RaceSink cut(1);
  cut.report(f.race(1, 3));
  cut.report(f.race(2, 3));
  cut.finalize();
  std::ostringstream cut_out;
  write_text_report(cut_out, f.report({{"hb", &cut, 0, {}, true}}));
  EXPECT_EQ(cut_out.str().find("predicted)"), std::string::npos) << cut_out.str();
}

// A sound engine labels every block; a failure is real.
TEST(TextReport, SoundEnginesLabelEveryBlock) {
  Fixture f;
  RaceSink sink;
  sink.report(f.race(1, 2));
  sink.report(f.race(4, 5));
  sink.finalize();
  EngineReport shb{"shb", &sink, 0};
  shb.confidence = Confidence::Predicted;
  EngineReport adjacent{"adjacent", &sink, 0};
  adjacent.confidence = Confidence::Observed;
  std::ostringstream out;
  write_text_report(out, f.report({shb, adjacent}));
  const std::string text = out.str();
  size_t predicted = 0, real = 0;
  for (size_t p = text.find("(engine shb, predicted)"); p != std::string::npos;
       p = text.find("(engine shb, predicted)", p + 1))
    ++predicted;
  for (size_t p = text.find("(engine adjacent, observed)"); p != std::string::npos;
       p = text.find("(engine adjacent, observed)", p + 1))
    ++real;
  EXPECT_EQ(predicted, 2u) << text;
  EXPECT_EQ(real, 2u) << text;
  EXPECT_NE(text.find("  Observed: the two accesses ran back to back in the recorded run, with "
                      "nothing ordering them.\n"),
            std::string::npos)
      << text;
}

// Several engines: the distinct races by unordered pair of locations, the engines that found
// each with their labels, one combined SUMMARY line; JSON "combined" says the same.
TEST(TextReport, CombinedSummaryOfSeveralEngines) {
  Fixture f;
  RaceSink shb_sink;
  shb_sink.report(f.race(1, 2));  // (A, B)
  shb_sink.finalize();
  RaceSink lockset_sink;
  lockset_sink.report(f.race(1, 2));  // (A, B) again
  lockset_sink.report(f.race(1, 3));  // (A, B) a third time
  lockset_sink.report(f.race(4, 5));  // (C, D)
  lockset_sink.finalize();
  RaceSink none;
  none.finalize();
  EngineReport shb{"shb", &shb_sink, 0};
  shb.confidence = Confidence::Predicted;
  const Report report =
      f.report({shb, {"lockset", &lockset_sink, 0}, {"fasttrack", &none, 0, {}, true}});
  std::ostringstream out;
  write_text_report(out, report);
  const std::string text = out.str();
  const size_t distinct = text.find(
      "Distinct races (by pair of locations) and the engines that "
      "report them:\n"
      "  x at A and B: predicted; found by shb (predicted), lockset "
      "(possible)\n"
      "  y at C and D: possible; found by lockset (possible)\n"
      "SUMMARY: racepred: 2 distinct races by pair of locations (0 "
      "observed, 0 witnessed, 1 predicted, 1 possible) in t.std; engines: shb "
      "(predicted), lockset (possible), fasttrack (first race "
      "predicted, others possible)\n");
  ASSERT_NE(distinct, std::string::npos) << text;
  EXPECT_LT(text.rfind("with engine fasttrack"), distinct) << "after the engines' SUMMARY lines";
  EXPECT_EQ(text.size(), text.find('\n', text.rfind("SUMMARY")) + 1) << "the last line";

  const json j = json_report(report);
  const json& c = j["combined"];
  EXPECT_EQ(c["unit"], "location-pair");
  EXPECT_EQ(c["distinct_races"], 2);
  EXPECT_EQ(c["complete"], true);
  EXPECT_EQ(c["counts"],
            json::parse(R"({"observed": 0, "witnessed": 0, "predicted": 1, "possible": 1})"));
  ASSERT_EQ(c["races"].size(), 2u);
  EXPECT_EQ(c["races"][0], json::parse(R"({
    "variable": "x", "first_location": "A", "second_location": "B", "confidence": "predicted",
    "engines": [{"engine": "shb", "confidence": "predicted", "count": 1, "first": 1, "second": 2},
                {"engine": "lockset", "confidence": "possible", "count": 2, "first": 1,
                 "second": 2}]})"));
  EXPECT_EQ(c["races"][1]["engines"].size(), 1u);
  EXPECT_EQ(c["races"][1]["confidence"], "possible");
  EXPECT_EQ(j["results"][0]["confidence"], "predicted");
  EXPECT_EQ(j["results"][0]["findings"][0]["confidence"], "predicted");
  EXPECT_EQ(j["results"][1]["findings"][0]["confidence"], "possible");

  // A cut race list makes the count a lower bound.
  RaceSink cut(1);
  cut.report(f.race(1, 2));
  cut.report(f.race(4, 5));
  cut.finalize();
  std::ostringstream cut_text;
  write_text_report(cut_text, f.report({{"lockset", &cut, 0}}));
  EXPECT_NE(cut_text.str().find("SUMMARY: racepred: at least 1 distinct race by pair"),
            std::string::npos)
      << cut_text.str();
  EXPECT_EQ(json_report(f.report({{"lockset", &cut, 0}}))["combined"]["complete"], false);
}

TEST(TextReport, NoRacesUnknownFirstAndTruncation) {
  Fixture f;
  RaceSink none;
  none.finalize();
  RaceSink partial(1);
  partial.report(Race{Access{kNoEvent, 0, 0, Op::Read}, f.at(3), 0});
  partial.report(Race{Access{kNoEvent, 0, 0, Op::Read}, f.at(5), 1});
  partial.finalize();
  const Report report = f.report({{"hb", &none, 0}, {"djit", &partial, 0}});
  std::ostringstream out;
  write_text_report(out, report);
  const std::string text = out.str();
  EXPECT_NE(text.find("WARNING: data race (engine djit, possible)\n"
                      "  Write of x by thread T2 at B (event 3)\n"
                      "  Previous access: not known (engine djit reports the later access of "
                      "each race)\n"
                      "  1 race listed at location B\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("note: engine djit lists the first 1 of 2 races (--max-races 1); the "
                      "SUMMARY counts all races\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SUMMARY: racepred: 0 races (0 racy events, 0 racy locations) with engine "
                      "hb in t.std (5 events, 0.000 s)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SUMMARY: racepred: 2 races (2 racy events, 2 racy locations) with engine "
                      "djit"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("engine hb,"), std::string::npos) << "no block for an engine without races";
}

TEST(TextReport, OneSeparatorBetweenBlocksOfSeveralEngines) {
  Fixture f;
  RaceSink a;
  a.report(f.race(1, 2));
  a.finalize();
  RaceSink b;
  b.report(f.race(4, 5));
  b.finalize();
  std::ostringstream out;
  write_text_report(out, f.report({{"one", &a, 0}, {"two", &b, 0}}));
  const std::string text = out.str();
  const std::string separator = "==================\n";
  EXPECT_EQ(text.find(separator + separator), std::string::npos) << text;
  EXPECT_EQ(text.rfind(separator, 0), 0u) << text;
  size_t separators = 0;
  for (size_t pos = text.find(separator); pos != std::string::npos;
       pos = text.find(separator, pos + 1))
    ++separators;
  EXPECT_EQ(separators, 3u) << text;
  EXPECT_LT(text.find("(engine one, possible)"), text.find("(engine two, possible)"));
  EXPECT_LT(text.find("SUMMARY: racepred: 1 race (1 racy event, 1 racy location) with engine one"),
            text.find("SUMMARY: racepred: 1 race (1 racy event, 1 racy location) with engine two"));
}

// Events: 1 T1 acq(m)@A, 2 T1 acq(n)@B, 3 T1 rel(n)@B, 4 T1 rel(m)@A, 5 T2 acq(n)@C,
// 6 T2 acq(m)@D, 7 T2 rel(m)@D, 8 T2 rel(n)@C. The ABBA pattern: T1 holds m and requests n, T2
// holds n and requests m.
const char* const kLockTrace =
    "T1|acq(m)|A\nT1|acq(n)|B\nT1|rel(n)|B\nT1|rel(m)|A\n"
    "T2|acq(n)|C\nT2|acq(m)|D\nT2|rel(m)|D\nT2|rel(n)|C\n";

struct LockFixture {
  Trace trace = parse_trace(kLockTrace, {}, "abba.std");
  ThreadId thread(std::string_view name) const { return *trace.symbols.threads.find(name); }
  LockId lock(std::string_view name) const { return *trace.symbols.locks.find(name); }
  LocationId location(std::string_view name) const { return *trace.symbols.locations.find(name); }

  Finding deadlock() const {
    Deadlock d;
    d.cycle.push_back(DeadlockStep{thread("T1"),
                                   {HeldLock{lock("m"), thread("T1"), false, 1, location("A")}},
                                   lock("n"),
                                   2,
                                   location("B")});
    d.cycle.push_back(DeadlockStep{thread("T2"),
                                   {HeldLock{lock("n"), thread("T2"), false, 5, location("C")}},
                                   lock("m"),
                                   6,
                                   location("D")});
    d.witness = {1, 5};
    return Finding::of_deadlock(std::move(d));
  }
  Finding crash() const {
    Failure f;
    f.kind = FailureKind::Crash;
    f.signal = 11;
    f.message = "SEGV on address 0x0";
    f.has_thread = true;
    f.thread = thread("T2");
    f.location = location("D");
    f.schedule.replay_file = "crash.replay";
    f.schedule.choices = {thread("T1"), thread("T2"), thread("T2")};
    Finding finding = Finding::of_failure(std::move(f));
    finding.count = 3;
    return finding;
  }
  Finding assertion() const {
    Failure f;
    f.kind = FailureKind::Assertion;
    f.message = "assert(balance >= 0)";
    return Finding::of_failure(std::move(f));
  }
  Report report(const RaceSink& sink) const {
    Report r;
    r.trace = TraceInfo{"abba.std", 8, 2, 0, 2, 0, ""};
    r.symbols = &trace.symbols;
    r.results = {{"lockorder", &sink, 0.5}};
    return r;
  }
};

TEST(FindingText, DeadlockCycleWithLocksHeldAndWitness) {
  const LockFixture f;
  std::ostringstream out;
  write_text_finding(out, f.trace.symbols, f.deadlock(), "lockorder");
  EXPECT_EQ(out.str(),
            "WARNING: deadlock (engine lockorder): a cycle of 2 threads\n"
            "  Cycle in lock order graph: m => n => m\n"
            "  Thread T1 holds m (acquired at A, event 1) and requests n at B (event 2)\n"
            "  Thread T2 holds n (acquired at C, event 5) and requests m at D (event 6)\n"
            "  Witness: 2 events: 1 5\n");
}

TEST(FindingText, FailuresWithSignalLocationAndSchedule) {
  const LockFixture f;
  std::ostringstream crash;
  write_text_finding(crash, f.trace.symbols, f.crash(), "explore");
  EXPECT_EQ(crash.str(),
            "WARNING: program failure (engine explore): crash (signal 11), 3 times\n"
            "  SEGV on address 0x0\n"
            "  In thread T2 at D\n"
            "  Replay: crash.replay\n"
            "  Schedule: T1 T2 T2\n");
  std::ostringstream assertion;
  write_text_finding(assertion, f.trace.symbols, f.assertion(), "explore");
  EXPECT_EQ(assertion.str(),
            "WARNING: program failure (engine explore): assertion\n"
            "  assert(balance >= 0)\n");
}

TEST(FindingJson, DeadlockFields) {
  const LockFixture f;
  const json j = finding_json(f.trace.symbols, f.deadlock());
  EXPECT_EQ(j, json::parse(R"({
    "kind": "deadlock", "count": 1,
    "cycle": [
      {"thread": "T1", "held": [{"lock": "m", "thread": "T1", "acquired": 1, "location": "A"}],
       "requested": "n", "event": 2, "location": "B"},
      {"thread": "T2", "held": [{"lock": "n", "thread": "T2", "acquired": 5, "location": "C"}],
       "requested": "m", "event": 6, "location": "D"}],
    "witness": [1, 5]})"));
}

TEST(FindingJson, FailureFields) {
  const LockFixture f;
  EXPECT_EQ(json(finding_json(f.trace.symbols, f.crash())), json::parse(R"({
    "kind": "failure", "count": 3, "failure": "crash", "signal": 11,
    "message": "SEGV on address 0x0", "thread": "T2", "location": "D",
    "schedule": {"replay_file": "crash.replay", "choices": ["T1", "T2", "T2"]}})"));
  EXPECT_EQ(json(finding_json(f.trace.symbols, f.assertion())), json::parse(R"js({
    "kind": "failure", "count": 1, "failure": "assertion", "signal": null,
    "message": "assert(balance >= 0)", "thread": null, "location": null,
    "schedule": {"replay_file": null, "choices": []}})js"));
}

// Findings beside races in a whole report: counted per kind, listed, and a deadlock or a failure
// makes the run fail like a race.
TEST(FindingReport, DeadlocksAndFailuresInTextAndJsonReports) {
  const LockFixture f;
  RaceSink sink;
  sink.add_finding(f.deadlock());
  sink.add_finding(f.crash());
  sink.finalize();
  EXPECT_EQ(sink.count(FindingKind::Deadlock), 1u);
  EXPECT_EQ(sink.count(FindingKind::Failure), 1u);
  EXPECT_EQ(sink.count(FindingKind::DataRace), 0u);
  EXPECT_TRUE(sink.any_failing());

  std::ostringstream text;
  write_text_report(text, f.report(sink));
  EXPECT_NE(text.str().find("==================\nWARNING: deadlock (engine lockorder, possible)"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("==================\nWARNING: program failure (engine lockorder, "
                            "observed)"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("SUMMARY: racepred: 0 races and 1 deadlock and 1 program failure (0 "
                            "racy events, 0 racy locations) with engine lockorder"),
            std::string::npos)
      << text.str();

  const json j = json_report(f.report(sink));
  const json& r = j["results"][0];
  ASSERT_EQ(r["findings"].size(), 2u);
  EXPECT_EQ(r["findings"][0]["kind"], "deadlock");
  EXPECT_EQ(r["findings"][1]["kind"], "failure");
  EXPECT_EQ(r["counts"], json::parse(R"({"data-race": 0, "read-read-violation": 0,
                                         "deadlock": 1, "failure": 1})"));
}

// An engine's own statistics and per-race locks come from its extras, printed generically.
TEST(FindingReport, EngineExtrasArePrintedGenerically) {
  const Trace trace = parse_trace("T1|racq(L)|A\nT1|w(x)|A\nT1|rrel(L)|A\nT2|w(x)|B\n");
  RaceSink sink;
  sink.report(Race{Access::of(2, trace.events[1]), Access::of(4, trace.events[3]), 0});
  sink.finalize();
  EngineExtras& x = sink.extras();
  x.stats = {{"widgets", "widgets", "widget", "widgets", 1},
             {"gadgets", "gadgets", "gadget", "gadgets", 2}};
  x.locks_key = "guard_locks";
  x.locks_text = "Guard locks";
  x.race_locks[{2, 4}] = RaceLocks{{HeldLock{0, 0, true}}, {}};
  Report report;
  report.symbols = &trace.symbols;
  report.results = {{"e", &sink, 0}};
  std::ostringstream text;
  write_text_report(text, report);
  EXPECT_NE(text.str().find("  Guard locks: previous access L held in read mode by T1; access "
                            "none\n"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("note: engine e: 1 widget, 2 gadgets\n"), std::string::npos)
      << text.str();
  const json r = json_report(report)["results"][0];
  EXPECT_EQ(r["extras"], json::parse(R"({"widgets": 1, "gadgets": 2})"));
  EXPECT_EQ(r["findings"][0]["guard_locks"],
            json::parse(R"({"first": [{"lock": "L", "thread": "T1", "mode": "read"}],
                            "second": []})"));
}

// Read-read pairs an engine counted in its extras are their own kind: not data races, and alone
// they do not fail the run.
TEST(FindingReport, ReadReadViolationsAreTheirOwnKind) {
  const Trace trace = parse_trace("T1|r(x)|A\nT2|r(x)|B\n");
  RaceSink sink;
  sink.report(Race{Access::of(1, trace.events[0]), Access::of(2, trace.events[1]), 0});
  sink.extras().read_read_pairs = 1;
  sink.finalize();
  EXPECT_EQ(sink.count(FindingKind::ReadReadViolation), 1u);
  EXPECT_EQ(sink.count(FindingKind::DataRace), 0u);
  EXPECT_FALSE(sink.any_failing());
  Report report;
  report.symbols = &trace.symbols;
  report.results = {{"goldilocks", &sink, 0}};
  const json r = json_report(report)["results"][0];
  EXPECT_EQ(r["findings"][0]["kind"], "read-read-violation");
  EXPECT_EQ(r["findings"][0]["access"], "read-read");
  EXPECT_EQ(r["counts"]["read-read-violation"], 1);
  EXPECT_EQ(r["race_count"], 1);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred

namespace racepred {
namespace RACEPRED_TEST_FILE {

// A recorded trace with call stacks (record --stack-depth): T0 creates T1 and T2 in start(),
// called from main(); T1 writes x in bump() called from left() while holding m, T2 reads it in
// bump() called from right().
struct StackFixture {
  Trace trace = parse_trace(
      "T0|fork(T1)|m.c:30:3 (start)\n"
      "T0|fork(T2)|m.c:31:3 (start)\n"
      "T1|acq(m)|m.c:10:3 (left)\n"
      "T1|w(x)|m.c:5:7 (bump)\n"
      "T1|rel(m)|m.c:12:3 (left)\n"
      "T2|r(x)|m.c:5:7 (bump)\n",
      {}, "t.rpt");
  StackFixture() {
    Symbols& s = trace.symbols;
    auto loc = [&](const char* name) { return s.locations.intern(name); };
    s.stacks.frames = {
        {},
        {loc("m.c:30:3 (start)"), loc("m.c:40:3 (main)")},
        {loc("m.c:31:3 (start)"), loc("m.c:40:3 (main)")},
        {loc("m.c:10:3 (left)"), loc("m.c:20:3 (worker_left)")},
        {loc("m.c:5:7 (bump)"), loc("m.c:11:3 (left)"), loc("m.c:20:3 (worker_left)")},
        {loc("m.c:5:7 (bump)"), loc("m.c:15:3 (right)"), loc("m.c:25:3 (worker_right)")}};
    s.stacks.of_event = {0, 1, 2, 3, 4, 3, 5};
    s.stacks.created = {{}, {0, 1}, {0, 2}};
  }
  Race race() const {
    return Race{Access::of(4, trace.events[3]), Access::of(6, trace.events[5]),
                trace.events[3].target};
  }
  RaceLocks locks() const {
    RaceLocks l;
    l.first.push_back(HeldLock{0, 1, false, 3, trace.events[2].location});
    return l;
  }
};

TEST(TextReport, RaceWithStacksHasThreadSanitizersLayout) {
  const StackFixture f;
  const RaceLocks locks = f.locks();
  std::ostringstream out;
  write_text_finding(out, f.trace.symbols, Finding::of_race(f.race(), 2, &locks), "fasttrack");
  EXPECT_EQ(out.str(),
            "WARNING: racepred: data race (engine fasttrack)\n"
            "  Read of x by thread T2 (event 6):\n"
            "    #0 bump m.c:5:7\n"
            "    #1 right m.c:15:3\n"
            "    #2 worker_right m.c:25:3\n"
            "\n"
            "  Previous write of x by thread T1 (event 4):\n"
            "    #0 bump m.c:5:7\n"
            "    #1 left m.c:11:3\n"
            "    #2 worker_left m.c:20:3\n"
            "  Mutex m held by thread T1 acquired at (event 3):\n"
            "    #0 left m.c:10:3\n"
            "    #1 worker_left m.c:20:3\n"
            "\n"
            "  Thread T2 created by main thread at:\n"
            "    #0 start m.c:31:3\n"
            "    #1 main m.c:40:3\n"
            "\n"
            "  Thread T1 created by main thread at:\n"
            "    #0 start m.c:30:3\n"
            "    #1 main m.c:40:3\n"
            "\n"
            "  2 races at this pair of locations; the first detected is shown\n"
            "  SUMMARY: racepred: data race m.c:5:7 in bump\n");
}

TEST(JsonReport, RaceWithStacksCarriesStacksLockSitesAndCreationSites) {
  const StackFixture f;
  const RaceLocks locks = f.locks();
  const json j =
      json::parse(finding_json(f.trace.symbols, Finding::of_race(f.race(), 1, &locks)).dump());
  EXPECT_EQ(j["second_stack"],
            json::parse(R"([{"function":"bump","location":"m.c:5:7"},)"
                        R"({"function":"right","location":"m.c:15:3"},)"
                        R"({"function":"worker_right","location":"m.c:25:3"}])"));
  ASSERT_EQ(j["first_stack"].size(), 3u);
  EXPECT_EQ(j["first_stack"][1]["function"], "left");
  EXPECT_EQ(j["locks"]["first"][0]["stack"][0]["location"], "m.c:10:3");
  ASSERT_EQ(j["threads"].size(), 2u);
  EXPECT_EQ(j["threads"][0]["thread"], "T2");
  EXPECT_EQ(j["threads"][0]["created_by"], "T0");
  EXPECT_EQ(j["threads"][0]["created_at"][0]["location"], "m.c:31:3");
  EXPECT_EQ(j["threads"][1]["created_at"][1]["function"], "main");
}

// Without stacks (every format but a trace recorded with --stack-depth) nothing changes.
TEST(TextReport, RaceWithoutStacksKeepsTheOneLocationForm) {
  StackFixture f;
  f.trace.symbols.stacks = Stacks{};
  std::ostringstream out;
  write_text_finding(out, f.trace.symbols, Finding::of_race(f.race()), "fasttrack");
  EXPECT_EQ(out.str(),
            "WARNING: data race (engine fasttrack)\n"
            "  Read of x by thread T2 at m.c:5:7 (bump) (event 6)\n"
            "  Previous write of x by thread T1 at m.c:5:7 (bump) (event 4)\n"
            "  1 race at this pair of locations (m.c:5:7 (bump), m.c:5:7 (bump))\n");
  const json j = json::parse(finding_json(f.trace.symbols, Finding::of_race(f.race())).dump());
  EXPECT_FALSE(j.contains("first_stack"));
  EXPECT_FALSE(j.contains("threads"));
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
