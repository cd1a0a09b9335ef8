// End to end: `racepred check` and `racepred stats` as a user runs them.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace RACEPRED_TEST_FILE {

const std::string kData = RACEPRED_TEST_DATA_DIR;

struct CommandResult {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `racepred ARGS` through the shell (so ARGS may hold redirections and pipes).
CommandResult racepred(const std::string& args, const std::string& before = "") {
  const std::string base = "/tmp/racepred_io_cli_" + std::to_string(getpid());
  const std::string cmd = before + "'" + std::string(RACEPRED_BINARY) + "' " + args + " >" + base +
                          ".out 2>" + base + ".err";
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

struct TempTrace {
  std::string path;
  explicit TempTrace(const std::string& text) {
    path = "/tmp/racepred_io_cli_" + std::to_string(getpid()) + "_" +
           std::to_string(reinterpret_cast<uintptr_t>(this)) + ".std";
    std::ofstream(path) << text;
  }
  ~TempTrace() { std::remove(path.c_str()); }
};

TEST(CheckCommand, IllFormedPublicTracesAreRejectedWithTheirRule) {
  const std::string in10 = kData + "/std/input10.std";
  CommandResult r = racepred("check " + in10);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(
      r.out.find(in10 + ":3: error: Lock-1: event 3 (line 3): T1 acquires l1, which T0 holds since "
                        "event 1 (line 1)\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(in10 + ": NOT well-formed: 1 violation (Lock-1 1;"), std::string::npos);

  r = racepred("check --format json " + kData + "/std/input11.std");
  EXPECT_EQ(r.code, 2);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "racepred/2");
  EXPECT_EQ(j["well_formed"], false);
  EXPECT_EQ(j["violation_count"], 1);
  EXPECT_EQ(j["violations"][0]["rule"], "Lock-1");
  EXPECT_EQ(j["violations"][0]["event"], 2);
  EXPECT_EQ(j["violations"][0]["line"], 2);
  EXPECT_EQ(j["trace"]["events"], 5);
}

TEST(CheckCommand, WellFormedTracesExitZero) {
  CommandResult r = racepred("check " + kData + "/std/account.std");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("account.std: well-formed (15 events, 4 threads"), std::string::npos);
  r = racepred("check " + kData + "/speedygo/Test12.log");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("well-formed (12 events"), std::string::npos);
}

TEST(CheckCommand, ReentrancyIsANoteNotAnError) {
  const TempTrace t("T1|acq(l)|1\nT1|acq(l)|2\nT1|rel(l)|3\nT1|rel(l)|4\n");
  const CommandResult r = racepred("check " + t.path);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find(t.path + ":2: note: re-entrant: event 2 (line 2): T1 acquires l again"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 re-entrant acquire normalised"), std::string::npos);
}

TEST(CheckCommand, ListsEveryViolationAndReadsStandardInput) {
  const TempTrace t("T0|fork(T1)|1\nT0|join(T1)|2\nT1|w(x)|3\nT1|w(x)|4\nT2|rel(l)|5\n");
  const CommandResult r = racepred("check - <" + t.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("<stdin>:3: error: Join: event 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<stdin>:4: error: Join: event 4"), std::string::npos);
  EXPECT_NE(r.out.find("<stdin>:5: error: Lock-2: event 5"), std::string::npos);
  EXPECT_NE(r.out.find("NOT well-formed: 3 violations (Join 2, Lock-2 1;"), std::string::npos);
}

TEST(CheckCommand, MalformedInputIsAnInputError) {
  const TempTrace t("T0|w(x)|1\nT0|wx)|2\n");
  const CommandResult r = racepred("check " + t.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, t.path +
                       ":2:4: error: unknown operation 'wx)' (expected r, w, acq, rel, "
                       "racq, rrel, fork, join, send, recv, req, rreq, begin, end or branch)\n");
  EXPECT_EQ(racepred("check /nonexistent.std").code, 2);
  EXPECT_EQ(racepred("check").code, 2);  // usage
}

TEST(StatsCommand, TextAndJson) {
  const std::string path = kData + "/std/bufwriter.std.gz";
  CommandResult r = racepred("stats " + path);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("events              10263\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("threads             6 (6 with events)\n"), std::string::npos);
  EXPECT_NE(r.out.find("events per op       r 5280, w 2226, acq 1374, rel 1374, fork 5, join 4\n"),
            std::string::npos);
  EXPECT_NE(r.out.find("well-formed         yes\n"), std::string::npos);

  r = racepred("stats --format json " + path);
  EXPECT_EQ(r.code, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "racepred/2");
  EXPECT_EQ(j["trace"]["events"], 10263);
  EXPECT_EQ(j["trace"]["threads"], 6);
  EXPECT_EQ(j["trace"]["variables"], 6);
  EXPECT_EQ(j["trace"]["locks"], 1);
  EXPECT_EQ(j["trace"]["format"], "std");
  EXPECT_EQ(j["stats"]["ops"]["acq"], 1374);
  EXPECT_EQ(j["stats"]["locations"], 22);
  EXPECT_EQ(j["stats"]["well_formed"], true);
}

TEST(StatsCommand, LenientSkippedOpsStdinAndInputFormats) {
  const TempTrace t("T0|begin|1\nT0|w(x)|2\nbad\nT0|end|3\nT1|r(x)|4\n");
  CommandResult r = racepred("stats " + t.path);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind(t.path + ":3:4: error: missing field", 0), 0u) << r.err;

  r = racepred("stats --lenient --format json - <" + t.path);
  EXPECT_EQ(r.code, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["trace"]["path"], "<stdin>");
  EXPECT_EQ(j["trace"]["events"], 2);
  EXPECT_EQ(j["trace"]["skipped_events"], 3);
  EXPECT_EQ(j["stats"]["malformed"], 1);
  EXPECT_EQ(j["stats"]["skipped_ops"]["begin"], 1);
  EXPECT_EQ(j["stats"]["skipped_ops"]["end"], 1);
  EXPECT_EQ(j["stats"]["malformed_examples"][0].get<std::string>().rfind("<stdin>:3:4:", 0), 0u);

  const std::string t12 = kData + "/speedygo/Test12.log";
  r = racepred("stats --format json -", "cat '" + t12 + "' | ");
  EXPECT_EQ(r.code, 0);
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["trace"]["format"], "speedygo");
  EXPECT_EQ(j["trace"]["events"], 12);
  EXPECT_EQ(j["stats"]["ops"]["fork"], 1);
  EXPECT_EQ(j["stats"]["ops"]["join"], 1);
  EXPECT_EQ(racepred("stats --input-format speedygo " + t12).code, 0);
  // A named pipe given as a path (as with process substitution) is opened once and streamed.
  const std::string fifo = "/tmp/racepred_io_cli_fifo_" + std::to_string(getpid());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  r = racepred("stats --format json " + fifo, "(cat '" + t12 + "' >" + fifo + " &); ");
  std::remove(fifo.c_str());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["trace"]["events"], 12);
  r = racepred("stats --input-format std " + t12);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind(t12 + ":1:", 0), 0u);
  EXPECT_EQ(racepred("stats --input-format rv " + t12).code, 2);
}

}  // namespace RACEPRED_TEST_FILE
