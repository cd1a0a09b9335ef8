// Hostile input and honest reporting (one test per finding of the hardening review): every input
// ends in a correct result or a clear error with exit code 2, never a signal, an abort, an
// unbounded allocation or a report that claims more than it knows. Big inputs are generated here.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "racepred/cli/options.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/report/race.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"
#include "racepred/trace/symbols.hpp"
#include "racepred/trace/validator.hpp"
#include "support/cli_run.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using nlohmann::json;
using testing::CliResult;
using testing::run_racepred;
using testing::TempFile;

// 1. A byte that is not UTF-8 in a name: every command writes valid JSON (U+FFFD in its place).
TEST(Hardening, JsonWithInvalidUtf8NamesInEveryCommand) {
  TempFile trace(
      "T0|w(a\xff"
      "b)|L\xfe"
      "1\nT1|w(a\xff"
      "b)|L2\n");
  for (const std::string command : {"analyze", "check", "stats", "exact", "annotate"}) {
    const CliResult r = run_racepred(command + " --format json " + trace.quoted());
    EXPECT_EQ(r.signal, 0) << command;
    EXPECT_TRUE(r.code == 0 || r.code == 1) << command << ": " << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["schema"], "racepred/2");
    EXPECT_EQ(j["command"], command);
    EXPECT_TRUE(j.contains("version"));
    // One trace object for every command.
    for (const char* key :
         {"path", "format", "events", "threads", "variables", "locks", "skipped_events"})
      EXPECT_TRUE(j["trace"].contains(key)) << command << " " << key;
    EXPECT_EQ(j["trace"]["events"], 2) << command;
  }
  const json j = json::parse(run_racepred("analyze --format json " + trace.quoted()).out);
  EXPECT_EQ(j["results"][0]["findings"][0]["variable"],
            "a\xef\xbf\xbd"
            "b");
}

// 2. A report that cannot be written is an error (exit 2 and a message), in every command.
TEST(Hardening, WriteErrorsFailWithExitTwo) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string trace =
      testing::shell_quote(std::string(RACEPRED_EXAMPLES_DIR) + "/lockset/trace_a.std");
  for (const std::string command : {"analyze", "analyze --format json", "check", "stats",
                                    "stats --format json", "exact", "annotate"}) {
    const CliResult r = run_racepred(command + " " + trace + " >/dev/full");
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_NE(r.err.find("cannot write the report to standard output"), std::string::npos)
        << command << ": " << r.err;
  }
}

// -o FILE: written atomically; a failed run leaves no file and no temporary behind.
TEST(Hardening, OutputFileIsAtomic) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("racepred_out_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "report.json").string();
  TempFile good("T0|w(x)|1\nT1|w(x)|2\n");
  CliResult r =
      run_racepred("analyze --format json -o " + testing::shell_quote(out) + " " + good.quoted());
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(r.out.empty());
  std::ifstream in(out);
  EXPECT_EQ(json::parse(in)["results"][0]["race_count"], 1);
  std::filesystem::remove(out);
  TempFile bad("T0|w(x)|1\nT0|wr(x)|2\n");
  r = run_racepred("analyze -o " + testing::shell_quote(out) + " " + bad.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 0);
  // With --format json the failed run writes the error object.
  r = run_racepred("check --format json " + bad.quoted());
  EXPECT_EQ(r.code, 2);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["error"]["kind"], "input");
  EXPECT_NE(j["error"]["message"].get<std::string>().find(":2:"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// A consumer that truncates the file it is being fed from after the first event.
class Truncator : public EventConsumer {
 public:
  explicit Truncator(std::string path) : path_(std::move(path)) {}
  void on_event(EventId, const Event&, uint32_t) override {
    if (!done_) {
      done_ = true;
      EXPECT_EQ(::truncate(path_.c_str(), 0), 0);
    }
  }

 private:
  std::string path_;
  bool done_ = false;
};

// 3. A mapped file truncated while it is read: an input error, not SIGBUS.
TEST(Hardening, FileTruncatedWhileReadIsAnInputError) {
  std::string text;
  for (int i = 0; i < 200000; ++i) {  // ~2 MB
    text += 'T';
    text += std::to_string(i % 4);
    text += "|w(x)|L1\n";
  }
  TempFile file(text);
  Symbols symbols;
  Truncator consumer(file.path());
  try {
    read_events(file.path(), ReadOptions{}, symbols, consumer);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated while it was read"), std::string::npos)
        << e.what();
  }
}

// 4. Lines have a limit: a file without newlines is an error naming its line, from a file,
// from a pipe and in either format, and memory stays bounded.
TEST(Hardening, OverlongLinesAreErrorsNamingTheLine) {
  const std::string big(kMaxLineBytes + 10, 'a');
  std::string text = "T0|w(x)|1\n";
  text += big;
  text += "\nT1|w(x)|2\n";
  TempFile file(text);
  CliResult r = run_racepred("analyze " + file.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(":2:1: error: line of"), std::string::npos) << r.err;
  r = run_racepred("analyze -", file.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("<stdin>:2:1: error: line"), std::string::npos) << r.err;
  TempFile no_newline(big + big);
  r = run_racepred("stats - ", no_newline.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("<stdin>:1:1: error: line longer than the limit"), std::string::npos)
      << r.err;
  r = run_racepred("analyze --input-format speedygo - ", no_newline.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("longer than the limit"), std::string::npos) << r.err;
  r = run_racepred("check --input-format speedygo " + no_newline.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(":1:1: error: line of"), std::string::npos) << r.err;
  // --lenient skips it and counts it.
  r = run_racepred("analyze --lenient " + file.quoted());
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("skipped 1 malformed line"), std::string::npos) << r.err;
}

// 6. check and stats keep the first N violations and count them all.
TEST(Hardening, ViolationsAreCountedNotAllKept) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "T0|rel(l)|1\n";
  TempFile file(text);
  CliResult r = run_racepred("check --format json --max-violations 3 " + file.quoted());
  EXPECT_EQ(r.code, 2);
  json j = json::parse(r.out);
  EXPECT_EQ(j["verdict"], "ill-formed");
  EXPECT_EQ(j["violation_count"], 5000);
  EXPECT_EQ(j["violations"].size(), 3u);
  EXPECT_EQ(j["violations_truncated"], true);
  r = run_racepred("check --max-violations 2 " + file.quoted());
  EXPECT_NE(r.out.find("4998 more violations not listed"), std::string::npos) << r.out;
  j = json::parse(run_racepred("stats --format json " + file.quoted()).out);
  EXPECT_EQ(j["stats"]["violations"], 5000);
}

// 8. --max-races bounds every list of the JSON; the counts stay exact.
TEST(Hardening, MaxRacesBoundsEveryList) {
  std::string text;
  for (int i = 0; i < 300; ++i) {
    text += 'T';
    text += std::to_string(i % 3);
    text += "|w(x";
    text += std::to_string(i % 50);
    text += ")|L";
    text += std::to_string(i);
    text += '\n';
  }
  TempFile file(text);
  const json j = json::parse(
      run_racepred("analyze -e fasttrack,lockset --format json --max-races 5 " + file.quoted())
          .out);
  for (const json& result : j["results"]) {
    EXPECT_LE(result["findings"].size(), 5u);
    EXPECT_LE(result["racy_events"].size(), 5u);
    EXPECT_LE(result["racy_locations"].size(), 5u);
    EXPECT_EQ(result["racy_event_count"], 250)
        << result["engine"];  // every access after the first 50
    EXPECT_EQ(result["racy_location_count"], 250);
    EXPECT_EQ(result["truncated"], true);
  }
}

TEST(Hardening, RaceSinkCountsExactlyWithBoundedLists) {
  RaceSink sink(2, 3);
  for (EventId e = 100; e > 1; --e)  // reported out of detection order
    sink.report(Race{Access{e - 1, 0, 1, Op::Write},
                     Access{e, 1, static_cast<LocationId>(e % 7), Op::Write}, 0});
  sink.finalize();
  EXPECT_EQ(sink.race_count(), 99u);
  EXPECT_EQ(sink.racy_event_count(), 99u);
  EXPECT_EQ(sink.racy_events(), (std::vector<EventId>{2, 3, 4}));
  EXPECT_EQ(sink.racy_location_count(), 7u);
  EXPECT_EQ(sink.racy_locations(), (std::vector<LocationId>{0, 1, 2}));
  EXPECT_EQ(sink.races().size(), 2u);
  ASSERT_TRUE(sink.has_first_detected());
  EXPECT_EQ(sink.first_detected().second.event, 2u);
  EXPECT_TRUE(sink.lists_truncated());
}

// 10. A UTF-8 byte-order mark is not part of the first thread's name.
TEST(Hardening, ByteOrderMarkIsStripped) {
  const Trace t = parse_trace("\xEF\xBB\xBFT0|w(x)|1\nT0|w(x)|2\n");
  ASSERT_EQ(t.symbols.threads.size(), 1u);
  EXPECT_EQ(t.thread_name(0), "T0");
  TempFile sg(
      "\xEF\xBB\xBF"
      "1,RD,5,f.go:3,0\n1,WR,5,f.go:4,0\n");
  const CliResult r = run_racepred("stats --format json " + sg.quoted());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["trace"]["format"], "speedygo");
  TempFile std_file("\xEF\xBB\xBFT0|w(x)|1\nT0|w(x)|2\n");
  EXPECT_EQ(run_racepred("analyze " + std_file.quoted()).code, 0);  // no race with itself
  EXPECT_EQ(run_racepred("analyze - ", std_file.path()).code, 0);
}

// 12. The text names the first detected race; JSON carries it as first_detected.
TEST(Hardening, FirstDetectedRaceIsShown) {
  // (2,3) is detected first (later event 3); (1,4) has the smallest first id.
  TempFile file("T0|w(y)|A\nT0|w(x)|B\nT1|w(x)|C\nT1|w(y)|D\n");
  const CliResult r = run_racepred("analyze -e fasttrack " + file.quoted());
  const size_t first_block = r.out.find("WARNING");
  EXPECT_NE(r.out.find("Write of x by thread T1 at C (event 3)", first_block), std::string::npos);
  EXPECT_LT(r.out.find("event 3"), r.out.find("event 4")) << r.out;
  // The first block is the race fasttrack's first-race guarantee is about: predicted.
  EXPECT_EQ(r.out.find("WARNING: data race (engine fasttrack, predicted)"), first_block) << r.out;
  EXPECT_NE(r.out.find("WARNING: data race (engine fasttrack, possible)"), std::string::npos);
  const json j =
      json::parse(run_racepred("analyze -e fasttrack --format json " + file.quoted()).out);
  EXPECT_EQ(j["results"][0]["first_detected"]["first"], 2);
  EXPECT_EQ(j["results"][0]["first_detected"]["second"], 3);
  EXPECT_EQ(j["results"][0]["findings"][0]["first"], 1);  // findings stay sorted
}

// 13. Join before fork: one rule (Def. 3.2 Join, in the validator) for every command, with file
// and line: the join is fine while the thread has no event; its first event after the fork
// breaks Join.
TEST(Hardening, JoinBeforeForkIsOneRuleEverywhere) {
  TempFile file("T0|join(T1)|1\nT0|fork(T1)|2\nT1|w(x)|3\n");
  CliResult r = run_racepred("check " + file.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find(":3: error: Join: event 3 (line 3): T1 has an event after it was joined at "
                       "event 1 (line 1)"),
            std::string::npos)
      << r.out;
  for (const std::string command : {"analyze -e fasttrack", "analyze -e all", "exact",
                                    "exact --enabled", "annotate -e hb", "analyze -e ls-cross"}) {
    r = run_racepred(command + " " + file.quoted());
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_NE(r.err.find(":3:1: error: trace is not well-formed (Join)"), std::string::npos)
        << command << ": " << r.err;
  }
}

// 14. Control characters in names are escaped in text; long names are cut.
TEST(Hardening, NamesCannotControlTheTerminal) {
  std::string text = "T0|w(x)|L\x1b[2K\rSUMMARY\nT1|w(x)|";
  text.append(100000, 'n');
  text += '\n';
  TempFile file(text);
  const CliResult r = run_racepred("analyze " + file.quoted());
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_NE(r.out.find("L\\x1b[2K\\x0dSUMMARY"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("...[100000 bytes]"), std::string::npos);
  EXPECT_LT(r.out.size(), 4000u);
  for (const std::string command : {"check", "stats", "exact", "annotate"}) {
    const CliResult c = run_racepred(command + " " + file.quoted());
    EXPECT_EQ(c.out.find('\x1b'), std::string::npos) << command;
  }
  EXPECT_EQ(printable("a\tb\x7f"), "a\\x09b\\x7f");
  EXPECT_EQ(printable("\xc3\xa9\xc3\xa9", 3), "\xc3\xa9...[4 bytes]");  // not inside a character
}

// 16. Smaller: unknown command named; ranges and overflow checked on the text; check says
// ill-formed or unreadable; idle threads are warned about.
TEST(Hardening, UsageMessagesSayWhatIsWrong) {
  CliResult r = run_racepred("bogus");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown command 'bogus'; commands: analyze"), std::string::npos) << r.err;
  r = run_racepred("generate --events 99999999999999999999");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'99999999999999999999' is not a whole number from 0 to"), std::string::npos)
      << r.err;
  r = run_racepred("exact --max-states 1e9 x.std");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'1e9' is not a whole number from 0 to"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("1.797"), std::string::npos);

  TempFile ill("T0|rel(l)|1\n");
  r = run_racepred("check " + ill.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("NOT well-formed"), std::string::npos);
  r = run_racepred("check /nonexistent/t.std");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot open file"), std::string::npos);

  TempFile idle("T0|fork(T1)|1\nT0|join(T2)|2\nT0|w(x)|3\n");
  r = run_racepred("check " + idle.quoted());
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("warning: 2 threads forked or joined without an event of its own: T1 T2"),
            std::string::npos)
      << r.out;
  r = run_racepred("analyze " + idle.quoted());
  EXPECT_NE(r.err.find("without an event of their own"), std::string::npos) << r.err;
  EXPECT_EQ(run_racepred("analyze -q " + idle.quoted()).err, "");
}

// 5. exact's tables (events x threads) are in its budget: a wide trace is refused up front.
TEST(Hardening, ExactBudgetCoversItsTables) {
  std::string text;
  for (int t = 0; t < 3000; ++t) {
    text += 'T';
    text += std::to_string(t);
    text += "|w(x)|L\n";
  }
  TempFile file(text);
  CliResult r = run_racepred("exact --max-memory 1 " + file.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("MiB of tables (3000 events x 3000 threads) before the search starts, more "
                       "than the memory budget of 1 MiB (--max-memory)"),
            std::string::npos)
      << r.err;
  r = run_racepred("analyze -e exact,ls-cross --max-memory 1 " + file.quoted());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("ERROR: engine exact failed"), std::string::npos) << r.out;
}

// 9. An offline engine out of budget in analyze: the others are reported, the failure marked.
TEST(Hardening, FailedOfflineEngineKeepsTheOthers) {
  TempFile racy("T0|w(x)|1\nT1|w(x)|2\nT0|w(y)|3\nT1|w(y)|4\nT2|w(z)|5\n");
  CliResult r = run_racepred("analyze -e fasttrack,exact --max-states 1 " + racy.quoted());
  EXPECT_EQ(r.code, 1) << r.err;  // fasttrack's races stand
  EXPECT_NE(r.out.find("ERROR: engine exact failed; the other engines' results stand\n  "
                       "racepred: error: exact: search stopped after 1 states (--max-states 1)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("SUMMARY: racepred: engine exact FAILED, no result"), std::string::npos);
  EXPECT_NE(r.out.find("with engine fasttrack"), std::string::npos);
  const json j = json::parse(
      run_racepred("analyze -e fasttrack,exact --max-states 1 --format json " + racy.quoted()).out);
  EXPECT_EQ(j["results"][0]["race_count"], 2);
  EXPECT_EQ(j["results"][1]["failed"], true);
  EXPECT_NE(j["results"][1]["error"].get<std::string>().find("--max-states"), std::string::npos);
  // Without any race reported, a failed engine makes the run exit 2, not 0.
  TempFile quiet("T0|w(x)|1\nT0|w(x)|2\nT1|r(y)|3\nT2|r(y)|4\n");
  r = run_racepred("analyze -e fasttrack,exact --max-states 1 " + quiet.quoted());
  EXPECT_EQ(r.code, 2) << r.out;
}

// 11. goldilocks' read-read pairs are discipline violations, not data races.
TEST(Hardening, ReadReadPairsAreNotDataRaces) {
  TempFile reads("T0|r(x)|A\nT1|r(x)|B\n");
  CliResult r = run_racepred("analyze -e all " + reads.quoted());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("WARNING: data race"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("WARNING: read-read discipline violation (engine goldilocks, possible), "
                       "not a data race"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("SUMMARY: racepred: 0 races and 1 read-read discipline violation (not data "
                       "races) (1 racy event"),
            std::string::npos)
      << r.out;
  const json j =
      json::parse(run_racepred("analyze -e goldilocks --format json " + reads.quoted()).out);
  EXPECT_EQ(j["results"][0]["counts"]["read-read-violation"], 1);
  EXPECT_EQ(j["results"][0]["counts"]["data-race"], 0);
  EXPECT_EQ(j["results"][0]["race_count"], 1);
  EXPECT_EQ(j["results"][0]["findings"][0]["kind"], "read-read-violation");
  EXPECT_EQ(j["results"][0]["findings"][0]["access"], "read-read");
  TempFile write("T0|r(x)|A\nT1|w(x)|B\n");
  EXPECT_EQ(run_racepred("analyze -e goldilocks " + write.quoted()).code, 1);
}

// 14, in every command: no control character from a name, a path or an argument reaches stdout
// or stderr raw (errors of check, exact, convert and generate, usage errors, the unknown
// command, a missing file, the validator's messages in analyze and compare).
TEST(Hardening, EveryCommandEscapesNamesOnStdoutAndStderr) {
  const std::string esc = "\x1b[31m";
  TempFile ok("T0|w(x" + esc + ")|L\x1b[2K\rSUMMARY\nT1|w(x" + esc + ")|M\rX\n");
  TempFile bad("T0|w(x" + esc + ")|L\rA\nT1|w(x)|M\nT1|rel(l" + esc + ")|1\n");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("racepred_esc_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string evil_path = (dir / ("p" + esc + "q.std")).string();
  std::filesystem::copy_file(bad.path(), evil_path,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string evil = testing::shell_quote("a" + esc + "b\r");
  for (const std::string& command : {"analyze " + bad.quoted(),
                                     "analyze --lenient " + bad.quoted(),
                                     "check " + bad.quoted(),
                                     "check " + testing::shell_quote(evil_path),
                                     "stats " + bad.quoted(),
                                     "exact " + bad.quoted(),
                                     "exact " + ok.quoted(),
                                     "annotate " + bad.quoted(),
                                     "annotate -e lockset " + ok.quoted(),
                                     "convert --to rr " + ok.quoted(),
                                     "convert --to speedygo " + ok.quoted(),
                                     "compare -e lockset -e fasttrack " + ok.quoted(),
                                     "compare --lenient -e lockset -e fasttrack " + bad.quoted(),
                                     "generate --preset " + evil,
                                     "generate --shape " + evil,
                                     "analyze " + evil,
                                     "analyze -e " + evil + " " + ok.quoted(),
                                     "analyze --format " + evil + " " + ok.quoted(),
                                     "check --max-violations " + evil + " x",
                                     evil}) {
    const CliResult r = run_racepred(command);
    EXPECT_EQ(r.signal, 0) << command;
    EXPECT_LE(r.code, 2) << command;
    for (const std::string* stream : {&r.out, &r.err}) {
      EXPECT_EQ(stream->find('\x1b'), std::string::npos) << command << ":\n" << *stream;
      EXPECT_EQ(stream->find('\r'), std::string::npos) << command << ":\n" << *stream;
    }
  }
  std::filesystem::remove_all(dir);
}

// 4. The limit on distinct names: one name past it is an input error naming the line.
TEST(Hardening, DistinctNameLimitIsAnInputErrorNamingTheLine) {
  SymbolTable table;
  table.set_max_names(3);
  for (const char* name : {"a", "b", "c", "a"}) table.intern(name);
  EXPECT_THROW(table.intern("d"), NameLimitError);
  EXPECT_EQ(table.size(), 3u);
  for (const InputFormat format : {InputFormat::Std, InputFormat::SpeedyGo}) {
    Symbols symbols;
    symbols.variables.set_max_names(2);
    struct Discard : EventConsumer {
      void on_event(EventId, const Event&, uint32_t) override {}
    } sink;
    const std::string text = format == InputFormat::Std
                                 ? "T0|w(x)|1\nT0|w(y)|2\nT0|w(x)|3\nT0|w(z)|4\n"
                                 : "1,WR,10,a.go:1,0\n1,WR,11,a.go:2,0\n1,WR,10,a.go:3,0\n"
                                   "1,WR,12,a.go:4,0\n";
    try {
      read_events_from_string(text, "names.std", ReadOptions{format, false}, symbols, sink);
      ADD_FAILURE() << "no error past the name limit";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("names.std:4:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("more than 2 distinct names"), std::string::npos)
          << e.what();
    }
  }
}

// "Usable in CI": the progress line only when stderr is a terminal, never with -q or in CI.
TEST(Hardening, ProgressLineOnlyOnATerminalWithoutQuietOutsideCi) {
  EXPECT_TRUE(cli::progress_wanted(false, true, nullptr));
  EXPECT_FALSE(cli::progress_wanted(true, true, nullptr));    // -q
  EXPECT_FALSE(cli::progress_wanted(false, false, nullptr));  // stderr a file or a pipe
  EXPECT_FALSE(cli::progress_wanted(false, true, "true"));    // CI set
  EXPECT_FALSE(cli::progress_wanted(false, true, ""));        // CI set, even empty
  // A real terminal (a pty from `script`): events arrive through a pipe that pauses for two
  // seconds, so the run lasts past the one second before the first progress line.
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1)";
  std::string body;
  for (int i = 0; i < 20000; ++i) {
    body += i % 2 ? "T1|w(x" : "T0|w(x";
    body += std::to_string(i);
    body += ")|1\n";
  }
  TempFile events(body);
  const std::string feed =
      "{ head -n 100 " + events.quoted() + "; sleep 2; tail -n +101 " + events.quoted() + "; }";
  auto run_in_pty = [&](const std::string& env, const std::string& options) {
    const std::string inner = feed + " | " + env + " " +
                              testing::shell_quote(testing::racepred_binary()) +
                              " analyze -e fasttrack " + options + " - >/dev/null";
    const CliResult r =
        testing::run_shell("script -qec " + testing::shell_quote(inner) + " /dev/null");
    return r.out;
  };
  EXPECT_NE(run_in_pty("env -u CI", "").find("events read"), std::string::npos);
  EXPECT_EQ(run_in_pty("env -u CI", "-q").find("events read"), std::string::npos);
  EXPECT_EQ(run_in_pty("env CI=1", "").find("events read"), std::string::npos);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
