// End to end: `racepred convert` between every pair of STD and another format, as a user runs it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "racepred/io/formats.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

struct CommandResult {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string temp(const std::string& suffix) {
  return "/tmp/racepred_convert_" + std::to_string(getpid()) + suffix;
}

CommandResult racepred(const std::string& args) {
  const std::string base = temp("_cmd");
  const std::string cmd =
      "'" + std::string(RACEPRED_BINARY) + "' " + args + " >" + base + ".out 2>" + base + ".err";
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// A random well-formed trace as STD text, its locations shaped for what `format` keeps: line
// numbers for RAPID CSV (it has no locations), '-' on synchronisation for RoadRunner.
std::string trace_text(InputFormat format) {
  GeneratorOptions g;
  g.seed = 7;
  g.threads = 5;
  g.events = 2000;
  g.shape = ForkShape::Nested;
  const Trace t = generate_trace(g);
  std::string text;
  for (size_t i = 0; i < t.size(); ++i) {
    const Event& e = t.events[i];
    std::string location(t.location_name(e.location));
    if (format == InputFormat::RapidCsv) location = std::to_string(i + 1);
    if (format == InputFormat::RoadRunner && !e.is_access()) location = "-";
    text += std::string(t.thread_name(e.thread)) + "|" + std::string(op_name(e.op)) + "(" +
            std::string(t.target_name(e)) + ")|" + location + "\n";
  }
  return text;
}

TEST(ConvertCommand, StdToEveryFormatAndBackGivesTheSameTrace) {
  for (const TraceFormat& f : trace_formats()) {
    SCOPED_TRACE(std::string(f.name));
    const std::string in = temp(".in.std"), mid = temp(".mid"), back = temp(".back.std");
    const std::string text = trace_text(f.id);
    std::ofstream(in) << text;
    CommandResult r = racepred("convert --to " + std::string(f.name) + " -o " + mid + " " + in);
    EXPECT_EQ(r.code, 0) << r.err;
    r = racepred("convert --to std -o " + back + " " + mid);  // the format is recognised
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(slurp(back), text);
    // Through a pipe, compressed (gzip is part of every Debian system): the same again.
    EXPECT_EQ(std::system(("gzip -c " + mid + " > " + mid + ".gz").c_str()), 0);
    r = racepred("convert --to std - < " + mid + ".gz");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, text);
    for (const std::string& p : {in, mid, back, mid + ".gz"}) std::remove(p.c_str());
  }
}

// The races of `analyze --format json` (pairs, variables, kinds; not the path or the times).
nlohmann::json races_of(const std::string& path) {
  const CommandResult r = racepred("analyze -e fasttrack,lockset --format json " + path);
  EXPECT_EQ(r.code, 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  nlohmann::json races = nlohmann::json::array();
  for (const auto& result : j["results"])
    races.push_back({result["engine"], result["race_count"], result["findings"]});
  return races;
}

TEST(ConvertCommand, AnalysisGivesTheSameRacesInEveryFormatAndCompressed) {
  const std::string in = temp(".races.std");
  const std::string text = trace_text(InputFormat::Std);
  std::ofstream(in) << text;
  const nlohmann::json expected = races_of(in);
  ASSERT_GT(expected[1][1].get<int>(), 0);  // lockset reports races on this trace
  // gzip is on every Debian system (zstd and xz are covered by formats_test).
  const std::string packed = in + ".gz";
  ASSERT_EQ(std::system(("gzip -c " + in + " > " + packed).c_str()), 0);
  EXPECT_EQ(races_of(packed), expected);
  EXPECT_EQ(races_of("- < " + packed), expected);
  std::remove(packed.c_str());
  // Formats with one line (record) per event and a place for locations keep the event ids.
  for (const char* format : {"lockframe", "rapidbin"}) {
    const std::string out = temp(".races.out");
    ASSERT_EQ(racepred("convert --to " + std::string(format) + " -o " + out + " " + in).code, 0);
    EXPECT_EQ(races_of(out), expected) << format;
    std::remove(out.c_str());
  }
  std::remove(in.c_str());
}

TEST(ConvertCommand, LossesAreRefusedWithTheirListUnlessAllowed) {
  const std::string in = temp(".names.std"), out = temp(".names.out");
  std::ofstream(in) << "main|fork(worker)|Main.java:3\nworker|begin|4\nworker|w(x)|Main.java:9\n";
  CommandResult r = racepred("convert --to std " + in);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "racepred: error: converting would lose 1 operations that racepred reads but does not "
            "model (begin 1); pass --allow-loss to convert without them\n");
  r = racepred("convert --allow-loss --to lockframe -o " + out + " " + in);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(out), "0,SIG,1,Main.java:3\n1,WR,0,Main.java:9\n");
  std::ofstream(in) << "main|fork(worker)|Main.java:3\n";
  r = racepred("convert --to rapidbin -o " + out + " " + in);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("converting to rapidbin would lose information:\n  - thread name 'main'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(pass --allow-loss to convert anyway)"), std::string::npos);
  EXPECT_EQ(racepred("convert --to rv " + in).code, 2);  // not a format racepred writes
  EXPECT_EQ(racepred("convert " + in).code, 2);          // --to is required
  r = racepred("convert --to std /nonexistent.std");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("/nonexistent.std: error: cannot open file", 0), 0u);
  std::remove(in.c_str());
  std::remove(out.c_str());
}

// Read-write locks: STD and binary keep them; every other format refuses the conversion and
// names the first read-lock event (no --allow-loss turns them into exclusive locks).
TEST(ConvertCommand, ReadLocksGoToStdAndBinaryOnly) {
  const std::string in = temp(".rw.std"), out = temp(".rw.out");
  const std::string text = "T0|w(x)|1\nT0|racq(L)|2\nT0|r(x)|3\nT0|rrel(L)|4\n";
  std::ofstream(in) << text;
  CommandResult r = racepred("convert --to binary -o " + out + " " + in);
  ASSERT_EQ(r.code, 0) << r.err;
  r = racepred("convert --to std " + out);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, text);
  for (const char* format : {"speedygo", "csv", "rr", "lockframe", "rapidbin"}) {
    SCOPED_TRACE(format);
    r = racepred(std::string("convert --allow-loss --to ") + format + " -o " + out + " " + in);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("event 2 (T0|racq(L)|2) takes a lock in read mode, which the format "
                         "cannot express"),
              std::string::npos)
        << r.err;
  }
  std::remove(in.c_str());
  std::remove(out.c_str());
}

// Synchronisation orders: STD and binary keep them (the STD text comes back byte for byte),
// RoadRunner as volatile accesses (VWr, VRd; their locations are lost); every other format
// refuses and names the first send/recv, also with --allow-loss.
TEST(ConvertCommand, SyncOrdersGoToStdAndBinaryOnly) {
  const std::string in = temp(".sync.std"), out = temp(".sync.out");
  const std::string text = "T0|w(x)|1\nT0|send(s)|2\nT1|recv(s)|3\nT1|r(x)|4\n";
  std::ofstream(in) << text;
  CommandResult r = racepred("convert --to binary -o " + out + " " + in);
  ASSERT_EQ(r.code, 0) << r.err;
  r = racepred("convert --to std " + out);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, text);
  r = racepred("convert --allow-loss --to rr -o " + out + " " + in);
  ASSERT_EQ(r.code, 0) << r.err;
  r = racepred("convert --to std " + out);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "T0|w(x)|1\nT0|send(s)|-\nT1|recv(s)|-\nT1|r(x)|4\n");
  for (const char* format : {"speedygo", "csv", "lockframe", "rapidbin"}) {
    SCOPED_TRACE(format);
    r = racepred(std::string("convert --allow-loss --to ") + format + " -o " + out + " " + in);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("event 2 (T0|send(s)|2) is a synchronisation order (send/recv), which "
                         "the format cannot express"),
              std::string::npos)
        << r.err;
  }
  std::remove(in.c_str());
  std::remove(out.c_str());
}

TEST(ConvertCommand, InputErrorsOfEveryFormatExitWithTwo) {
  const std::string in = temp(".bad");
  const struct {
    const char* format;
    const char* text;
    const char* error;
  } cases[] = {
      {"csv", "w(x),\nw(x)y,\n", ":2:5: error: unexpected text after ')'"},
      {"rr", "@ Rd(1,x) S\n", ":1:12: error: missing field"},
      {"lockframe", "1,RD\n", ":1:5: error: missing field"},
      {"rapidbin", "\x01\x02", ": byte 0: error: truncated header"},
  };
  for (const auto& c : cases) {
    std::ofstream(in, std::ios::binary) << c.text;
    const CommandResult r =
        racepred("convert --input-format " + std::string(c.format) + " --to std " + in);
    EXPECT_EQ(r.code, 2) << c.format;
    EXPECT_EQ(r.err.rfind(in + c.error, 0), 0u) << r.err;
    EXPECT_EQ(racepred("stats --input-format " + std::string(c.format) + " " + in).code, 2);
  }
  std::remove(in.c_str());
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
