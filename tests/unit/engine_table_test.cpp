// The engine table (engines/engines.def) is complete and consistent: unique names, a family
// folder for each engine, every field filled in, every engine described in docs/ENGINES.md,
// and every registered engine runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace {

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

TEST(EngineTable, EveryEngineRunsOnASmallTrace) {
  const Trace trace = parse_trace(
      "T0|fork(T1)|a\nT0|acq(l)|b\nT0|w(x)|c\nT0|rel(l)|d\nT1|r(x)|e\nT1|w(y)|f\nT0|r(y)|g\n"
      "T0|join(T1)|h\n");
  for (const EngineInfo& info : engine_registry()) {
    SCOPED_TRACE(info.name);
    const RaceSink sink = run_engine(info, trace);
    EXPECT_EQ(sink.race_count(), sink.races().size());
  }
}

}  // namespace
}  // namespace racepred
