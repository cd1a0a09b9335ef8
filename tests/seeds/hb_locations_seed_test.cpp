// Sulzmann's lecture notes "Dynamic data race prediction" and "Happens-before and vector clocks"
// for djit, hb-epochs, hb-adaptive and fasttrack. The verdicts, racy events and annotated cells
// (Th, Th', W(x), R(x), races) of every example are `# expect` lines in examples/hb (checked by
// tests/examples); here only what those lines cannot say: the kinds of the reported accesses, and
// the registration.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

const std::vector<std::string> kEngines = {"djit", "hb-epochs", "hb-adaptive", "fasttrack"};

Trace example(const std::string& name) {
  return load_trace(std::string(RACEPRED_EXAMPLES_DIR) + "/hb/" + name);
}

// Sulzmann, lecture notes "Happens-before and vector clocks" "Race detected": the race is
// write-write; "Read-write races": both are read-write.
TEST(HbLocationsSeed004, ReportedAccessesCarryTheirKinds) {
  for (const std::string& engine : kEngines) {
    SCOPED_TRACE(engine);
    const RaceSink detected = run_engine(engine, example("fasttrack_race_detected.std"));
    ASSERT_EQ(detected.races().size(), 1u);
    EXPECT_EQ(detected.races()[0].first.op, Op::Write);
    EXPECT_EQ(race_kind(detected.races()[0]), RaceKind::WriteWrite);
    const RaceSink rw = run_engine(engine, example("fasttrack_read_write_races.std"));
    ASSERT_EQ(rw.races().size(), 2u);
    for (const Race& r : rw.races()) EXPECT_EQ(race_kind(r), RaceKind::ReadWrite);
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

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
