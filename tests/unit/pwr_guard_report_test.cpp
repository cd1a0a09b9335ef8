// Guard locks of pwr-cs / pwr-e in the reports (docs/CLI.md): a guard held in read mode says so,
// in the text report and as "mode": "read" in JSON; an exclusive one has no mode key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_run.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

std::string example(const std::string& name) {
  return std::string(RACEPRED_EXAMPLES_DIR) + "/" + name;
}

// The guard locks of the first access of the one race of `engine` on `trace`.
nlohmann::json first_guards(const std::string& engine, const std::string& trace) {
  const testing::CliResult r =
      testing::run_racepred("analyze -q --format json -e " + engine + " " + example(trace));
  EXPECT_EQ(r.code, 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& races = j["results"][0]["findings"];
  EXPECT_EQ(races.size(), 1u);
  return races.empty() ? nlohmann::json() : races[0]["guard_locks"]["first"];
}

TEST(PwrGuardReport, ReadModeGuardIsMarked) {
  for (const char* engine : {"pwr-cs", "pwr-e"}) {
    const nlohmann::json g = first_guards(engine, "pwr/rw_read_guard.std");
    ASSERT_EQ(g.size(), 1u) << engine;
    EXPECT_EQ(g[0]["lock"], "L");
    EXPECT_EQ(g[0]["thread"], "T0");
    EXPECT_EQ(g[0]["mode"], "read");
  }
  const testing::CliResult text =
      testing::run_racepred("analyze -e pwr-cs " + example("pwr/rw_read_guard.std"));
  EXPECT_NE(text.out.find("L held in read mode by T0"), std::string::npos) << text.out;
}

TEST(PwrGuardReport, ExclusiveGuardHasNoMode) {
  // rw_read_guard.std with T0's section exclusive and T2's access outside any section: the race
  // stays, its first access guarded by L held by T0.
  const testing::TempFile trace(
      "T0|acq(L)|1\nT0|fork(T1)|2\nT1|w(x)|3\nT0|join(T1)|4\nT0|rel(L)|5\nT2|w(x)|6\n");
  const testing::CliResult r =
      testing::run_racepred("analyze -q --format json -e pwr-cs " + trace.path());
  ASSERT_EQ(r.code, 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& g = j["results"][0]["findings"][0]["guard_locks"]["first"];
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0]["lock"], "L");
  EXPECT_FALSE(g[0].contains("mode"));
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
