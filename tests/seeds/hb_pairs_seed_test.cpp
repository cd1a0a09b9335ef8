// Sulzmann's lecture notes "Dynamic data race prediction" and "Happens-before and vector clocks"
// for the engines hb, hb-sets, hb-pairs and tsan1: what the `# expect` lines of the example traces
// (examples/lecture, examples/hb; checked by tests/examples) cannot say: race locations and the
// annotate command end to end.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "racepred/driver/run.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

Trace example(const std::string& name) {
  return load_trace(std::string(RACEPRED_EXAMPLES_DIR) + "/" + name);
}

// ---------------------------------------------------------------------------------------------
// Sulzmann, lecture notes "Dynamic data race prediction": HB method. The verdicts and annotated
// cells of every example are `# expect` lines in the traces (tests/examples); here only what those
// lines cannot say.

TEST(Seed001VcPrePost, TraceBAndTraceCKeepTheSeedPositions) {
  // "The HB relations derived from trace B and trace [C] are the same!": the same pair of seed
  // positions (kept as locations), w(x)_5 of T2 and w(x)_1 of T1.
  for (const char* file : {"lecture/trace_b.std", "lecture/trace_c.std"}) {
    const Trace t = example(file);
    const RaceSink sink = run_engine("hb", t, SIZE_MAX);
    ASSERT_EQ(sink.races().size(), 1u) << file;
    EXPECT_EQ(t.location_name(sink.races()[0].first.location), "e5") << file;
    EXPECT_EQ(t.location_name(sink.races()[0].second.location), "e1") << file;
  }
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
  EXPECT_EQ(doc["schema"], "racepred/2");
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
  EXPECT_EQ(doc["findings"][0]["kind"], "data-race");
  EXPECT_EQ(doc["findings"][0]["first"], 3);
  EXPECT_EQ(doc["findings"][0]["second"], 5);
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

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
