// The expectations written inside the example traces (`# expect …` lines, docs/FORMATS.md
// "Expectations in example traces"): one test per examples/**/*.std file runs the engines the
// file names and checks every line. A malformed line, an unknown engine or a file without any
// expectation is a failure naming FILE:LINE.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "racepred/driver/annotate.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/report/finding.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using Pairs = std::set<std::pair<EventId, EventId>>;

// One parsed `# expect` line.
struct Expectation {
  enum class Kind {
    None,
    Races,
    RacyEvents,
    RaceCount,
    Includes,
    Excludes,
    Deadlocks,
    Deadlock,
    Annotate,
    Check
  };
  uint32_t line = 0;
  std::string text;  // the line as written, for messages
  Kind kind = Kind::None;
  std::string engine;           // empty for Check
  Pairs pairs;                  // Races, Includes, Excludes
  std::vector<EventId> events;  // RacyEvents, Deadlock (sorted, distinct)
  uint64_t count = 0;           // RaceCount, Deadlocks
  EventId event = kNoEvent;     // Annotate
  std::string column, value;    // Annotate
  bool well_formed = true;      // Check
};

struct ParsedFile {
  std::vector<Expectation> expectations;
  std::vector<std::string> errors;  // "FILE:LINE: …"
};

std::string trim(std::string s) {
  const auto blank = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!s.empty() && blank(s.back())) s.pop_back();
  size_t b = 0;
  while (b < s.size() && blank(s[b])) ++b;
  return s.substr(b);
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A positive decimal number (no sign, no leading '+'), or nullopt.
std::optional<uint64_t> number(const std::string& s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoull(s);
}

// "(1,5) (3,7)" → pairs; nullopt when anything else is written (also an empty list).
std::optional<Pairs> parse_pairs(const std::string& s) {
  Pairs out;
  size_t p = 0;
  const auto skip = [&] {
    while (p < s.size() && s[p] == ' ') ++p;
  };
  skip();
  if (p == s.size()) return std::nullopt;
  while (p < s.size()) {
    if (s[p] != '(') return std::nullopt;
    const size_t close = s.find(')', p);
    if (close == std::string::npos) return std::nullopt;
    const std::string inside = s.substr(p + 1, close - p - 1);
    const size_t comma = inside.find(',');
    if (comma == std::string::npos) return std::nullopt;
    const auto a = number(trim(inside.substr(0, comma)));
    const auto b = number(trim(inside.substr(comma + 1)));
    if (!a || !b || *a == 0 || *b == 0 || *a >= *b) return std::nullopt;
    out.insert({*a, *b});
    p = close + 1;
    skip();
  }
  return out;
}

// Parses the `# expect` lines of `text`; `file` names the file in messages.
ParsedFile parse_expectations(const std::string& text, const std::string& file) {
  ParsedFile parsed;
  std::istringstream in(text);
  std::string raw;
  for (uint32_t line = 1; std::getline(in, raw); ++line) {
    const std::string stripped = trim(raw);
    if (stripped.rfind("#", 0) != 0) continue;
    const std::string body = trim(stripped.substr(1));
    const std::vector<std::string> head = words(body);
    if (head.empty() || head[0] != "expect") continue;
    const auto fail = [&](const std::string& why) {
      parsed.errors.push_back(file + ":" + std::to_string(line) +
                              ": malformed expectation: " + why + ": " + stripped);
    };
    Expectation x;
    x.line = line;
    x.text = stripped;
    const std::string rest = trim(body.substr(std::string("expect").size()));
    if (rest.rfind("annotate ", 0) == 0) {
      // annotate ENGINE eN COLUMN: VALUE
      const std::string spec = trim(rest.substr(9));
      const size_t sp1 = spec.find(' ');
      const size_t sp2 = sp1 == std::string::npos ? sp1 : spec.find(' ', sp1 + 1);
      if (sp2 == std::string::npos) {
        fail("expected 'annotate ENGINE eN COLUMN: VALUE'");
        continue;
      }
      x.kind = Expectation::Kind::Annotate;
      x.engine = spec.substr(0, sp1);
      const std::string id = spec.substr(sp1 + 1, sp2 - sp1 - 1);
      const auto n = id.size() > 1 && id[0] == 'e' ? number(id.substr(1)) : std::nullopt;
      if (!n || *n == 0) {
        fail("expected an event 'eN' after the engine, found '" + id + "'");
        continue;
      }
      x.event = *n;
      const std::string cell = spec.substr(sp2 + 1);
      size_t colon = cell.find(": ");
      if (colon == std::string::npos && !cell.empty() && cell.back() == ':')
        colon = cell.size() - 1;
      if (colon == std::string::npos || trim(cell.substr(0, colon)).empty()) {
        fail("expected 'COLUMN: VALUE' after the event");
        continue;
      }
      x.column = trim(cell.substr(0, colon));
      x.value = trim(cell.substr(colon + 1));
      parsed.expectations.push_back(std::move(x));
      continue;
    }
    const size_t colon = rest.find(':');
    if (colon == std::string::npos) {
      fail("expected 'ENGINE: VERDICT' or 'check: well-formed|ill-formed'");
      continue;
    }
    x.engine = trim(rest.substr(0, colon));
    const std::string verdict = trim(rest.substr(colon + 1));
    if (x.engine.empty() || x.engine.find(' ') != std::string::npos) {
      fail("expected one engine name before ':'");
      continue;
    }
    const std::vector<std::string> w = words(verdict);
    if (w.empty()) {
      fail("no verdict after ':'");
      continue;
    }
    const std::string args = trim(verdict.substr(w[0].size()));
    if (x.engine == "check") {
      x.kind = Expectation::Kind::Check;
      x.engine.clear();
      if (w.size() != 1 || (w[0] != "well-formed" && w[0] != "ill-formed")) {
        fail("expected 'check: well-formed' or 'check: ill-formed'");
        continue;
      }
      x.well_formed = w[0] == "well-formed";
    } else if (w[0] == "none") {
      x.kind = Expectation::Kind::None;
      if (w.size() != 1) {
        fail("'none' takes no arguments");
        continue;
      }
    } else if (w[0] == "races" || w[0] == "includes" || w[0] == "excludes") {
      x.kind = w[0] == "races"      ? Expectation::Kind::Races
               : w[0] == "includes" ? Expectation::Kind::Includes
                                    : Expectation::Kind::Excludes;
      const auto pairs = parse_pairs(args);
      if (!pairs) {
        fail("expected pairs '(first,second) …' of event ids with first < second");
        continue;
      }
      x.pairs = *pairs;
    } else if (w[0] == "racy-events" || w[0] == "deadlock") {
      x.kind = w[0] == "deadlock" ? Expectation::Kind::Deadlock : Expectation::Kind::RacyEvents;
      if (w.size() == 1) {
        fail("expected event ids after '" + w[0] + "'" +
             (w[0] == "deadlock" ? "" : " (write 'none' for no race)"));
        continue;
      }
      bool ok = true;
      for (size_t k = 1; k < w.size(); ++k) {
        const auto n = number(w[k]);
        ok = ok && n && *n > 0;
        if (ok) x.events.push_back(*n);
      }
      std::sort(x.events.begin(), x.events.end());
      if (!ok || std::adjacent_find(x.events.begin(), x.events.end()) != x.events.end()) {
        fail("expected distinct event ids after '" + w[0] + "'");
        continue;
      }
    } else if (w[0] == "race-count" || w[0] == "deadlocks") {
      x.kind = w[0] == "deadlocks" ? Expectation::Kind::Deadlocks : Expectation::Kind::RaceCount;
      const auto n = w.size() == 2 ? number(w[1]) : std::nullopt;
      if (!n) {
        fail("expected one number after '" + w[0] + "'");
        continue;
      }
      x.count = *n;
    } else {
      fail("unknown verdict '" + w[0] +
           "' (none, races, racy-events, race-count, includes, excludes, deadlocks, deadlock)");
      continue;
    }
    parsed.expectations.push_back(std::move(x));
  }
  return parsed;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string show(const Pairs& pairs) {
  if (pairs.empty()) return "none";
  std::string s;
  // Appending (not operator+) avoids a bogus -Wrestrict of g++ 12.
  for (const auto& [a, b] : pairs) {
    if (!s.empty()) s.append(" ");
    s.append("(").append(std::to_string(a)).append(",").append(std::to_string(b)).append(")");
  }
  return s;
}

std::string show(const std::vector<EventId>& events) {
  if (events.empty()) return "none";
  std::string s;
  for (EventId e : events) {
    if (!s.empty()) s.append(" ");
    s.append(std::to_string(e));
  }
  return s;
}

// Checks every expectation of one example file; returns the failures as "FILE:LINE: …".
std::vector<std::string> check_file(const std::string& path, const std::string& file) {
  const ParsedFile parsed = parse_expectations(read_file(path), file);
  std::vector<std::string> failures = parsed.errors;
  if (parsed.expectations.empty() && parsed.errors.empty())
    failures.push_back(file + ":1: no '# expect' line (every example states what it shows)");

  // Well-formedness as `racepred check` decides it.
  ValidationReport report;
  std::optional<Trace> trace;
  try {
    trace = load_checked_trace(path, {}, ValidationMode::Collect, &report);
  } catch (const std::exception& e) {
    failures.push_back(file + ":1: the trace does not load: " + e.what());
    return failures;
  }
  std::map<std::string, RaceSink> verdicts;          // engine → its run
  std::map<std::string, AnnotationRun> annotations;  // engine → its annotated run
  for (const Expectation& x : parsed.expectations) {
    const std::string at = file + ":" + std::to_string(x.line) + ": ";
    if (x.kind == Expectation::Kind::Check) {
      if (report.ok() != x.well_formed) {
        std::string why = report.ok() ? "well-formed" : "ill-formed:";
        for (const ValidationIssue& issue : report.errors) why += " " + issue.message;
        failures.push_back(at + x.text + " — but the trace is " + why);
      }
      continue;
    }
    if (find_engine(x.engine) == nullptr) {
      failures.push_back(at + "unknown engine '" + x.engine + "'");
      continue;
    }
    if (!report.ok()) {
      failures.push_back(at + "engines run only on well-formed traces (this one is ill-formed)");
      continue;
    }
    try {
      if (x.kind == Expectation::Kind::Annotate) {
        auto it = annotations.find(x.engine);
        if (it == annotations.end())
          it = annotations.emplace(x.engine, annotate_trace(x.engine, *trace, SIZE_MAX)).first;
        const size_t i = trace->index_of(x.event);
        if (i == SIZE_MAX) {
          failures.push_back(at + "no event e" + std::to_string(x.event));
          continue;
        }
        const Annotation& row = it->second.rows.at(i);
        const auto cell = std::find_if(
            row.begin(), row.end(), [&](const AnnotationCell& c) { return c.column == x.column; });
        // An empty expected value also accepts a row without that column.
        const std::string got = cell == row.end() ? "" : cell->value;
        if (cell == row.end() && !x.value.empty())
          failures.push_back(at + x.text + " — but e" + std::to_string(x.event) + " has no " +
                             x.column + " cell");
        else if (got != x.value)
          failures.push_back(at + x.text + " — but " + x.engine + " annotates '" + got + "'");
        continue;
      }
      auto it = verdicts.find(x.engine);
      if (it == verdicts.end()) it = verdicts.emplace(x.engine, run_engine(x.engine, *trace)).first;
      const RaceSink& sink = it->second;
      Pairs got;
      for (const Race& r : sink.races()) got.insert({r.first.event, r.second.event});
      // Each deadlock as the sorted events of its cycle's requests.
      std::vector<std::vector<EventId>> deadlocks;
      for (const Finding& f : sink.findings()) {
        if (f.kind != FindingKind::Deadlock) continue;
        std::vector<EventId> events;
        for (const DeadlockStep& step : f.deadlock.cycle) events.push_back(step.event);
        std::sort(events.begin(), events.end());
        deadlocks.push_back(std::move(events));
      }
      std::string deadlocks_reported = " — but " + x.engine + " reports";
      for (const auto& d : deadlocks) deadlocks_reported += " [" + show(d) + "]";
      if (deadlocks.empty()) deadlocks_reported += " no deadlock";
      std::string reported(" — but ");
      reported.append(x.engine).append(" reports ").append(show(got)).append(" (");
      reported.append(std::to_string(sink.race_count())).append(" counted)");
      switch (x.kind) {
        case Expectation::Kind::None:
          if (sink.race_count() != 0 || !got.empty() || !sink.racy_events().empty())
            failures.push_back(at + x.text + reported);
          if (!deadlocks.empty()) failures.push_back(at + x.text + deadlocks_reported);
          break;
        case Expectation::Kind::Deadlocks:
          if (deadlocks.size() != x.count) failures.push_back(at + x.text + deadlocks_reported);
          break;
        case Expectation::Kind::Deadlock:
          if (std::find(deadlocks.begin(), deadlocks.end(), x.events) == deadlocks.end())
            failures.push_back(at + x.text + deadlocks_reported);
          break;
        case Expectation::Kind::Races:
          // Exactly these pairs, each reported once.
          if (got != x.pairs || sink.race_count() != x.pairs.size())
            failures.push_back(at + x.text + reported);
          break;
        case Expectation::Kind::RacyEvents:
          if (sink.racy_events() != x.events)
            failures.push_back(at + x.text + " — but " + x.engine + " reports racy events " +
                               std::string(show(sink.racy_events())));
          break;
        case Expectation::Kind::RaceCount:
          if (sink.race_count() != x.count) failures.push_back(at + x.text + reported);
          break;
        case Expectation::Kind::Includes:
          for (const auto& p : x.pairs)
            if (!got.count(p)) failures.push_back(at + x.text + reported);
          break;
        case Expectation::Kind::Excludes:
          for (const auto& p : x.pairs)
            if (got.count(p)) failures.push_back(at + x.text + reported);
          break;
        case Expectation::Kind::Annotate:
        case Expectation::Kind::Check:
          break;
      }
    } catch (const std::exception& e) {
      failures.push_back(at + x.engine + " failed: " + e.what());
    }
  }
  return failures;
}

// Every examples/**/*.std file, relative to examples/, sorted.
std::vector<std::string> example_files() {
  std::vector<std::string> files;
  const std::filesystem::path root(RACEPRED_EXAMPLES_DIR);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
    if (entry.is_regular_file() && entry.path().extension() == ".std")
      files.push_back(entry.path().lexically_relative(root).generic_string());
  std::sort(files.begin(), files.end());
  return files;
}

class ExampleExpectations : public testing::TestWithParam<std::string> {};

TEST_P(ExampleExpectations, Hold) {
  const std::string file = "examples/" + GetParam();
  for (const std::string& failure :
       check_file(std::string(RACEPRED_EXAMPLES_DIR) + "/" + GetParam(), file))
    ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleExpectations, testing::ValuesIn(example_files()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.size() - 4);
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(ExampleExpectationsFiles, ThereAreExamples) {
  EXPECT_GE(example_files().size(), 64u);
}

// The runner itself: every verdict form parses, and every malformed line is reported with
// FILE:LINE.
TEST(ExpectationSyntax, EveryFormParses) {
  const ParsedFile p = parse_expectations(
      "# a comment\n"
      "T0|w(x)\n"
      "# expect lockset: none\n"
      "#expect fasttrack: races (1,5) (3, 7)\n"
      "# expect hb: racy-events 7 5\n"
      "# expect hb: race-count 3\n"
      "# expect exact: includes (1,5)\n"
      "# expect exact: excludes (2,4) (1,3)\n"
      "# expect annotate lockset e5 LS: {y}\n"
      "# expect annotate goldilocks e7 LSR: T2:{T1, T2}; T3:{T3} → -\n"
      "# expect annotate hb-pairs e3 Race pairs:\n"
      "# expect check: ill-formed\n"
      "# expect lockset: deadlocks 2\n"
      "# expect lockset: deadlock 9 4\n",
      "f.std");
  ASSERT_TRUE(p.errors.empty()) << p.errors[0];
  ASSERT_EQ(p.expectations.size(), 12u);
  using K = Expectation::Kind;
  EXPECT_EQ(p.expectations[0].kind, K::None);
  EXPECT_EQ(p.expectations[0].line, 3u);
  EXPECT_EQ(p.expectations[1].pairs, (Pairs{{1, 5}, {3, 7}}));
  EXPECT_EQ(p.expectations[1].engine, "fasttrack");
  EXPECT_EQ(p.expectations[2].events, (std::vector<EventId>{5, 7}));
  EXPECT_EQ(p.expectations[3].count, 3u);
  EXPECT_EQ(p.expectations[4].kind, K::Includes);
  EXPECT_EQ(p.expectations[5].pairs, (Pairs{{1, 3}, {2, 4}}));
  EXPECT_EQ(p.expectations[6].kind, K::Annotate);
  EXPECT_EQ(p.expectations[6].event, 5u);
  EXPECT_EQ(p.expectations[6].column, "LS");
  EXPECT_EQ(p.expectations[6].value, "{y}");
  EXPECT_EQ(p.expectations[7].column, "LSR");
  EXPECT_EQ(p.expectations[7].value, "T2:{T1, T2}; T3:{T3} → -");
  EXPECT_EQ(p.expectations[8].column, "Race pairs");
  EXPECT_EQ(p.expectations[8].value, "");
  EXPECT_EQ(p.expectations[9].kind, K::Check);
  EXPECT_FALSE(p.expectations[9].well_formed);
  EXPECT_EQ(p.expectations[10].kind, K::Deadlocks);
  EXPECT_EQ(p.expectations[10].count, 2u);
  EXPECT_EQ(p.expectations[11].kind, K::Deadlock);
  EXPECT_EQ(p.expectations[11].events, (std::vector<EventId>{4, 9}));
}

TEST(ExpectationSyntax, MalformedLinesNameFileAndLine) {
  const std::vector<std::string> bad = {
      "# expect lockset",                     // no ':'
      "# expect lockset: maybe",              // unknown verdict
      "# expect lockset: none (1,2)",         // arguments to none
      "# expect lockset: races",              // no pairs
      "# expect lockset: races (5,1)",        // first after second
      "# expect lockset: races (1,x)",        // not a number
      "# expect lockset: races 1,2",          // no parentheses
      "# expect lockset: racy-events",        // no events
      "# expect lockset: racy-events 3 3",    // repeated
      "# expect lockset: race-count",         // no number
      "# expect lockset: race-count -1",      // not a count
      "# expect lockset: deadlocks",          // no number
      "# expect lockset: deadlock",           // no events
      "# expect lockset: deadlock 4 4",       // repeated
      "# expect two engines: none",           // space in the engine name
      "# expect check: fine",                 // not well-formed/ill-formed
      "# expect annotate lockset LS: {}",     // no event
      "# expect annotate lockset e0 LS: {}",  // event 0
      "# expect annotate lockset e5 LS",      // no ':'
  };
  for (const std::string& line : bad) {
    const ParsedFile p = parse_expectations("T0|w(x)\n" + line + "\n", "examples/f.std");
    ASSERT_EQ(p.errors.size(), 1u) << line;
    EXPECT_EQ(p.errors[0].rfind("examples/f.std:2: malformed expectation", 0), 0u) << p.errors[0];
    EXPECT_TRUE(p.expectations.empty()) << line;
  }
}

// Failures of the checks themselves name FILE:LINE too: an unknown engine, a wrong verdict, an
// engine without annotation, a missing expectation.
TEST(ExpectationSyntax, FailuresNameFileAndLine) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("racepred_expect_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.std").string();
  {
    std::ofstream out(path);
    out << "T0|w(x)|1\nT1|w(x)|2\n"
           "# expect no-such-engine: none\n"
           "# expect lockset: none\n"
           "# expect lockset: races (1,2)\n"
           "# expect annotate exact e1 X: y\n"
           "# expect check: ill-formed\n";
  }
  const std::vector<std::string> failures = check_file(path, "t.std");
  ASSERT_EQ(failures.size(), 4u);
  EXPECT_EQ(failures[0].rfind("t.std:3: unknown engine 'no-such-engine'", 0), 0u) << failures[0];
  EXPECT_EQ(failures[1].rfind("t.std:4: # expect lockset: none — but lockset reports (1,2)", 0), 0u)
      << failures[1];
  EXPECT_EQ(failures[2].rfind("t.std:6: exact failed:", 0), 0u) << failures[2];
  EXPECT_EQ(failures[3].rfind("t.std:7: # expect check: ill-formed — but the trace is well", 0), 0u)
      << failures[3];
  {
    std::ofstream out(path);
    out << "T0|w(x)|1\n";
  }
  const std::vector<std::string> none = check_file(path, "t.std");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].rfind("t.std:1: no '# expect' line", 0), 0u) << none[0];
  std::filesystem::remove_all(dir);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
