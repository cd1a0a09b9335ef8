// End to end, as a user types the commands: outputs that must not clobber anything, inputs that
// must not hang or be misread, and messages that must say what happened.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/cli_run.hpp"

namespace racepred::testing {
namespace RACEPRED_TEST_FILE {

namespace fs = std::filesystem;

const std::string kRacy = "T1|w(x)|A\nT2|w(x)|B\n";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh directory under the temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("racepred_trust_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // Names in the directory that start with `prefix` (temporary files left behind).
  std::vector<std::string> names_starting(const std::string& prefix) const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_))
      if (e.path().filename().string().rfind(prefix, 0) == 0)
        out.push_back(e.path().filename().string());
    return out;
  }

 private:
  fs::path path_;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// ---------------------------------------------------------------------------------------------
// -o FILE

TEST(OutputFile, AnOutputThatIsTheInputIsRefused) {
  TempDir dir;
  const std::string trace = dir.file("t.std");
  write_file(trace, kRacy);
  for (const std::string command : {"analyze", "check", "stats", "annotate", "exact"}) {
    const CliResult r =
        run_racepred(command + " -o " + shell_quote(trace) + " " + shell_quote(trace));
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_NE(r.err.find("racepred: error: the output file " + trace + " is the input"),
              std::string::npos)
        << command << ": " << r.err;
    EXPECT_EQ(slurp(trace), kRacy) << command;
  }
  // Through another name (a symbolic link), from standard input, and for convert.
  fs::create_symlink(trace, dir.file("link.std"));
  CliResult r =
      run_racepred("analyze -o " + shell_quote(dir.file("link.std")) + " " + shell_quote(trace));
  EXPECT_EQ(r.code, 2);
  r = run_racepred("analyze -o " + shell_quote(trace) + " -", trace);
  EXPECT_EQ(r.code, 2) << r.err;
  r = run_racepred("convert --to std -o " + shell_quote(trace) + " " + shell_quote(trace));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(slurp(trace), kRacy);
}

// explore and confirm: the program (and a replay file) are inputs too; nothing is run.
TEST(OutputFile, ExploreAndConfirmDoNotWriteOverTheProgram) {
  TempDir dir;
  const std::string program = dir.file("prog");
  write_file(program, "#!/bin/sh\nexit 0\n");
  for (const std::string command : {"explore", "confirm"}) {
    const CliResult r =
        run_racepred(command + " -o " + shell_quote(program) + " -- " + shell_quote(program));
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_NE(r.err.find("the output file " + program + " is the input"), std::string::npos)
        << command << ": " << r.err;
    EXPECT_EQ(slurp(program), "#!/bin/sh\nexit 0\n") << command;
  }
  const std::string replay = dir.file("r.replay");
  write_file(replay, "not a replay file\n");
  const CliResult r =
      run_racepred("explore -o " + shell_quote(replay) + " --replay " + shell_quote(replay));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(slurp(replay), "not a replay file\n");
}

TEST(OutputFile, ARegularFileKeepsItsModeAndASymlinkStaysALink) {
  TempDir dir;
  const std::string trace = dir.file("t.std");
  write_file(trace, kRacy);
  const std::string report = dir.file("report.txt");
  write_file(report, "old\n");
  ASSERT_EQ(::chmod(report.c_str(), 0444), 0);
  CliResult r = run_racepred("analyze -q -o " + shell_quote(report) + " " + shell_quote(trace));
  EXPECT_EQ(r.code, 1) << r.err;
  struct stat st;
  ASSERT_EQ(::stat(report.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0444u);
  EXPECT_NE(slurp(report).find("SUMMARY"), std::string::npos);

  const std::string target = dir.file("target.txt");
  write_file(target, "old\n");
  fs::create_symlink(target, dir.file("link.txt"));
  r = run_racepred("check -o " + shell_quote(dir.file("link.txt")) + " " + shell_quote(trace));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir.file("link.txt")));
  EXPECT_NE(slurp(target).find("well-formed"), std::string::npos) << slurp(target);
  EXPECT_TRUE(dir.names_starting("target.txt.tmp").empty());
  EXPECT_TRUE(dir.names_starting("link.txt.tmp").empty());
}

TEST(OutputFile, DevicesAndFifosAreWrittenDirectly) {
  TempDir dir;
  const std::string trace = dir.file("t.std");
  write_file(trace, kRacy);
  // /dev/full: the write fails with a message and exit code 2, the device stays a device.
  CliResult r = run_racepred("analyze -q -o /dev/full " + shell_quote(trace));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("racepred: error: cannot write the report to /dev/full: No space left"),
            std::string::npos)
      << r.err;
  struct stat st;
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  r = run_racepred("stats -o /dev/null " + shell_quote(trace));
  EXPECT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));

  // A FIFO: its reader gets the report, and the FIFO is still there.
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  r = run_shell("(cat " + shell_quote(fifo) + " > " + shell_quote(dir.file("got")) + " &) ; " +
                shell_quote(racepred_binary()) + " analyze -q -o " + shell_quote(fifo) + " " +
                shell_quote(trace) + "; echo code=$?; sleep 0.2");
  EXPECT_NE(r.out.find("code=1"), std::string::npos) << r.out << r.err;
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_NE(slurp(dir.file("got")).find("SUMMARY"), std::string::npos);
}

// Starts racepred with default signal dispositions (a shell's background job would ignore
// SIGINT), lets it run `ms` milliseconds, sends `sig`, and returns the wait status.
int run_and_kill(const std::vector<std::string>& args, int sig, int ms) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    std::vector<char*> argv;
    const std::string binary = racepred_binary();
    argv.push_back(const_cast<char*>(binary.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(OutputFile, AKilledRunLeavesNoPartialFile) {
  TempDir dir;
  const std::string out = dir.file("big.std");
  write_file(out, "old\n");
  for (int sig : {SIGTERM, SIGINT}) {
    const int status = run_and_kill({"generate", "--events", "1000000000", "-o", out}, sig, 700);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_EQ(slurp(out), "old\n");  // the old file as it was, not a partial trace
    EXPECT_TRUE(dir.names_starting("big.std.tmp").empty());
  }
  // analyze -o on a trace that takes a while: no temporary report left behind.
  const std::string trace = dir.file("t.std");
  CliResult g = run_racepred("generate --events 3000000 --seed 1 -o " + shell_quote(trace));
  ASSERT_EQ(g.code, 0) << g.err;
  const int status =
      run_and_kill({"analyze", "-e", "all", "-o", dir.file("report.txt"), trace}, SIGINT, 300);
  EXPECT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_TRUE(dir.names_starting("report.txt").empty());
}

TEST(OutputFile, ConvertAndGenerateWriteAtomically) {
  TempDir dir;
  const std::string trace = dir.file("t.std");
  write_file(trace, kRacy);
  const std::string out = dir.file("out.std");
  write_file(out, "old\n");
  ASSERT_EQ(::chmod(out.c_str(), 0600), 0);
  // A failed conversion (read locks cannot be RapidBin) leaves the old file.
  const std::string rw = dir.file("rw.std");
  write_file(rw, "T1|racq(l)|1\nT1|rrel(l)|2\n");
  CliResult r =
      run_racepred("convert --to rapidbin -o " + shell_quote(out) + " " + shell_quote(rw));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(slurp(out), "old\n");
  r = run_racepred("convert --to std -o " + shell_quote(out) + " " + shell_quote(trace));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(out), kRacy);
  struct stat st;
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  r = run_racepred("generate --events 10 -o " + shell_quote(out));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(slurp(out).find('|'), std::string::npos);
  EXPECT_TRUE(dir.names_starting("out.std.tmp").empty());
}

// ---------------------------------------------------------------------------------------------
// STD names with spaces and '|'

TEST(StdNames, RecordedNamesRoundTripThroughStd) {
  TempDir dir;
  // As racepred writes them: a space and '|' escaped as \xHH.
  const std::string text =
      "main|w(heap[heap.c:7:9\\x20(main)#1]+4)|op.cpp:4:59\\x20(operator\\x7c(A,\\x20A))\n"
      "T\\x202|r(heap[heap.c:7:9\\x20(main)#1]+4)|a\\x5cb\n";
  const std::string trace = dir.file("t.std");
  write_file(trace, text);
  CliResult r = run_racepred("analyze -e fasttrack --format json " + shell_quote(trace));
  ASSERT_EQ(r.code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& race = j["results"][0]["findings"][0];
  EXPECT_EQ(race["variable"], "heap[heap.c:7:9 (main)#1]+4");
  EXPECT_EQ(race["first_location"], "op.cpp:4:59 (operator|(A, A))");
  EXPECT_EQ(race["second_thread"], "T 2");
  EXPECT_EQ(race["second_location"], "a\\b");
  // Written back the same, directly and through the binary format.
  r = run_racepred("convert --to std " + shell_quote(trace));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, text);
  r = run_racepred("convert --to binary -o " + shell_quote(dir.file("t.rpt")) + " " +
                   shell_quote(trace));
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_racepred("convert --to std " + shell_quote(dir.file("t.rpt")));
  EXPECT_EQ(r.out, text);
}

// ---------------------------------------------------------------------------------------------
// Input detection

TEST(InputDetection, DevZeroEndsAtOnceNamingTheGuessedFormat) {
  const auto start = std::chrono::steady_clock::now();
  const CliResult r =
      run_shell("timeout 20 " + shell_quote(racepred_binary()) + " analyze /dev/zero");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_LT(seconds, 10);
  EXPECT_NE(r.err.find("/dev/zero: byte 18: error: the header declares 0 events"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("read as rapidbin, recognised from its content; --input-format"),
            std::string::npos)
      << r.err;
}

TEST(InputDetection, AStrayNulByteNamesTheGuessAndHowToForceAnother) {
  TempFile t(std::string("T1|w(x)|1\nT2|w(\0x)|2\n", 22));
  CliResult r = run_racepred("analyze " + t.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("read as rapidbin"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--input-format"), std::string::npos) << r.err;
  // Named explicitly, the format is no guess: the message has no such note.
  r = run_racepred("analyze --input-format std " + t.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find("recognised from its content"), std::string::npos) << r.err;
}

// ---------------------------------------------------------------------------------------------
// Names printed

TEST(PrintedNames, ThreadsThatDifferInASpaceLookDifferent) {
  TempFile t("T1|w(x)|A\nT1 |w(x)|B\n");
  const CliResult r = run_racepred("analyze -e fasttrack " + t.quoted());
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("by thread T1\\x20 at B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("by thread T1 at A"), std::string::npos) << r.out;
}

TEST(PrintedNames, C1ControlsAndBidiOverridesAreEscaped) {
  TempFile t(
      "T1|w(a\xc2\x9b"
      "b)|A\xe2\x80\xae"
      "B\nT2|w(a\xc2\x9b"
      "b)|\x9b"
      "C\n");
  const CliResult r = run_racepred("analyze -e fasttrack " + t.quoted());
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("a\\u009bb"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("A\\u202eB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\x9bC"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\x9b"), std::string::npos);
  EXPECT_EQ(r.out.find("\xe2\x80\xae"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Pipes and messages

TEST(Messages, AClosedPipeEndsTheRunQuietly) {
  TempDir dir;
  const std::string trace = dir.file("big.std");
  CliResult g =
      run_racepred("generate --events 200000 --seed 3 --racy-share 0.3 -o " + shell_quote(trace));
  ASSERT_EQ(g.code, 0) << g.err;
  const CliResult r =
      run_shell("bash -c " +
                shell_quote(shell_quote(racepred_binary()) + " analyze -e all " +
                            shell_quote(trace) + " | head -1 >/dev/null; echo ${PIPESTATUS[0]}"));
  EXPECT_EQ(r.out, "2\n") << r.err;  // not 141 (SIGPIPE)
  EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
  const CliResult c =
      run_shell("bash -c " + shell_quote(shell_quote(racepred_binary()) +
                                         " generate --events 2000000 | head -1 >/dev/null; echo "
                                         "${PIPESTATUS[0]}"));
  EXPECT_EQ(c.out, "2\n") << c.err;
  EXPECT_EQ(c.err, "");
}

TEST(Messages, OneErrorPrefixEverywhere) {
  TempFile t(kRacy);
  CliResult r = run_racepred("analyze --bogus " + t.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("racepred: error: ", 0), 0u) << r.err;
  r = run_racepred("analyze");
  EXPECT_EQ(r.err.rfind("racepred: error: ", 0), 0u) << r.err;
  r = run_racepred("record");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("racepred: error: give the program", 0), 0u) << r.err;
  r = run_racepred("record -o " + shell_quote("/tmp/racepred_trust_none.rpt") +
                   " -- /nonexistent/program");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find("record:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("racepred: error: "), std::string::npos) << r.err;
  r = run_racepred("exact --max-states 1 " + shell_quote(std::string(RACEPRED_EXAMPLES_DIR) +
                                                         "/exact/fig02_cross_thread.std"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find("exact: error"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("racepred: error: ", 0), 0u) << r.err;
}

TEST(Messages, RacyShareOutOfRangeNamesRacyShare) {
  const CliResult r = run_racepred("generate --racy-share 2 --events 10");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--racy-share"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--local-share"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("racepred: error: ", 0), 0u) << r.err;
}

// ---------------------------------------------------------------------------------------------
// -e takes one value

TEST(EngineOption, TakesOneValueOnEveryCommand) {
  TempFile a(kRacy), b("T1|w(y)|C\nT2|w(y)|D\n");
  CliResult r = run_racepred("compare -e pwr,pwr-cs " + a.quoted() + " " + b.quoted());
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find(a.path()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(b.path()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pwr-cs races"), std::string::npos) << r.out;
  r = run_racepred("analyze -e fasttrack,lockset " + a.quoted());
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("with engine lockset"), std::string::npos) << r.out;
  r = run_racepred("analyze -e fasttrack -e lockset " + a.quoted());
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("with engine lockset"), std::string::npos) << r.out;
  r = run_racepred("annotate -e lockset " + a.quoted());
  EXPECT_EQ(r.code, 1) << r.err;
}

// ---------------------------------------------------------------------------------------------
// compare's location pairs

TEST(CompareLocationPairs, EnginesThatCountInBulkStillCountTheirLocationPairs) {
  TempFile t("T1|w(x)|A\nT2|w(x)|B\nT3|w(x)|C\nT1|w(y)|D\nT2|w(y)|E\n");
  const CliResult r =
      run_racepred("compare --format json -e lockset,tsan1,hb-pairs,fasttrack " + t.quoted());
  EXPECT_EQ(r.code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& e : j["traces"][0]["results"]) {
    EXPECT_GT(e["race_count"].get<int>(), 0) << e;
    EXPECT_GT(e["location_pair_count"].get<int>(), 0) << e;
  }
  EXPECT_EQ(j["traces"][0]["results"][0]["race_count"], 4);
  EXPECT_EQ(j["traces"][0]["results"][0]["location_pair_count"], 4);
}

// ---------------------------------------------------------------------------------------------
// Conflicting options

TEST(ConflictingOptions, AreRejected) {
  TempFile t(kRacy);
  CliResult r = run_racepred("record --finish x.raw --repair y.rpt");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("racepred: error: --finish excludes --repair"), std::string::npos) << r.err;
  r = run_racepred("record --finish x.raw -- /bin/true");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
  r = run_racepred("annotate --width -5 " + t.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--width"), std::string::npos) << r.err;
}

// ---------------------------------------------------------------------------------------------
// Messages that said the wrong thing

TEST(Messages, ACutBinaryHeaderIsNotBadMagic) {
  TempFile t(std::string("\x89RPT\r\n\x1a\n\x01\x00", 10), ".rpt");
  const CliResult r = run_racepred("analyze " + t.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find("bad magic"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cut short inside its 16-byte header (10 bytes)"), std::string::npos)
      << r.err;
}

TEST(Messages, ACorruptZstdSaysWhereTheDamageWasFound) {
  if (std::system("command -v zstd >/dev/null 2>&1") != 0) GTEST_SKIP() << "no zstd";
  TempDir dir;
  const std::string trace = dir.file("t.std");
  ASSERT_EQ(run_racepred("generate --events 300000 --seed 2 -o " + shell_quote(trace)).code, 0);
  ASSERT_EQ(run_shell("zstd -q -f " + shell_quote(trace)).code, 0);
  std::string z = slurp(trace + ".zst");
  ASSERT_GT(z.size(), 100001u);
  for (size_t i = 100000; i < 100004; ++i) z[i] = '\xff';
  write_file(trace + ".zst", z);
  const CliResult r = run_racepred("analyze " + shell_quote(trace + ".zst"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("zstd data corrupt"), std::string::npos) << r.err;
  const size_t at = r.err.find("(compressed byte ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const uint64_t offset = std::stoull(r.err.substr(at + 17));
  EXPECT_GE(offset, 100000u) << r.err;  // where the damage was found: at or after it
  EXPECT_LT(offset, 100000u + (64u << 10)) << r.err;
}

TEST(Messages, LenientOnACutBinaryTraceSpeaksOfTheCut) {
  TempDir dir;
  const std::string trace = dir.file("t.std");
  write_file(trace, kRacy);
  const std::string rpt = dir.file("t.rpt");
  ASSERT_EQ(
      run_racepred("convert --to binary -o " + shell_quote(rpt) + " " + shell_quote(trace)).code,
      0);
  const std::string bytes = slurp(rpt);
  write_file(rpt, bytes.substr(0, bytes.size() - 24));  // the trailer cut off
  const CliResult r = run_racepred("analyze --lenient " + shell_quote(rpt));
  EXPECT_NE(r.err.find("cut short"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("malformed line"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--lenient reads them"), std::string::npos) << r.err;
}

TEST(Messages, ANegativeLockFrameIdIsALockFrameError) {
  TempFile t("-1,WR,1\n", ".csv");
  const CliResult r = run_racepred("analyze " + t.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find("THREAD|OP(ARG)|LOCATION"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("thread id"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("read as lockframe"), std::string::npos) << r.err;
}

TEST(Messages, AnInputWithoutEventsGetsANote) {
  for (const std::string& text : {std::string(), std::string("\xEF\xBB\xBF"),
                                  std::string("# only a comment\n\n# and another\n")}) {
    TempFile t(text);
    const CliResult r = run_racepred("analyze " + t.quoted());
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("note: " + t.path() + ": the input holds no events"), std::string::npos)
        << r.err;
  }
}

// ---------------------------------------------------------------------------------------------
// convert to SpeedyGo

TEST(ConvertSpeedyGo, SaysThatEventIdsChange) {
  TempFile t("T1|fork(T2)|1\nT2|w(V1)|2\nT1|w(V1)|3\n");
  CliResult r = run_racepred("convert --to speedygo " + t.quoted());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("racepred: note: event ids change"), std::string::npos) << r.err;
  TempFile plain("T1|w(V1)|1\nT2|w(V1)|2\n");
  r = run_racepred("convert --to speedygo " + plain.quoted());
  EXPECT_EQ(r.err, "");
}

// ---------------------------------------------------------------------------------------------
// Docs that must match the program

TEST(Docs, CliMdListsEveryCommandAndRecorderMdKnowsReadLocks) {
  const std::string root = std::string(RACEPRED_EXAMPLES_DIR) + "/..";
  const std::string cli = slurp(root + "/docs/CLI.md");
  const CliResult help = run_racepred("--help");
  std::istringstream lines(help.out);
  std::string line;
  bool in_commands = false;
  int commands = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("Subcommands:", 0) == 0) {
      in_commands = true;
      continue;
    }
    // "  name    description"; continuation lines are indented further.
    if (!in_commands || line.size() < 3 || line[0] != ' ' || line[1] != ' ' || line[2] == ' ')
      continue;
    std::istringstream words(line);
    std::string name;
    words >> name;
    ++commands;
    EXPECT_NE(cli.find("| [`" + name + "`](#" + name + ") |"), std::string::npos) << name;
  }
  EXPECT_GE(commands, 10);
  const std::string recorder = slurp(root + "/docs/RECORDER.md");
  EXPECT_EQ(recorder.find("no\n  read-lock events"), std::string::npos);
  EXPECT_EQ(recorder.find("there are no read-lock events"), std::string::npos);
}

TEST(Docs, ReadmeQuickStartShowsWhatTheCommandPrints) {
  const std::string root = std::string(RACEPRED_EXAMPLES_DIR) + "/..";
  const std::string readme = slurp(root + "/README.md");
  // Every "$ cat FILE" or "$ grep -v '^#' FILE" in a README example shows that command's output.
  size_t checked = 0;
  for (const std::string command : {"$ cat ", "$ grep -v '^#' "}) {
    for (size_t at = readme.find(command); at != std::string::npos;
         at = readme.find(command, at + 1)) {
      const size_t end = readme.find('\n', at);
      std::string file = readme.substr(at + command.size(), end - at - command.size());
      file = file.substr(0, file.find(' '));
      const size_t next = readme.find("\n$ ", end);
      const std::string shown = readme.substr(end + 1, next - end);
      const CliResult r =
          run_shell("cd " + shell_quote(root) + " && " + readme.substr(at + 2, end - at - 2));
      EXPECT_EQ(shown, r.out) << file;
      ++checked;
    }
  }
  EXPECT_GE(checked, 1u);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::testing
