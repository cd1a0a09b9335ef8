// `racepred analyze` end to end through the CLI binary (RACEPRED_BINARY): exit codes, text and
// JSON output, errors, and every public trace under tests/data.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "racepred/io/reader.hpp"
#include "racepred/trace/validator.hpp"
#include "support/cli_run.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

namespace fs = std::filesystem;
using nlohmann::json;

// The shared runner (support/cli_run.hpp) under the names these tests use.
struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};
using testing::shell_quote;
std::string quote(const std::string& s) {
  return shell_quote(s);
}

// Runs the binary with `args` (already quoted as needed); stdin from `input` if given.
CliRun racepred(const std::string& args, const std::string& input = "") {
  std::optional<testing::TempFile> in;
  if (!input.empty()) in.emplace(input, ".in");
  const testing::CliResult r = testing::run_racepred(args, in ? in->path() : "");
  return {r.code, r.out, r.err};
}

std::string example(const std::string& name) {
  return quote(std::string(RACEPRED_EXAMPLES_DIR) + "/" + name);
}

TEST(AnalyzeCli, RacesGiveExitOneAndATextReport) {
  const CliRun r = racepred("analyze -e shb,lockset " + example("lockset/trace_a.std"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("WARNING: data race (engine lockset, possible)\n"
                       "  Write of x by thread T2 at e5 (event 5)\n"
                       "  Previous write of x by thread T1 at e1 (event 1)\n"
                       "  1 race at this pair of locations (e1, e5)\n"
                       "  Possible: this engine's heuristic flags the pair, but it may be a false "
                       "alarm.\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("SUMMARY: racepred: 1 race (1 racy event, 1 racy location) with engine "
                       "lockset in "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("trace_a.std (6 events, "), std::string::npos) << r.out;
  // The last line: the combined summary with every engine's label.
  const std::string summary = r.out.substr(r.out.rfind("SUMMARY:"));
  EXPECT_EQ(
      summary.rfind(
          "SUMMARY: racepred: 1 distinct race by pair of locations (0 observed, 0 witnessed, 0 "
          "predicted, 1 possible) in ",
          0),
      0u)
      << r.out;
  EXPECT_NE(summary.find("trace_a.std; engines: shb (predicted), lockset (possible)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  x at e1 and e5: possible; found by lockset (possible)\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.err, "");
}

// The default engine set reports only predicted races: on the correctly synchronised counter
// program (mutex-protected increments, read by main after joining) it reports nothing, where
// lockset cries wolf; on the variant whose second thread forgets the mutex it reports the race.
TEST(AnalyzeCli, DefaultReportsOnlyPredictedRaces) {
  const CliRun ok = racepred("analyze " + example("default/mutex_counter.std"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out.find("WARNING"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("with engine shb in "), std::string::npos) << ok.out;
  EXPECT_NE(
      ok.out.find(
          "SUMMARY: racepred: 0 distinct races by pair of locations (0 observed, 0 witnessed, 0 "
          "predicted, 0 possible) in "),
      std::string::npos)
      << ok.out;
  EXPECT_NE(ok.out.find("; engine: shb (predicted)\n"), std::string::npos) << ok.out;
  // lockset, asked for, warns: every warning labelled possible.
  const CliRun wolf = racepred("analyze -e lockset " + example("default/mutex_counter.std"));
  EXPECT_EQ(wolf.exit_code, 1);
  EXPECT_NE(wolf.out.find("WARNING: data race (engine lockset, possible)"), std::string::npos);
  EXPECT_EQ(wolf.out.find("predicted)"), std::string::npos) << wolf.out;

  const CliRun racy = racepred("analyze " + example("default/racy_counter.std"));
  EXPECT_EQ(racy.exit_code, 1) << racy.err;
  EXPECT_NE(racy.out.find("WARNING: data race (engine shb, predicted)"), std::string::npos)
      << racy.out;
  EXPECT_EQ(racy.out.find(", possible)"), std::string::npos) << racy.out;
  // Every block is labelled: as many label sentences as WARNING lines.
  size_t warnings = 0, sentences = 0;
  for (size_t p = racy.out.find("WARNING: "); p != std::string::npos;
       p = racy.out.find("WARNING: ", p + 1))
    ++warnings;
  for (size_t p = racy.out.find("  Predicted (sound engine): "); p != std::string::npos;
       p = racy.out.find("  Predicted (sound engine): ", p + 1))
    ++sentences;
  EXPECT_GT(warnings, 0u);
  EXPECT_EQ(warnings, sentences) << racy.out;

  // JSON: the labels and the combined summary.
  const CliRun j = racepred("analyze --format json " + example("default/racy_counter.std"));
  EXPECT_EQ(j.exit_code, 1);
  const json doc = json::parse(j.out);
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_EQ(doc["results"][0]["engine"], "shb");
  EXPECT_EQ(doc["results"][0]["confidence"], "predicted");
  EXPECT_EQ(doc["results"][0]["first_race_claim"], false);
  for (const json& finding : doc["results"][0]["findings"])
    EXPECT_EQ(finding["confidence"], "predicted");
  EXPECT_GT(doc["combined"]["distinct_races"].get<uint64_t>(), 0u);
  EXPECT_EQ(doc["combined"]["counts"]["predicted"], doc["combined"]["distinct_races"]);
}

// Several engines on the racy counter: each distinct race (by pair of locations) once in the
// combined summary, with the engines that found it; the counts agree with the JSON.

// --witness: every race shb lists gets a checked witness, labelled witnessed; the file passes
// check-witness; JSON refers to it; the first race of fasttrack only; nothing for lockset.
TEST(AnalyzeCli, WitnessesAreCheckedLabelledAndWritten) {
  const testing::TempFile file("", ".json");
  const std::string trace = example("default/racy_counter.std");
  const CliRun r =
      racepred("analyze -e shb,fasttrack,lockset --witness " + file.quoted() + " " + trace);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("WARNING: data race (engine shb, witnessed)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("WARNING: data race (engine fasttrack, witnessed)\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("(engine lockset, witnessed)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  Witnessed: a schedule of this run that reaches the two accesses"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  Witness 1 in " + file.path() + ": a schedule of "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("after which both accesses are next:\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    then both are next: T1|w(counter)|main.c:8 (event 6) and "
                       "T2|r(counter)|main.c:12 (event 8)\n"),
            std::string::npos)
      << r.out;
  const CliRun check = racepred("check-witness " + trace + " " + file.quoted());
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_EQ(check.out.find("INVALID"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("witness 1 (shb): race of events 6 and 8, enabled, "), std::string::npos)
      << check.out;

  // JSON: the finding refers to the file; without a file it carries the events.
  const CliRun j = racepred("analyze --format json " + trace + " --witness=" + file.quoted());
  EXPECT_EQ(j.exit_code, 1) << j.err;
  const json doc = json::parse(j.out);
  for (const json& finding : doc["results"][0]["findings"]) {
    EXPECT_EQ(finding["confidence"], "witnessed");
    EXPECT_EQ(finding["witness"]["notion"], "enabled");
    EXPECT_EQ(finding["witness"]["file"], file.path());
    EXPECT_GE(finding["witness"]["number"].get<uint64_t>(), 1u);
  }
  EXPECT_EQ(doc["combined"]["counts"]["witnessed"], doc["combined"]["distinct_races"]);
  const CliRun inline_ = racepred("analyze --format json " + trace + " --witness");
  EXPECT_EQ(inline_.exit_code, 1) << inline_.err;
  const json doc2 = json::parse(inline_.out);
  ASSERT_FALSE(doc2["results"][0]["findings"].empty());
  const json& w = doc2["results"][0]["findings"][0]["witness"];
  EXPECT_FALSE(w.contains("file"));
  // T' is its cut's events (each thread's last one named) and then the listed prefix.
  EXPECT_EQ(w["prefix"].size() + w.value("cut", json::array()).size() > 0,
            w["events"].get<uint64_t>() > 0);

  // Not asked: the label stays predicted, no witness field.
  const CliRun plain = racepred("analyze --format json " + trace);
  const json doc3 = json::parse(plain.out);  // kept: a range-for over a temporary's member
  for (const json& finding : doc3["results"][0]["findings"]) {
    EXPECT_EQ(finding["confidence"], "predicted");
    EXPECT_FALSE(finding.contains("witness"));
  }
  // The witness file never overwrites the trace.
  const CliRun same = racepred("analyze " + trace + " --witness=" + trace);
  EXPECT_EQ(same.exit_code, 2) << same.out;
}
TEST(AnalyzeCli, CombinedSummaryCountsDistinctRacesAcrossEngines) {
  const std::string trace = example("default/racy_counter.std");
  const CliRun r = racepred("analyze -e shb,fasttrack,lockset --format json " + trace);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json doc = json::parse(r.out);
  const json& c = doc["combined"];
  // Every location pair of every engine's findings is one of the combined races, found by it.
  std::set<std::pair<std::string, std::string>> pairs;
  for (const json& res : doc["results"])
    for (const json& finding : res["findings"]) {
      std::string a = finding["first_location"], b = finding["second_location"];
      if (b < a) std::swap(a, b);
      pairs.insert({a, b});
      bool listed = false;
      for (const json& race : c["races"]) {
        std::string x = race["first_location"], y = race["second_location"];
        if (y < x) std::swap(x, y);
        if (x != a || y != b) continue;
        for (const json& found : race["engines"])
          listed = listed || found["engine"] == res["engine"];
      }
      EXPECT_TRUE(listed) << res["engine"] << " " << a << " " << b;
    }
  EXPECT_EQ(c["distinct_races"], pairs.size());
  EXPECT_EQ(c["races"].size(), pairs.size());
  EXPECT_EQ(c["complete"], true);
  uint64_t by_confidence = 0;
  for (const auto& [label, n] : c["counts"].items()) by_confidence += n.get<uint64_t>();
  EXPECT_EQ(by_confidence, pairs.size());
  // The text report prints the same number, and one line per distinct race.
  const CliRun text = racepred("analyze -e shb,fasttrack,lockset " + trace);
  EXPECT_NE(text.out.find("SUMMARY: racepred: " + std::to_string(pairs.size()) + " distinct races"),
            std::string::npos)
      << text.out;
  const size_t list = text.out.find("Distinct races (by pair of locations)");
  ASSERT_NE(list, std::string::npos) << text.out;
  size_t lines = 0;
  for (size_t p = text.out.find("\n  ", list);
       p != std::string::npos && p < text.out.rfind("SUMMARY"); p = text.out.find("\n  ", p + 1))
    ++lines;
  EXPECT_EQ(lines, pairs.size()) << text.out;
}

TEST(AnalyzeCli, NoRaceGivesExitZero) {
  const CliRun r = racepred("analyze -e lockset -",
                            "T0|w(x)|1\nT0|acq(m)|2\nT0|w(y)|3\nT0|rel(m)|4\n"
                            "T1|acq(m)|5\nT1|r(y)|6\nT1|w(y)|7\nT1|rel(m)|8\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SUMMARY: racepred: 0 races (0 racy events, 0 racy locations) with engine "
                       "lockset in - (8 events"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos);
}

TEST(AnalyzeCli, UsageAndInputErrorsGiveExitTwo) {
  const CliRun unknown = racepred("analyze -e lockset,nosuch " + example("lockset/trace_a.std"));
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown engine 'nosuch'"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("valid engines: "), std::string::npos) << unknown.err;
  EXPECT_EQ(unknown.out, "");

  const CliRun missing = racepred("analyze /nonexistent/file.std");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/file.std"), std::string::npos) << missing.err;

  const CliRun malformed = racepred("analyze -", "T0|w(x)|1\nT1|w(x|2\n");
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.err.find("<stdin>:2:"), std::string::npos) << malformed.err;
  EXPECT_NE(malformed.err.find("error:"), std::string::npos) << malformed.err;

  EXPECT_EQ(racepred("analyze --format xml " + example("lockset/trace_a.std")).exit_code, 2);
  EXPECT_EQ(racepred("analyze --max-races -3 " + example("lockset/trace_a.std")).exit_code, 2);
  EXPECT_EQ(racepred("analyze").exit_code, 2);
  EXPECT_EQ(racepred("analyze --input-format rv " + example("lockset/trace_a.std")).exit_code, 2);
}

TEST(AnalyzeCli, LenientSkipsMalformedLinesWithAWarning) {
  const CliRun r = racepred("analyze --lenient -", "T0|w(x)|1\ngarbage\nT1|w(x)|2\n");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("warning: -: skipped 1 malformed line (--lenient); first:\n  <stdin>:2:"),
            std::string::npos)
      << r.err;
}

TEST(AnalyzeCli, HelpExplainsTheOptions) {
  const CliRun r = racepred("analyze --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option :
       {"--engine", "--format", "--max-races", "--lenient", "--input-format", "TRACE", "Exit code"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option << " missing in:\n" << r.out;
}

TEST(AnalyzeCli, JsonWithMaxRacesZeroCountsButListsNothing) {
  const CliRun r =
      racepred("analyze -e lockset --format json --max-races 0 " + example("lockset/example6.std"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json j = json::parse(r.out);
  const json& res = j["results"][0];
  EXPECT_TRUE(res["findings"].empty());
  EXPECT_EQ(res["race_count"], 3);
  EXPECT_EQ(res["counts"]["data-race"], 3);
  EXPECT_TRUE(res["racy_events"].empty());  // --max-races bounds every list
  EXPECT_EQ(res["racy_event_count"], 2);
  EXPECT_EQ(res["racy_location_count"], 2);
  EXPECT_EQ(res["truncated"], true);
}

TEST(AnalyzeCli, AllRunsEveryOnlineEngine) {
  const CliRun r = racepred("analyze -e all --format json " + example("lockset/trace_a.std"));
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  const json j = json::parse(r.out);
  bool lockset = false;
  bool any = false;
  for (const json& res : j["results"]) {
    lockset = lockset || res["engine"] == "lockset";
    any = any || res["race_count"].get<uint64_t>() > 0;
  }
  EXPECT_TRUE(lockset);
  EXPECT_EQ(r.exit_code, any ? 1 : 0);
}

// Checks a racepred/2 report against its own invariants; returns the lockset result.
json check_json(const std::string& text, const std::string& path) {
  const json j = json::parse(text);
  EXPECT_EQ(j["schema"], "racepred/2");
  EXPECT_EQ(j["trace"]["path"], path);
  for (const char* key : {"events", "threads", "variables", "locks", "skipped_events"})
    EXPECT_TRUE(j["trace"][key].is_number_unsigned()) << key;
  EXPECT_EQ(j["results"].size(), 1u);
  const json& res = j["results"][0];
  EXPECT_EQ(res["engine"], "lockset");
  const json& races = res["findings"];
  EXPECT_LE(races.size(), res["race_count"].get<uint64_t>());
  EXPECT_EQ(res["counts"]["data-race"], res["race_count"]);  // lockset: no read-read pairs
  // truncated: some list (races, racy_events, racy_locations) is shorter than its count.
  const bool truncated = races.size() < res["race_count"].get<uint64_t>() ||
                         res["racy_events"].size() < res["racy_event_count"].get<uint64_t>() ||
                         res["racy_locations"].size() < res["racy_location_count"].get<uint64_t>();
  EXPECT_EQ(res["truncated"], truncated);
  EXPECT_LE(res["racy_events"].size(), 1000u);
  EXPECT_TRUE(std::is_sorted(res["racy_events"].begin(), res["racy_events"].end()));
  EXPECT_TRUE(std::is_sorted(res["racy_locations"].begin(), res["racy_locations"].end()));
  const uint64_t events = j["trace"]["events"];
  const uint64_t last = events + j["trace"]["skipped_events"].get<uint64_t>();
  std::pair<uint64_t, uint64_t> previous{0, 0};
  for (const json& race : races) {
    const uint64_t first = race["first"], second = race["second"];
    EXPECT_LT(first, second);
    EXPECT_LE(second, last);
    EXPECT_LT(previous, std::make_pair(first, second)) << "races sorted";
    previous = {first, second};
    EXPECT_NE(race["first_thread"], race["second_thread"]);
    EXPECT_EQ(race["kind"], "data-race");
    const std::string kind = race["access"];
    EXPECT_TRUE(kind == "write-write" || kind == "write-read" || kind == "read-write") << kind;
  }
  return res;
}

// lockset's race pairs and racy events on each public STD trace, computed independently of
// racepred from the definition (conflicting accesses of different threads with disjoint sets of
// held locks) by a brute-force script over all pairs.
const std::map<std::string, std::pair<uint64_t, uint64_t>> kLocksetCounts = {
    {"account.std", {28, 10}},
    {"bubblesort.std.gz", {9227, 1353}},
    {"bufwriter.std.gz", {10558, 7500}},
    {"clean.std", {4622, 380}},
    {"input1.std", {3, 3}},
    {"input2.std", {3, 3}},
    {"input3.std", {3, 3}},
    {"input4.std", {1, 1}},
    {"input5.std", {17689, 265}},
    {"input6.std", {2500, 50}},
    {"input7.std", {4, 4}},
    {"input8.std", {18490, 269}},
    {"input9.std", {161598, 801}},
    {"jigsaw.std.gz", {1075, 767}},
    {"lang.std.gz", {4900, 1700}},
    {"mergesort.std", {340, 56}},
    {"readerswriters.std.gz", {329112, 6415}},
    {"syncp_vs_hb.std", {3, 3}},
    {"twostage.std", {50, 30}},
};

TEST(AnalyzeCli, EveryPublicStdTrace) {
  const fs::path dir = fs::path(RACEPRED_TEST_DATA_DIR) / "std";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  size_t traces = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const bool std_trace = name.ends_with(".std") || name.ends_with(".std.gz");
    if (!std_trace || name == "input10.std" || name == "input11.std") continue;
    SCOPED_TRACE(name);
    ++traces;
    const std::string path = entry.path().string();
    const CliRun r = racepred("analyze -e lockset --format json " + quote(path));
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    const json res = check_json(r.out, path);
    ASSERT_EQ(kLocksetCounts.count(name), 1u);
    EXPECT_EQ(res["race_count"], kLocksetCounts.at(name).first);
    EXPECT_EQ(res["racy_event_count"], kLocksetCounts.at(name).second);
    EXPECT_EQ(r.exit_code, 1);
    // The same counts through the in-process reader and the engine directly.
    const Trace trace = load_trace(path);
    EXPECT_EQ(json::parse(r.out)["trace"]["events"], trace.size());
  }
  EXPECT_EQ(traces, kLocksetCounts.size());
}

bool validator_checks_locks() {
  // The validator rejects a release of a lock that is not held.
  Symbols symbols;
  symbols.threads.intern("T0");
  symbols.locks.intern("l");
  struct Null : EventConsumer {
    void on_event(EventId, const Event&, uint32_t) override {}
  } null;
  Validator validator(symbols, {ValidationMode::Strict, "v"}, null);
  try {
    validator.on_event(1, Event{Op::Release, 0, 0, 0}, 1);
    validator.on_end();
  } catch (const InputError&) {
    return true;
  }
  return false;
}

TEST(AnalyzeCli, IllFormedPublicTracesGiveExitTwo) {
  ASSERT_TRUE(validator_checks_locks());
  for (const char* name : {"input10.std", "input11.std"}) {
    const CliRun r =
        racepred("analyze " + quote((fs::path(RACEPRED_TEST_DATA_DIR) / "std" / name)));
    EXPECT_EQ(r.exit_code, 2) << name << "\n" << r.out;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
    const CliRun lenient =
        racepred("analyze --lenient " + quote((fs::path(RACEPRED_TEST_DATA_DIR) / "std" / name)));
    EXPECT_TRUE(lenient.exit_code == 0 || lenient.exit_code == 1) << lenient.err;
    EXPECT_NE(lenient.err.find("warning:"), std::string::npos) << lenient.err;
  }
}

bool speedygo_supported() {
  try {
    ReadOptions options;
    options.format = InputFormat::SpeedyGo;
    return parse_trace("1,WR,1,Test.java:1:1,1\n2,RD,1,Test.java:2:1,2\n", options).size() == 2;
  } catch (const InputError&) {
    return false;
  }
}

// lockset's race pairs on Test1.log … Test33.log (signal/wait pairs read as fork/join).
constexpr uint64_t kSpeedyGoLocksetRaces[33] = {0, 1, 1, 1, 1, 30, 4, 3, 1, 1, 2, 12, 7, 1, 1, 1, 1,
                                                1, 4, 1, 1, 1, 3,  1, 1, 1, 5, 2, 1,  1, 1, 1, 2};

TEST(AnalyzeCli, EveryPublicSpeedyGoTrace) {
  ASSERT_TRUE(speedygo_supported());
  const fs::path dir = fs::path(RACEPRED_TEST_DATA_DIR) / "speedygo";
  // Notes.txt: "TestN = K Races, <paper>": the races a sound and complete predictor finds.
  std::map<std::string, int> expected;
  std::ifstream notes(dir / "Notes.txt");
  for (std::string line; std::getline(notes, line);) {
    const size_t eq = line.find(" = ");
    if (line.rfind("Test", 0) != 0 || eq == std::string::npos) continue;
    expected[line.substr(0, eq) + ".log"] = std::atoi(line.c_str() + eq + 3);
  }
  size_t traces = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".log") continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    ++traces;
    const std::string path = entry.path().string();
    for (const char* format : {"speedygo", "auto"}) {
      const CliRun r = racepred(std::string("analyze -e lockset --format json --input-format ") +
                                format + " " + quote(path));
      ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
      const json res = check_json(r.out, path);
      const uint64_t races = res["race_count"];
      const int number = std::atoi(name.c_str() + 4);  // "TestN.log"
      ASSERT_TRUE(number >= 1 && number <= 33);
      EXPECT_EQ(races, kSpeedyGoLocksetRaces[number - 1]);
      EXPECT_EQ(r.exit_code, races > 0 ? 1 : 0);
      // lockset is complete: every predictable race is among its pairs.
      if (expected.count(name) && expected[name] > 0) {
        EXPECT_GT(races, 0u) << "lockset misses a race";
      }
    }
  }
  EXPECT_EQ(traces, 33u);
  EXPECT_EQ(expected.size(), 28u);  // the tests Notes.txt gives a count for
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
