// `racepred compare` end to end through the CLI binary (RACEPRED_BINARY): the Fig. 11/12 table
// in every format, its numbers against `analyze`, exit codes and errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

namespace fs = std::filesystem;
using nlohmann::json;

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

CliRun racepred(const std::string& args) {
  const testing::CliResult r = testing::run_racepred(args);
  return {r.code, r.out, r.err};
}

std::string example(const std::string& name) {
  return std::string(RACEPRED_EXAMPLES_DIR) + "/" + name;
}

const std::vector<std::string> kTraces = {"exact/fig02_cross_thread.std", "pwr/ex2_2.std",
                                          "exact/fig14_pwr_e.std", "pwr/ex2_3.std"};

std::string trace_args() {
  std::string s;
  for (const std::string& t : kTraces) s += " '" + example(t) + "'";
  return s;
}

// The JSON numbers are the ones `analyze` reports for the same engine and trace.
TEST(CompareCli, JsonMatchesAnalyze) {
  const CliRun run = racepred("compare -e pwr,pwr-cs,fasttrack --format json" + trace_args());
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const json j = json::parse(run.out);
  EXPECT_EQ(j["schema"], "racepred/2");
  EXPECT_EQ(j["command"], "compare");
  ASSERT_EQ(j["traces"].size(), kTraces.size());
  for (size_t k = 0; k < kTraces.size(); ++k) {
    const json& t = j["traces"][k];
    const json analyzed = json::parse(
        racepred("analyze -e pwr,pwr-cs,fasttrack --format json '" + example(kTraces[k]) + "'")
            .out);
    EXPECT_EQ(t["trace"]["events"], analyzed["trace"]["events"]);
    EXPECT_EQ(t["trace"]["threads"], analyzed["trace"]["threads"]);
    EXPECT_EQ(t["trace"]["variables"], analyzed["trace"]["variables"]);
    EXPECT_EQ(t["trace"]["locks"], analyzed["trace"]["locks"]);
    EXPECT_GE(t["read_seconds"].get<double>(), 0.0);
    ASSERT_EQ(t["results"].size(), 3u);
    for (size_t e = 0; e < 3; ++e) {
      const json& r = t["results"][e];
      const json& a = analyzed["results"][e];
      EXPECT_EQ(r["engine"], a["engine"]);
      EXPECT_EQ(r["race_count"], a["race_count"]) << kTraces[k] << " " << r["engine"];
      std::set<std::pair<std::string, std::string>> pairs;
      for (const json& race : a["findings"])
        pairs.insert({race["first_location"].get<std::string>(),
                      race["second_location"].get<std::string>()});
      EXPECT_EQ(r["location_pair_count"].get<size_t>(), pairs.size());
      EXPECT_EQ(r["location_pair_count"], a["location_pair_count"]);
      const bool guards = r["engine"] == "pwr-cs";
      EXPECT_EQ(r["extras"].contains("guard_lock_confirmations"), guards);
      EXPECT_EQ(r["extras"], a["extras"]);
    }
  }
  // Fig. 2: pwr's false positive (e4,e8) is the one location pair pwr-cs removes with the guard
  // lock (x,T1); Fig. 14: both accesses of the WRD pair are guarded, 2 confirmations.
  const json& fig2 = j["traces"][0]["results"][1];
  EXPECT_EQ(fig2["race_count"], 0);
  EXPECT_EQ(fig2["extras"]["cs_guarded_location_pairs"], 1);
  EXPECT_EQ(fig2["extras"]["guard_lock_confirmations"], 1);
  EXPECT_EQ(j["traces"][2]["results"][1]["extras"]["guard_lock_confirmations"], 2);
}

// Text, CSV and markdown carry the same cells: a header and one row per trace.
TEST(CompareCli, TableFormats) {
  const CliRun csv = racepred("compare --format csv" + trace_args());
  ASSERT_EQ(csv.exit_code, 1) << csv.err;
  std::vector<std::string> lines;
  std::istringstream in(csv.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), kTraces.size() + 1);
  EXPECT_EQ(lines[0],
            "trace,events,threads,locations,locks,read s,pwr s,pwr races,pwr loc pairs,pwr-cs s,"
            "pwr-cs races,pwr-cs loc pairs,pwr-cs cs guarded,pwr-cs guard locks");
  // Fig. 2: 9 events, 3 threads, 1 variable, 1 lock; pwr 1 race, pwr-cs 0 races, 1 guarded.
  std::vector<std::string> cells;
  std::istringstream row(lines[1]);
  for (std::string c; std::getline(row, c, ',');) cells.push_back(c);
  ASSERT_EQ(cells.size(), 14u);
  EXPECT_EQ(cells[0], example(kTraces[0]));
  EXPECT_EQ(std::vector<std::string>(cells.begin() + 1, cells.begin() + 5),
            (std::vector<std::string>{"9", "3", "1", "1"}));
  EXPECT_EQ(cells[7], "1");
  EXPECT_EQ(cells[10], "0");
  EXPECT_EQ(cells[12], "1");
  EXPECT_EQ(cells[13], "1");

  const CliRun md = racepred("compare --format markdown" + trace_args());
  std::istringstream mdin(md.out);
  std::vector<std::string> mdlines;
  for (std::string line; std::getline(mdin, line);) mdlines.push_back(line);
  ASSERT_EQ(mdlines.size(), kTraces.size() + 2);
  EXPECT_EQ(mdlines[0].rfind("| trace", 0), 0u);
  EXPECT_NE(mdlines[1].find("---:"), std::string::npos);

  const CliRun text = racepred("compare" + trace_args());
  std::istringstream tin(text.out);
  size_t count = 0;
  for (std::string line; std::getline(tin, line);) ++count;
  EXPECT_EQ(count, kTraces.size() + 1);
}

TEST(CompareCli, ExitCodesAndErrors) {
  EXPECT_EQ(racepred("compare '" + example("pwr/ex2_3.std") + "'").exit_code, 0);
  const CliRun unknown = racepred("compare -e no-such-engine '" + example("pwr/ex2_3.std") + "'");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no-such-engine"), std::string::npos);
  const CliRun missing = racepred("compare /nonexistent/trace.std");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/trace.std"), std::string::npos);
  EXPECT_EQ(racepred("compare").exit_code, 2);
  EXPECT_EQ(racepred("compare --format xml '" + example("pwr/ex2_3.std") + "'").exit_code, 2);
}

// The race pairs (first, second) of the one engine of an `analyze --format json` run.
std::set<std::pair<int, int>> analyzed_pairs(const std::string& args) {
  const CliRun run = racepred("analyze --format json " + args);
  EXPECT_LE(run.exit_code, 1) << run.err;
  const json doc = json::parse(run.out);
  std::set<std::pair<int, int>> pairs;
  for (const json& race : doc["results"][0]["findings"])
    pairs.insert({race["first"].get<int>(), race["second"].get<int>()});
  return pairs;
}

// --pwr-history and --pwr-edges reach the bounded engines of analyze and compare, and cost what
// docs/ENGINES.md says: a shorter history adds false positives, fewer edges lose races.
// The sound predictors side by side on the public benchmark traces (tests/data/std, the RAPID
// suite's traces): two of them are not well-formed (a lock acquired while another thread holds
// it); each is named with its line and column and left out, the other rows are still written
// (exit 2); --lenient reads them all.
TEST(CompareCli, SoundPredictorsOnTheBenchmarkTraces) {
  std::string args;
  size_t traces = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(RACEPRED_TEST_DATA_DIR) / "std")) {
    args += " '" + entry.path().string() + "'";
    ++traces;
  }
  ASSERT_GE(traces, 19u);
  const CliRun strict = racepred("compare -e wcp,syncp,osr,m2 --format json" + args);
  EXPECT_EQ(strict.exit_code, 2) << strict.err;
  EXPECT_NE(strict.err.find("input10.std:3:1: error: trace is not well-formed"), std::string::npos)
      << strict.err;
  EXPECT_NE(strict.err.find("input11.std:"), std::string::npos) << strict.err;
  EXPECT_NE(strict.err.find("2 traces left out of the table"), std::string::npos) << strict.err;
  const json table = json::parse(strict.out);
  EXPECT_EQ(table["traces"].size(), traces - 2);
  const CliRun lenient = racepred("compare -e wcp,syncp,osr,m2 --lenient --format json" + args);
  EXPECT_EQ(lenient.exit_code, 1) << lenient.err;
  const json all = json::parse(lenient.out);
  ASSERT_EQ(all["traces"].size(), traces);
  for (const json& row : all["traces"]) {
    ASSERT_EQ(row["results"].size(), 4u);
    // syncp ⊆ osr ⊆ m2, and each reports one pair (the earliest partner) per later access,
    // other thread and kind that has one: the counts grow along the chain.
    EXPECT_GE(row["results"][2]["race_count"], row["results"][1]["race_count"]) << row["trace"];
    EXPECT_GE(row["results"][3]["race_count"], row["results"][2]["race_count"]) << row["trace"];
  }
}

TEST(CompareCli, BoundOptions) {
  using Pairs = std::set<std::pair<int, int>>;
  const std::string history = " '" + example("pwr/history_bound.std") + "'";
  for (const std::string engine : {"pwr", "pwr-cs", "pwr-e", "pwr-edges"}) {
    EXPECT_EQ(analyzed_pairs("-e " + engine + history), (Pairs{{2, 7}})) << engine;
    EXPECT_EQ(analyzed_pairs("-e " + engine + " --pwr-history 2" + history), (Pairs{{2, 7}}))
        << engine;
    EXPECT_EQ(analyzed_pairs("-e " + engine + " --pwr-history 1" + history),
              (Pairs{{2, 7}, {3, 11}}))
        << engine;
  }
  // The unbounded engines ignore the bounds.
  EXPECT_EQ(analyzed_pairs("-e pwr-unbounded --pwr-history 1" + history), (Pairs{{2, 7}}));
  // Ex. G.3: (w1,w7) is reached through the edges w1 < w3 < w5; one edge kept loses it.
  const std::string g3 = " '" + example("pwr/exG_3.std") + "'";
  EXPECT_EQ(analyzed_pairs("-e pwr-edges" + g3), (Pairs{{1, 7}, {5, 7}}));
  EXPECT_EQ(analyzed_pairs("-e pwr-edges --pwr-edges 2" + g3), (Pairs{{1, 7}, {5, 7}}));
  EXPECT_EQ(analyzed_pairs("-e pwr-edges --pwr-edges 1" + g3), (Pairs{{5, 7}}));
  EXPECT_EQ(analyzed_pairs("-e pwr-edges-unbounded --pwr-edges 1" + g3), (Pairs{{1, 7}, {5, 7}}));

  const CliRun compared = racepred("compare -e pwr,pwr-edges --format json --pwr-edges 1" + g3 +
                                   " --pwr-history 1" + history);
  ASSERT_EQ(compared.exit_code, 1) << compared.err;
  const json j = json::parse(compared.out);
  EXPECT_EQ(j["traces"][0]["results"][1]["race_count"], 1);
  EXPECT_EQ(j["traces"][1]["results"][0]["race_count"], 2);

  for (const std::string bad : {"--pwr-edges 0", "--pwr-history 0", "--pwr-history -1",
                                "--pwr-edges x", "--pwr-history 4294967296"}) {
    const CliRun run = racepred("analyze -e pwr " + bad + g3);
    EXPECT_EQ(run.exit_code, 2) << bad;
    EXPECT_NE(run.err.find(bad.substr(0, bad.find(' '))), std::string::npos) << run.err;
    EXPECT_EQ(racepred("compare " + bad + g3).exit_code, 2) << bad;
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
