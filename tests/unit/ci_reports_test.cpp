// Reports for CI, end to end through the CLI binary: stable fingerprints, SARIF 2.1.0 (checked
// against the OASIS schema), ThreadSanitizer-style suppressions, baselines, `racepred merge` and
// colour.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "racepred/io/comments.hpp"
#include "racepred/report/fingerprint.hpp"
#include "racepred/report/html.hpp"
#include "racepred/report/suppressions.hpp"
#include "racepred/trace/error.hpp"
#include "support/cli_run.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CliResult;
using testing::run_racepred;
using testing::shell_quote;

// A directory under the temporary directory, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("racepred_ci_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// Two threads write x at w.c:LINE1 (worker) and w.c:LINE2 (other), nothing orders them.
std::string two_writers(int line1, int line2, bool swapped = false, bool padded = false) {
  std::string t;
  if (padded) t += "main|w(y)|m.c:1 (main)\nmain|r(y)|m.c:1 (main)\n";
  t += "main|fork(T1)|m.c:2 (main)\nmain|fork(T2)|m.c:3 (main)\n";
  const std::string a = "T1|w(x)|w.c:" + std::to_string(line1) + " (worker)\n";
  const std::string b = "T2|w(x)|w.c:" + std::to_string(line2) + " (other)\n";
  t += swapped ? b + a : a + b;
  return t;
}

const char* kSource = "int x;\nvoid worker(void) {\n  x = 1;\n  x = 2;\n}\n";
// The same source with two lines inserted above and the indentation changed.
const char* kShiftedSource =
    "// a comment\n// another\nint x;\nvoid worker(void) {\n    x = 1;\n\tx = 2;\n}\n";

std::vector<std::string> fingerprints_of(const std::string& trace, const std::string& extra = "") {
  const CliResult r = run_racepred("analyze --format json " + extra + " " + shell_quote(trace));
  EXPECT_EQ(r.code, 1) << r.err;
  std::vector<std::string> out;
  const json doc = json::parse(r.out);
  for (const json& result : doc["results"])
    for (const json& f : result["findings"]) out.push_back(f["fingerprint"].get<std::string>());
  return out;
}

TEST(Fingerprint, SitesAreTakenApart) {
  const Site a = parse_site("src/w.c:12:5 (worker)");
  EXPECT_EQ(a.file, "src/w.c");
  EXPECT_EQ(a.line, 12u);
  EXPECT_EQ(a.column, 5u);
  EXPECT_EQ(a.function, "worker");
  const Site b = parse_site("Main.java:40");
  EXPECT_EQ(b.file, "Main.java");
  EXPECT_EQ(b.line, 40u);
  EXPECT_EQ(b.function, "");
  for (const char* label : {"L9", "12", "libfoo.so+0x1a2b", "-"}) {
    const Site c = parse_site(label);
    EXPECT_FALSE(c.has_file()) << label;
    EXPECT_EQ(c.label, label);
  }
}

TEST(Fingerprint, SwappedRolesAndOtherEventIdsKeepIt) {
  TempDir dir;
  dir.write("w.c", kSource);
  const std::vector<std::string> a = fingerprints_of(dir.write("a.std", two_writers(3, 4)));
  // Re-recorded: the other thread wrote first, and two more events come before (other ids).
  const std::vector<std::string> b =
      fingerprints_of(dir.write("b.std", two_writers(3, 4, /*swapped=*/true, /*padded=*/true)));
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0].size(), 16u);
  EXPECT_EQ(a[0], b[0]);
  // Another pair of sites is another finding.
  const std::vector<std::string> c = fingerprints_of(dir.write("c.std", two_writers(3, 3)));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NE(a[0], c[0]);
}

TEST(Fingerprint, ShiftedLinesKeepItWhenTheSourceIsReadable) {
  TempDir old_dir, new_dir, no_source;
  old_dir.write("w.c", kSource);
  new_dir.write("w.c", kShiftedSource);
  const std::vector<std::string> before =
      fingerprints_of(old_dir.write("t.std", two_writers(3, 4)));
  const std::vector<std::string> after = fingerprints_of(new_dir.write("t.std", two_writers(5, 6)));
  ASSERT_EQ(before.size(), 1u);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(before[0], after[0]);
  // Without the source the line number stands for the line: shifted, it is another fingerprint.
  const std::vector<std::string> blind =
      fingerprints_of(no_source.write("t.std", two_writers(5, 6)));
  ASSERT_EQ(blind.size(), 1u);
  EXPECT_NE(blind[0], after[0]);
}

TEST(Fingerprint, TextReportShowsIt) {
  TempDir dir;
  const std::string trace = dir.write("t.std", two_writers(3, 4));
  const std::vector<std::string> fp = fingerprints_of(trace);
  ASSERT_EQ(fp.size(), 1u);
  const CliResult r = run_racepred("analyze " + shell_quote(trace));
  EXPECT_NE(r.out.find("  Fingerprint: " + fp[0] + "\n"), std::string::npos) << r.out;
}

// Validates `doc` against the SARIF 2.1.0 schema with python3-jsonschema; "" when valid.
std::string sarif_schema_errors(const std::string& doc) {
  TempDir dir;
  const std::string file = dir.write("log.sarif", doc);
  const std::string schema = std::string(RACEPRED_TEST_DATA_DIR) + "/sarif/sarif-schema-2.1.0.json";
  const std::string script =
      "import json,sys\n"
      "try:\n"
      "    import jsonschema\n"
      "except ImportError:\n"
      "    print('python3-jsonschema is missing (scripts/install-deps.sh)'); sys.exit(3)\n"
      "s=json.load(open(sys.argv[1])); d=json.load(open(sys.argv[2]))\n"
      "jsonschema.Draft4Validator.check_schema(s)\n"
      "errs=[e.message for e in jsonschema.Draft4Validator(s).iter_errors(d)]\n"
      "print('\\n'.join(errs)); sys.exit(1 if errs else 0)\n";
  const std::string py = dir.write("check.py", script);
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const CliResult r = testing::run_shell(python + " " + shell_quote(py) + " " +
                                         shell_quote(schema) + " " + shell_quote(file));
  if (r.code == 0) return "";
  return "exit " + std::to_string(r.code) + ": " + r.out + r.err;
}

TEST(Sarif, ValidAgainstTheSchemaWithLocationsFlowsAndFingerprints) {
  TempDir dir;
  dir.write("w.c", kSource);
  const std::string trace = dir.write("t.std", two_writers(3, 4));
  const CliResult r = run_racepred("analyze --format sarif " + shell_quote(trace));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(sarif_schema_errors(r.out), "");
  const json log = json::parse(r.out);
  EXPECT_EQ(log["version"], "2.1.0");
  const json& run = log["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "racepred");
  ASSERT_EQ(run["tool"]["driver"]["rules"].size(), 1u);
  EXPECT_EQ(run["tool"]["driver"]["rules"][0]["id"], "data-race/shb");
  ASSERT_EQ(run["results"].size(), 1u);
  const json& result = run["results"][0];
  EXPECT_EQ(result["ruleId"], "data-race/shb");
  EXPECT_EQ(result["level"], "error");
  ASSERT_EQ(result["locations"].size(), 2u);
  const json& second = result["locations"][0]["physicalLocation"];
  EXPECT_EQ(second["artifactLocation"]["uri"], "w.c");
  EXPECT_EQ(second["region"]["startLine"], 4);
  EXPECT_EQ(result["locations"][0]["logicalLocations"][0]["name"], "other");
  EXPECT_EQ(result["locations"][1]["physicalLocation"]["region"]["startLine"], 3);
  EXPECT_EQ(result["relatedLocations"].size(), 2u);
  EXPECT_EQ(result["partialFingerprints"]["racepred/v1"], fingerprints_of(trace).at(0));
  // The observed order: T1's write, then T2's.
  const json& flows = result["codeFlows"][0]["threadFlows"];
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0]["id"], "T1");
  EXPECT_EQ(flows[0]["locations"][0]["executionOrder"], 1);
  EXPECT_EQ(flows[1]["id"], "T2");
}

TEST(Sarif, WitnessesLabelsDeadlocksAndEmptyRunsAreValid) {
  TempDir dir;
  const std::string witnesses = dir.path("w.json");
  // A witness: its interleaving is the code flow.
  CliResult r =
      run_racepred("analyze --format sarif --witness=" + shell_quote(witnesses) + " " +
                   shell_quote(std::string(RACEPRED_EXAMPLES_DIR) + "/default/racy_counter.std"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(sarif_schema_errors(r.out), "");
  json log = json::parse(r.out);
  ASSERT_FALSE(log["runs"][0]["results"].empty());
  EXPECT_NE(log["runs"][0]["results"][0]["codeFlows"][0]["message"]["text"].get<std::string>().find(
                "witness"),
            std::string::npos);
  EXPECT_EQ(log["runs"][0]["results"][0]["properties"]["confidence"], "witnessed");
  // Plain labels are logical locations; two engines are two rules.
  r = run_racepred("analyze --format sarif -e shb,lockset " +
                   shell_quote(std::string(RACEPRED_EXAMPLES_DIR) + "/lockset/trace_a.std"));
  EXPECT_EQ(sarif_schema_errors(r.out), "");
  log = json::parse(r.out);
  ASSERT_EQ(log["runs"][0]["results"].size(), 1u);
  EXPECT_EQ(log["runs"][0]["results"][0]["locations"][0]["logicalLocations"][0]["name"], "e5");
  EXPECT_FALSE(log["runs"][0]["results"][0]["locations"][0].contains("physicalLocation"));
  // A deadlock: one location per step of the cycle.
  r = run_racepred("analyze --format sarif -e lockorder " +
                   shell_quote(std::string(RACEPRED_EXAMPLES_DIR) + "/deadlock/abba.std"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(sarif_schema_errors(r.out), "");
  log = json::parse(r.out);
  ASSERT_EQ(log["runs"][0]["results"].size(), 1u);
  EXPECT_EQ(log["runs"][0]["results"][0]["ruleId"], "deadlock/lockorder");
  EXPECT_EQ(log["runs"][0]["results"][0]["locations"].size(), 2u);
  // Nothing found: a valid log with no results.
  r = run_racepred("analyze --format sarif " +
                   shell_quote(std::string(RACEPRED_EXAMPLES_DIR) + "/default/mutex_counter.std"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(sarif_schema_errors(r.out), "");
  EXPECT_TRUE(json::parse(r.out)["runs"][0]["results"].empty());
}

// ThreadSanitizer's documented matching: `*` is any text and is implied at both ends, `^` and
// `$` anchor (the wiki "ThreadSanitizerSuppressions"; the examples are ThreadSanitizer's own
// standard-library suppressions and Chromium's).
TEST(Suppressions, MatchLikeThreadSanitizer) {
  EXPECT_TRUE(suppression_matches("^_M_rep$", "_M_rep"));
  EXPECT_FALSE(suppression_matches("^_M_rep$", "_M_rep_x"));
  EXPECT_FALSE(suppression_matches("^_M_rep$", "x_M_rep"));
  EXPECT_TRUE(
      suppression_matches("std::_Sp_counted_ptr_inplace<std::thread::_Impl",
                          "std::_Sp_counted_ptr_inplace<std::thread::_Impl<F>>::_M_dispose"));
  EXPECT_TRUE(suppression_matches("libglib*.so", "/usr/lib/libglib-2.0.so"));
  EXPECT_FALSE(suppression_matches("libglib*.so", "/usr/lib/libgio.so"));
  EXPECT_TRUE(suppression_matches("base/tools_sanity_unittest.cc",
                                  "/src/chromium/base/tools_sanity_unittest.cc"));
  EXPECT_TRUE(suppression_matches("race_fn", "my_race_fn_2"));  // implicit * at both ends
  EXPECT_TRUE(suppression_matches("^my_*_fn$", "my_race_fn"));
  EXPECT_FALSE(suppression_matches("^my_*_fn$", "my_race_fn2"));
  EXPECT_TRUE(suppression_matches("fn$", "a_fn"));
  EXPECT_FALSE(suppression_matches("fn$", "fn_a"));
  EXPECT_TRUE(suppression_matches("*", "anything"));
  EXPECT_FALSE(suppression_matches("x", ""));
}

TEST(Suppressions, ParseErrorsNameFileLineAndColumn) {
  const Suppressions ok = Suppressions::parse(
      "# ThreadSanitizer suppressions\n\nrace:^_M_rep$\n  race_top:worker  \ncalled_from_lib:"
      "libzmq.so\nthread:T2\ndeadlock:abba\nmutex:m\nsignal:h\n",
      "s.supp");
  ASSERT_EQ(ok.list().size(), 7u);
  EXPECT_EQ(ok.list()[1].type, "race_top");
  EXPECT_EQ(ok.list()[1].pattern, "worker");
  EXPECT_EQ(ok.list()[1].line, 4u);
  const auto error_of = [](const std::string& text) {
    try {
      Suppressions::parse(text, "s.supp");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("race:a\n  racy:b\n").substr(0, 29), "s.supp:2:3: error: unknown su");
  EXPECT_EQ(error_of("race:a\nrace:\n").substr(0, 31), "s.supp:2:6: error: empty patter");
  EXPECT_EQ(error_of("# c\nnocolon\n").substr(0, 28), "s.supp:2:1: error: expected ");
}

TEST(Suppressions, LeaveOutMatchedFindingsAndSayWhichWereUsed) {
  TempDir dir;
  const std::string trace = dir.write("t.std", two_writers(3, 4));
  const std::string supp =
      dir.write("s.supp", "# known\nrace:^other$\nrace:no_such_function\ndeadlock:x\n");
  CliResult r =
      run_racepred("analyze --suppressions " + shell_quote(supp) + " " + shell_quote(trace));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Suppressions used:\n  count type:pattern (where)\n      1 race:^other$ (" +
                       supp + ":2)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Suppressions not used:\n  race:no_such_function (" + supp +
                       ":3)\n  deadlock:x (" + supp + ":4)\n"),
            std::string::npos)
      << r.out;
  // Variable names, files, threads; race_top does not look at the variable.
  for (const std::string line : {"race:^x$", "race:w.c", "thread:T2", "race_top:worker"}) {
    const std::string s = dir.write("one.supp", line + "\n");
    r = run_racepred("analyze --suppressions " + shell_quote(s) + " " + shell_quote(trace));
    EXPECT_EQ(r.code, 0) << line << r.out;
  }
  const std::string top = dir.write("top.supp", "race_top:^x$\n");
  r = run_racepred("analyze --suppressions " + shell_quote(top) + " " + shell_quote(trace));
  EXPECT_EQ(r.code, 1) << r.out;
  // JSON lists what each suppression matched.
  r = run_racepred("analyze --format json --suppressions " + shell_quote(supp) + " " +
                   shell_quote(trace));
  const json doc = json::parse(r.out);
  EXPECT_TRUE(doc["results"][0]["findings"].empty());
  EXPECT_EQ(doc["filter"]["suppressed"], 1);
  EXPECT_EQ(doc["filter"]["suppressions"][0]["count"], 1);
  EXPECT_EQ(doc["filter"]["suppressions"][1]["count"], 0);
  // A bad line: exit 2 and FILE:LINE:COL.
  const std::string bad = dir.write("bad.supp", "race:a\nrace_bottom:b\n");
  r = run_racepred("analyze --suppressions " + shell_quote(bad) + " " + shell_quote(trace));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(bad + ":2:1: error: unknown suppression type 'race_bottom'"),
            std::string::npos)
      << r.err;
}

TEST(Baseline, OnlyNewFindingsAreListedAndFail) {
  TempDir dir;
  dir.write("w.c", kSource);
  const std::string old_trace = dir.write("old.std", two_writers(3, 4));
  const std::string old_json = dir.path("old.json");
  const std::string old_sarif = dir.path("old.sarif");
  ASSERT_EQ(run_racepred("analyze --format json -o " + shell_quote(old_json) + " " +
                         shell_quote(old_trace))
                .code,
            1);
  ASSERT_EQ(run_racepred("analyze --format sarif -o " + shell_quote(old_sarif) + " " +
                         shell_quote(old_trace))
                .code,
            1);
  // The same race, recorded again with the roles swapped: nothing new.
  const std::string same = dir.write("same.std", two_writers(3, 4, true, true));
  for (const std::string& baseline : std::vector<std::string>{old_json, old_sarif}) {
    const CliResult r =
        run_racepred("analyze --baseline " + shell_quote(baseline) + " " + shell_quote(same));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Baseline " + baseline +
                         ": 1 finding already in the baseline (not shown); 0 new\n"),
              std::string::npos)
        << r.out;
  }
  // A new race besides the old one: only it is listed, and it fails the run. (A race on another
  // variable at the same two lines would be the same finding: the sites make the fingerprint.)
  const std::string more = dir.write(
      "more.std", two_writers(3, 4) + "T1|w(z)|w.c:2 (worker)\n" + "T2|r(z)|w.c:5 (other)\n");
  const CliResult r = run_racepred("analyze --format json --baseline " + shell_quote(old_json) +
                                   " " + shell_quote(more));
  EXPECT_EQ(r.code, 1) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc["results"][0]["findings"].size(), 1u) << r.out;
  EXPECT_EQ(doc["results"][0]["findings"][0]["variable"], "z");
  EXPECT_EQ(doc["filter"]["baseline"]["in_baseline"], 1);
  EXPECT_EQ(doc["filter"]["baseline"]["new"], 1);
  // Not a report: an input error.
  const std::string junk = dir.write("junk.json", "{\"a\": 1}");
  EXPECT_EQ(run_racepred("analyze --baseline " + shell_quote(junk) + " " + shell_quote(more)).code,
            2);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// -o never writes over a report, a baseline or a suppressions file the command reads.
TEST(Merge, OutputNeverOverwritesAnInputOrTheBaseline) {
  TempDir dir;
  const std::string a = dir.path("a.json");
  const std::string trace = dir.write("a.std", two_writers(3, 4));
  ASSERT_EQ(
      run_racepred("analyze --format json -o " + shell_quote(a) + " " + shell_quote(trace)).code,
      1);
  const std::string before = read_text(a);
  const std::string supp = dir.write("s.supp", "race:nothing\n");
  for (const std::string& cmd :
       {"merge " + shell_quote(a) + " " + shell_quote(a) + " -o " + shell_quote(a),
        "merge " + shell_quote(a) + " --baseline " + shell_quote(a) + " -o " + shell_quote(a),
        "analyze --baseline " + shell_quote(a) + " -o " + shell_quote(a) + " " + shell_quote(trace),
        "analyze --suppressions " + shell_quote(supp) + " -o " + shell_quote(supp) + " " +
            shell_quote(trace)}) {
    const CliResult r = run_racepred(cmd);
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_NE(r.err.find("refusing to overwrite it"), std::string::npos) << cmd << "\n" << r.err;
  }
  EXPECT_EQ(read_text(a), before);
  EXPECT_EQ(read_text(supp), "race:nothing\n");
}

TEST(Merge, JoinsReportsByFingerprint) {
  TempDir dir;
  const std::string a = dir.path("a.json"), b = dir.path("b.json");
  ASSERT_EQ(run_racepred("analyze --format json -o " + shell_quote(a) + " " +
                         shell_quote(dir.write("a.std", two_writers(3, 4))))
                .code,
            1);
  // Shard b: the same race (swapped, other ids) found by two engines, and a race of its own.
  ASSERT_EQ(run_racepred("analyze -e shb,lockset --format json -o " + shell_quote(b) + " " +
                         shell_quote(dir.write("b.std", two_writers(3, 4, true, true) +
                                                            "T1|w(z)|w.c:7 (worker)\n"
                                                            "T2|w(z)|w.c:8 (other)\n")))
                .code,
            1);
  CliResult r = run_racepred("merge --format json " + shell_quote(a) + " " + shell_quote(b));
  EXPECT_EQ(r.code, 1) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["command"], "merge");
  ASSERT_EQ(doc["findings"].size(), 2u) << r.out;
  const json& x = doc["findings"][0];
  EXPECT_EQ(x["variable"], "x");
  EXPECT_EQ(x["first_seen"], a);
  EXPECT_EQ(x["runs"], 2);
  EXPECT_EQ(x["count"], 3);  // a: shb; b: shb and lockset
  EXPECT_EQ(x["engines"], json::array({"shb", "lockset"}));
  EXPECT_EQ(doc["findings"][1]["variable"], "z");
  EXPECT_EQ(doc["findings"][1]["first_seen"], b);
  EXPECT_EQ(doc["findings"][1]["runs"], 1);
  // Text, SARIF, and a merge of a merge keeps the first-seen run.
  r = run_racepred("merge " + shell_quote(a) + " " + shell_quote(b));
  EXPECT_NE(r.out.find("SUMMARY: racepred merge: 2 distinct findings by fingerprint in 2 reports"),
            std::string::npos)
      << r.out;
  r = run_racepred("merge --format sarif " + shell_quote(a) + " " + shell_quote(b));
  EXPECT_EQ(sarif_schema_errors(r.out), "");
  const std::string ab = dir.path("ab.json");
  ASSERT_EQ(run_racepred("merge --format json -o " + shell_quote(ab) + " " + shell_quote(a) + " " +
                         shell_quote(b))
                .code,
            1);
  r = run_racepred("merge --format json " + shell_quote(ab) + " " + shell_quote(a));
  const json again = json::parse(r.out);
  EXPECT_EQ(again["findings"][0]["first_seen"], a);
  EXPECT_EQ(again["findings"][0]["runs"], 3);
  // With a baseline: only the new race, exit 1; against itself: exit 0.
  r = run_racepred("merge --format json --baseline " + shell_quote(a) + " " + shell_quote(b));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(json::parse(r.out)["findings"].size(), 1u);
  EXPECT_EQ(run_racepred("merge --baseline " + shell_quote(ab) + " " + shell_quote(b)).code, 0);
}

TEST(InlineSuppressions, CommentLinesWithThePrefixAreFoundPlainAndCompressed) {
  TempDir dir;
  const std::string text =
      "# a comment\n# racepred-suppress: race:^other$\nmain|w(x)|L1\n"
      "#racepred-suppress: not this form\n# racepred-suppress:thread:T2\r\n";
  const std::string plain = dir.write("t.std", text);
  for (const std::string& path : {plain, plain + ".gz"}) {
    if (path != plain) {
      ASSERT_EQ(testing::run_shell("gzip -k " + shell_quote(plain)).code, 0);
    }
    const std::vector<CommentLine> lines = read_comment_lines(path, kInlineSuppressionPrefix);
    ASSERT_EQ(lines.size(), 2u) << path;
    EXPECT_EQ(lines[0].line, 2u);
    EXPECT_EQ(lines[0].column, 20u);
    EXPECT_EQ(lines[0].text, " race:^other$");
    EXPECT_EQ(lines[1].line, 5u);
    EXPECT_EQ(lines[1].text, "thread:T2");
  }
  EXPECT_TRUE(read_comment_lines("-", kInlineSuppressionPrefix).empty());
  // A line parsed after its prefix: columns count from the start of the comment line.
  Suppressions s;
  s.add(" race:^other$", "t.std", 2, 20);
  ASSERT_EQ(s.list().size(), 1u);
  EXPECT_EQ(s.list()[0].pattern, "^other$");
  EXPECT_EQ(s.list()[0].file, "t.std");
  EXPECT_EQ(s.list()[0].line, 2u);
  const auto error_of = [](const std::string& line) {
    Suppressions t;
    try {
      t.add(line, "t.std", 7, 20);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // " racy:a": the type starts at column 2 of the text, 22 of the line.
  EXPECT_EQ(error_of(" racy:a").substr(0, 37), "t.std:7:22: error: unknown suppressio");
  // " race:": the missing pattern is at column 7 of the text, after the colon.
  EXPECT_EQ(error_of(" race:").substr(0, 30), "t.std:7:27: error: empty patte");
  EXPECT_EQ(error_of("").substr(0, 8), "no error");
}

TEST(InlineSuppressions, JoinTheSuppressionsFileAndAreListedLikeIt) {
  TempDir dir;
  const std::string trace =
      dir.write("t.std", "# racepred-suppress: race:^other$\n" + two_writers(3, 4) +
                             "# racepred-suppress: thread:nobody\n");
  CliResult r = run_racepred("analyze " + shell_quote(trace));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("      1 race:^other$ (" + trace + ":1)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Suppressions not used:\n  thread:nobody (" + trace + ":6)\n"),
            std::string::npos)
      << r.out;
  // After --suppressions FILE's own, in JSON too.
  const std::string supp = dir.write("s.supp", "deadlock:x\n");
  r = run_racepred("analyze --format json --suppressions " + shell_quote(supp) + " " +
                   shell_quote(trace));
  EXPECT_EQ(r.code, 0) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc["filter"]["suppressions"].size(), 3u) << r.out;
  EXPECT_EQ(doc["filter"]["suppressions"][0]["file"], supp);
  EXPECT_EQ(doc["filter"]["suppressions"][1]["file"], trace);
  EXPECT_EQ(doc["filter"]["suppressions"][1]["line"], 1);
  EXPECT_EQ(doc["filter"]["suppressions"][1]["count"], 1);
  EXPECT_EQ(doc["filter"]["suppressed"], 1);
  // A bad one: exit 2, naming the trace's line and column.
  const std::string bad =
      dir.write("bad.std", two_writers(3, 4) + "# racepred-suppress: racy:worker\n");
  r = run_racepred("analyze " + shell_quote(bad));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(bad + ":5:22: error: unknown suppression type 'racy'"), std::string::npos)
      << r.err;
}

// The JSON data embedded in an HTML report.
json html_data_of(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"racepred-data\">";
  const size_t begin = page.find(open);
  if (begin == std::string::npos) return json();
  const size_t end = page.find("</script>", begin);
  return json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

TEST(HtmlReport, EmbeddedJsonCannotEndItsScriptElement) {
  const nlohmann::ordered_json doc = {{"a", "</script><!-- <script>"}, {"b", "x < y"}};
  const std::string text = json_for_script(doc);
  EXPECT_EQ(text.find('<'), std::string::npos) << text;
  EXPECT_EQ(json::parse(text)["a"], "</script><!-- <script>");
}

TEST(HtmlReport, SelfContainedPageWithEscapedNamesAndSourceSnippets) {
  TempDir dir;
  dir.write("w.c", kSource);
  // A variable named like markup: it must stay text.
  std::string t = two_writers(3, 4);
  const std::string evil = "<img src=x onerror=alert(1)>";
  for (size_t at; (at = t.find("w(x)")) != std::string::npos;)
    t.replace(at, 4, "w(<img\\x20src=x\\x20onerror=alert\\x281\\x29>)");
  const std::string trace = dir.write("t.std", t + "T1|w(z)|gone.c:9 (worker)\nT2|w(z)|L7\n");
  const std::string page_file = dir.path("report.html");
  CliResult r =
      run_racepred("analyze --format html -o " + shell_quote(page_file) + " " + shell_quote(trace));
  EXPECT_EQ(r.code, 1) << r.err;
  std::ifstream in(page_file, std::ios::binary);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_NE(page.find("\\u003cimg src=x onerror=alert(1)>"), std::string::npos);
  // Nothing from the network: no external scripts, styles, fonts or images.
  for (const char* ref : {"<link", "<script src", "@import", "url(", "http://", "https://"})
    EXPECT_EQ(page.find(ref), std::string::npos) << ref;
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
  const json data = html_data_of(page);
  ASSERT_EQ(data["findings"].size(), 2u) << data.dump(1);
  EXPECT_EQ(data["command"], "analyze");
  EXPECT_EQ(data["subject"], trace);
  const json& f = data["findings"][0];
  EXPECT_EQ(f["variable"], evil);
  EXPECT_EQ(f["engine"], "shb");
  EXPECT_EQ(f["fingerprint"].get<std::string>().size(), 16u);
  // Snippets: two lines around each line (read beside the trace), or "missing".
  const json& first = data["sources"]["w.c:3 (worker)"];
  EXPECT_EQ(first["file"], "w.c");
  EXPECT_EQ(first["line"], 3);
  EXPECT_EQ(first["start"], 1);
  EXPECT_EQ(first["text"],
            json::array({"int x;", "void worker(void) {", "  x = 1;", "  x = 2;", "}"}));
  const json& second = data["sources"]["w.c:4 (other)"];
  EXPECT_EQ(second["start"], 2);
  EXPECT_EQ(second["text"].size(), 4u);  // the file ends after line 5
  EXPECT_EQ(data["sources"]["gone.c:9 (worker)"]["missing"], true);
  EXPECT_FALSE(data["sources"].contains("L7"));  // a label names no file
  // merge writes the same page of the merged findings.
  const std::string report = dir.path("r.json");
  ASSERT_EQ(
      run_racepred("analyze --format json -o " + shell_quote(report) + " " + shell_quote(trace))
          .code,
      1);
  r = run_racepred("merge --format html " + shell_quote(report));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.out.find("<img"), std::string::npos);
  const json merged = html_data_of(r.out);
  EXPECT_EQ(merged["command"], "merge");
  ASSERT_EQ(merged["findings"].size(), 2u);
  EXPECT_EQ(merged["findings"][0]["first_seen"], report);
  EXPECT_EQ(merged["findings"][0]["runs"], 1);
}

TEST(Color, OnlyOnATerminalOrWhenAsked) {
  TempDir dir;
  const std::string trace = dir.write("t.std", two_writers(3, 4));
  const std::string esc = "\x1b[";
  // Piped: no colour, the same bytes as --color=never.
  const CliResult piped = run_racepred("analyze " + shell_quote(trace));
  EXPECT_EQ(piped.out.find(esc), std::string::npos);
  // (Up to the SUMMARY lines, which carry the engine's time.)
  const auto blocks = [](const std::string& text) { return text.substr(0, text.find("SUMMARY")); };
  EXPECT_EQ(blocks(run_racepred("analyze --color=never " + shell_quote(trace)).out),
            blocks(piped.out));
  EXPECT_NE(blocks(piped.out).find("WARNING: data race"), std::string::npos);
  const CliResult always = run_racepred("analyze --color=always " + shell_quote(trace));
  EXPECT_NE(always.out.find(esc + "1;31mWARNING: data race"), std::string::npos) << always.out;
  // On a terminal (a pty from python3's pty module): colour unless NO_COLOR is set.
  const std::string script =
      "import os,pty,sys\n"
      "def read(fd):\n"
      "    return os.read(fd,65536)\n"
      "pty.spawn(sys.argv[1:], read)\n";  // spawn copies what it reads to standard output
  // (Not named tty.py: that would hide the tty module pty imports.)
  const std::string py = dir.write("racepred_pty.py", script);
  const std::string cmd = "python3 " + shell_quote(py) + " " +
                          shell_quote(testing::racepred_binary()) + " analyze " +
                          shell_quote(trace);
  const CliResult tty = testing::run_shell("TERM=xterm NO_COLOR= " + cmd + " </dev/null");
  EXPECT_NE(tty.out.find(esc + "1;31mWARNING: data race"), std::string::npos) << tty.out;
  const CliResult no_color = testing::run_shell("TERM=xterm NO_COLOR=1 " + cmd + " </dev/null");
  EXPECT_NE(no_color.out.find("WARNING: data race"), std::string::npos) << no_color.out;
  EXPECT_EQ(no_color.out.find(esc), std::string::npos) << no_color.out;
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
