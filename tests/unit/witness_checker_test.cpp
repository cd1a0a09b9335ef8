// The witness checker (racepred check-witness): each rule of a correctly reordered prefix
// rejected on a hand-made witness that breaks it, the file format, and the command.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "racepred/io/reader.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/witness/checker.hpp"
#include "racepred/witness/witness.hpp"
#include "support/cli_run.hpp"

namespace racepred::witness {
namespace RACEPRED_TEST_FILE {

// Events, numbered from 1:
//  1 T0|fork(T1)   2 T1|acq(m)   3 T1|r(y)    4 T1|rel(m)    5 T0|w(x)   6 T0|acq(m)
//  7 T0|w(y)       8 T0|rel(m)   9 T1|w(x)   10 T0|join(T1) 11 T0|r(x)
// The writes of x (5 and 9) race; T1's read of y sees the initial value.
constexpr const char* kTrace =
    "T0|fork(T1)|L1\nT1|acq(m)|L2\nT1|r(y)|L3\nT1|rel(m)|L4\nT0|w(x)|L5\nT0|acq(m)|L6\n"
    "T0|w(y)|L7\nT0|rel(m)|L8\nT1|w(x)|L9\nT0|join(T1)|L10\nT0|r(x)|L11\n";

Witness adjacent(EventId first, EventId second, std::vector<EventId> prefix) {
  Witness w;
  w.first = first;
  w.second = second;
  w.prefix = std::move(prefix);
  return w;
}

Witness enabled(EventId first, EventId second, std::vector<EventId> prefix) {
  Witness w = adjacent(first, second, std::move(prefix));
  w.notion = Notion::Enabled;
  return w;
}

class WitnessChecker : public ::testing::Test {
 protected:
  Trace trace = parse_checked_trace(kTrace);
  Checker checker{trace};
};

TEST_F(WitnessChecker, AcceptsACorrectlyReorderedPrefixEndingInTheRace) {
  for (const Witness& w : {adjacent(5, 9, {1, 2, 3, 4, 5, 9}), adjacent(9, 5, {1, 2, 3, 4, 9, 5}),
                           enabled(5, 9, {1, 2, 3, 4}), enabled(9, 5, {1, 2, 3, 4})}) {
    const Verdict v = checker.check(w);
    EXPECT_TRUE(v.valid()) << v.message;
  }
}

// A recv runs only after every send on its object that precedes it in the trace.
TEST(WitnessCheckerSync, RecvAfterEveryEarlierSend) {
  // 1 T0|send(s)  2 T1|send(s)  3 T2|recv(s)  4 T2|w(x)  5 T0|w(x)  6 T1|recv(t)
  const Trace trace = parse_checked_trace(
      "T0|send(s)|1\nT1|send(s)|2\nT2|recv(s)|3\nT2|w(x)|4\nT0|w(x)|5\nT1|recv(t)|6\n");
  Checker checker{trace};
  EXPECT_TRUE(checker.check(adjacent(4, 5, {1, 2, 3, 4, 5})).valid());
  EXPECT_TRUE(checker.check(adjacent(4, 5, {2, 1, 3, 4, 5})).valid());  // sends in any order
  const Verdict v = checker.check(adjacent(4, 5, {1, 3, 4, 5}));
  EXPECT_EQ(v.rule, Rule::Sync);
  EXPECT_EQ(v.event, 3u);
  EXPECT_EQ(rule_name(v.rule), "Sync");
  EXPECT_NE(v.message.find("T1|send(s)"), std::string::npos) << v.message;
}

TEST_F(WitnessChecker, RejectsEachRuleAtTheEventThatBreaksIt) {
  struct Case {
    Witness w;
    Rule rule;
    EventId event;
  };
  const Case cases[] = {
      {adjacent(5, 9, {1, 1}), Rule::PO, 1},                           // twice
      {adjacent(5, 9, {5}), Rule::PO, 5},                              // T0 out of order
      {adjacent(5, 9, {2}), Rule::Fork, 2},                            // T1 before its fork
      {adjacent(5, 9, {1, 2, 5, 6}), Rule::Lock1, 6},                  // m held by T1
      {adjacent(5, 9, {1, 5, 6, 7, 8, 2, 3}), Rule::LW, 3},            // y read after T0 wrote it
      {adjacent(5, 9, {1, 2, 3, 4, 5, 6, 7, 8, 10}), Rule::Join, 10},  // T1 not finished
      {adjacent(5, 9, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), Rule::Meet, 9},
      {adjacent(4, 9, {1, 2, 3, 4, 5, 9}), Rule::Conflict, 9},  // a release
      {adjacent(5, 99, {1}), Rule::Unknown, 99},
      {adjacent(5, 9, {1, 77}), Rule::Unknown, 77},
      {enabled(5, 9, {1, 2, 3}), Rule::Meet, 9},  // T1's next event is its release
      {enabled(5, 9, {}), Rule::Meet, 5},         // T0 has not forked
  };
  for (const Case& c : cases) {
    const Verdict v = checker.check(c.w);
    EXPECT_EQ(rule_name(v.rule), rule_name(c.rule)) << v.message;
    EXPECT_EQ(v.event, c.event) << v.message;
    EXPECT_FALSE(v.message.empty());
  }
  // After failures the checker's state is clean: a valid witness still passes.
  EXPECT_TRUE(checker.check(adjacent(5, 9, {1, 2, 3, 4, 5, 9})).valid());
}

TEST(WitnessCheckerRules, ReadLocksAndReleases) {
  // 1 T0|racq(m)  2 T1|racq(m)  3 T0|w(x)  4 T1|w(x)  5 T0|rrel(m)  6 T1|rrel(m)  7 T2|acq(m)
  // 8 T2|rel(m)
  const Trace trace = parse_checked_trace(
      "T0|racq(m)|L1\nT1|racq(m)|L2\nT0|w(x)|L3\nT1|w(x)|L4\nT0|rrel(m)|L5\nT1|rrel(m)|L6\n"
      "T2|acq(m)|L7\nT2|rel(m)|L8\n");
  Checker checker(trace);
  EXPECT_TRUE(checker.check(adjacent(3, 4, {1, 2, 3, 4})).valid());
  const Verdict writer = checker.check(adjacent(3, 4, {1, 7}));
  EXPECT_EQ(writer.rule, Rule::Lock1);  // a writer while a reader holds m
  EXPECT_EQ(writer.event, 7u);
  const Verdict reader = checker.check(adjacent(3, 4, {7, 1}));
  EXPECT_EQ(reader.rule, Rule::Lock1);  // a reader while a writer holds m
  EXPECT_EQ(reader.event, 1u);
}

Witness cut(EventId first, EventId second, std::vector<EventId> last, Notion notion) {
  Witness w;
  w.first = first;
  w.second = second;
  w.notion = notion;
  w.cut = std::move(last);
  return w;
}

// A cut names each thread's last event in T'; T' runs those prefixes in trace order. The
// checker decides a cut without visiting its events, and names the rule and event of an
// invalid one as the event-by-event check of its events does.
TEST_F(WitnessChecker, CutsAreCheckedByTheSameRules) {
  EXPECT_TRUE(checker.check(cut(5, 9, {1, 4}, Notion::Enabled)).valid());
  EXPECT_TRUE(checker.check(cut(5, 9, {5, 9}, Notion::Adjacent)).valid());  // 1 2 3 4 5 9
  EXPECT_EQ(checker.events(cut(5, 9, {5, 9}, Notion::Adjacent)), 6u);
  struct Case {
    Witness w;
    Rule rule;
    EventId event;
  };
  const Case cases[] = {
      {cut(5, 9, {8, 3}, Notion::Enabled), Rule::Lock1, 6},  // 1 2 3 5 6: m held by T1
      {cut(5, 9, {2}, Notion::Enabled), Rule::Fork, 2},
      {cut(5, 9, {10}, Notion::Enabled), Rule::Join, 10},
      {cut(5, 9, {1, 5}, Notion::Enabled), Rule::PO, 5},  // two events of T0
      {cut(5, 9, {99}, Notion::Enabled), Rule::Unknown, 99},
      {cut(5, 9, {1, 3}, Notion::Enabled), Rule::Meet, 9},   // T1's next is its release
      {cut(5, 9, {6, 9}, Notion::Adjacent), Rule::Meet, 9},  // ends with 6, 9
      {cut(4, 9, {1, 4}, Notion::Enabled), Rule::Conflict, 9},
  };
  for (const Case& c : cases) {
    const Verdict v = checker.check(c.w);
    EXPECT_EQ(rule_name(v.rule), rule_name(c.rule)) << v.message;
    EXPECT_EQ(v.event, c.event) << v.message;
  }
  // A cut with a listed tail: the cut's events, then the list.
  Witness tail = cut(5, 9, {1, 4}, Notion::Adjacent);
  tail.prefix = {5, 9};
  EXPECT_TRUE(checker.check(tail).valid());
  EXPECT_TRUE(checker.check(cut(5, 9, {1, 4}, Notion::Enabled)).valid());  // state clean again
}

TEST(WitnessCheckerCuts, ReadsSendsAndReadLocks) {
  // 1 T0|w(x)  2 T1|r(x)  3 T1|w(y)  4 T0|w(y): T1's read needs T0's write.
  const Trace lw = parse_checked_trace("T0|w(x)|1\nT1|r(x)|2\nT1|w(y)|3\nT0|w(y)|4\n");
  Checker lw_checker(lw);
  const Verdict v = lw_checker.check(cut(3, 4, {3}, Notion::Enabled));
  EXPECT_EQ(v.rule, Rule::LW);
  EXPECT_EQ(v.event, 2u);
  EXPECT_TRUE(lw_checker.check(cut(3, 4, {1, 2}, Notion::Enabled)).valid());
  // 1 T0|send(s)  2 T1|send(s)  3 T2|recv(s)  4 T2|w(x)  5 T0|w(x)
  const Trace sync =
      parse_checked_trace("T0|send(s)|1\nT1|send(s)|2\nT2|recv(s)|3\nT2|w(x)|4\nT0|w(x)|5\n");
  Checker sync_checker(sync);
  const Verdict s = sync_checker.check(cut(4, 5, {1, 3}, Notion::Enabled));
  EXPECT_EQ(s.rule, Rule::Sync);
  EXPECT_EQ(s.event, 3u);
  EXPECT_TRUE(sync_checker.check(cut(4, 5, {1, 2, 3}, Notion::Enabled)).valid());
  // 1 T0|racq(m)  2 T1|racq(m)  3 T0|w(x)  4 T1|w(x)  5 T0|rrel(m)  6 T1|rrel(m)  7 T2|acq(m)
  const Trace rw = parse_checked_trace(
      "T0|racq(m)|L1\nT1|racq(m)|L2\nT0|w(x)|L3\nT1|w(x)|L4\nT0|rrel(m)|L5\nT1|rrel(m)|L6\n"
      "T2|acq(m)|L7\nT2|rel(m)|L8\n");
  Checker rw_checker(rw);
  EXPECT_TRUE(rw_checker.check(cut(3, 4, {1, 2}, Notion::Enabled)).valid());  // two readers
  const Verdict writer = rw_checker.check(cut(3, 4, {1, 2, 7}, Notion::Enabled));
  EXPECT_EQ(writer.rule, Rule::Lock1);  // a writer while readers hold m
  EXPECT_EQ(writer.event, 7u);
}

TEST(WitnessFileFormat, RoundTripsCuts) {
  WitnessFile file;
  Witness w = cut(5, 9, {1, 4}, Notion::Enabled);
  file.witnesses.push_back(w);
  const std::string text = to_json(file);
  EXPECT_NE(text.find("\"cut\":[1,4],\"prefix\":[]"), std::string::npos) << text;
  const WitnessFile back = parse_witness_file(text, "w.json", 1000);
  ASSERT_EQ(back.witnesses.size(), 1u);
  EXPECT_EQ(back.witnesses[0].cut, w.cut);
  EXPECT_TRUE(back.witnesses[0].prefix.empty());
}

TEST(WitnessFileFormat, RoundTripsWithRuns) {
  WitnessFile file;
  file.trace = "t.std";
  Witness w = adjacent(3, 9, {1, 2, 3, 4, 5, 7, 9, 10, 11, 12, 3, 9});
  w.engine = "shb";
  file.witnesses.push_back(w);
  Witness e = adjacent(1, 2, {});
  e.notion = Notion::Enabled;
  file.witnesses.push_back(e);
  const std::string text = to_json(file);
  EXPECT_NE(text.find("\"schema\": \"racepred-witness/1\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"prefix\":[[1,5],7,[9,12],3,9]"), std::string::npos) << text;  // runs
  const WitnessFile back = parse_witness_file(text, "w.json", 1000);
  ASSERT_EQ(back.witnesses.size(), 2u);
  EXPECT_EQ(back.trace, "t.std");
  EXPECT_EQ(back.witnesses[0].engine, "shb");
  EXPECT_EQ(back.witnesses[0].prefix, w.prefix);
  EXPECT_EQ(back.witnesses[0].first, 3u);
  EXPECT_EQ(back.witnesses[1].notion, Notion::Enabled);
  EXPECT_TRUE(back.witnesses[1].prefix.empty());
}

TEST(WitnessFileFormat, NamesWhatIsWrong) {
  const auto error = [](const std::string& text) {
    try {
      parse_witness_file(text, "w.json", 1000);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(
      error("{\n  \"schema\": \"racepred-witness/1\",\n  \"witnesses\": [}").find("w.json:3:"),
      std::string::npos)
      << error("{\n  \"schema\": \"racepred-witness/1\",\n  \"witnesses\": [}");
  EXPECT_NE(error("{\"schema\": \"racepred/2\"}").find("not a witness file"), std::string::npos);
  const std::string head = "{\"schema\": \"racepred-witness/1\", \"witnesses\": [";
  EXPECT_NE(error(head + "{\"race\": [1], \"prefix\": []}]}").find("witness 1 \"race\""),
            std::string::npos);
  EXPECT_NE(error(head + "{\"race\": [1, 2], \"prefix\": [[5, 3]]}]}").find("first <= last"),
            std::string::npos);
  EXPECT_NE(error(head + "{\"race\": [1, 2], \"prefix\": [[1, 4000000000]]}]}")
                .find("more events than the trace has"),
            std::string::npos);
  EXPECT_NE(error(head + "{\"race\": [1, 2], \"prefix\": [0]}]}").find("item 1"),
            std::string::npos);
  EXPECT_NE(
      error(head + "{\"race\": [1, 2], \"notion\": \"near\", \"prefix\": []}]}").find("\"notion\""),
      std::string::npos);
}

TEST(CheckWitnessCommand, ExitCodesAndMessages) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("racepred_check_witness_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string trace = (dir / "t.std").string();
  std::ofstream(trace) << kTrace;
  WitnessFile file;
  file.witnesses.push_back(adjacent(5, 9, {1, 2, 3, 4, 5, 9}));
  const std::string good = (dir / "good.json").string();
  std::ofstream(good) << to_json(file);
  file.witnesses.push_back(adjacent(5, 9, {1, 5, 6, 7, 8, 2, 3}));
  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << to_json(file);
  using racepred::testing::run_racepred;
  using racepred::testing::shell_quote;

  const auto ok = run_racepred("check-witness " + shell_quote(trace) + " " + shell_quote(good));
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("1 witness: 1 valid, 0 invalid"), std::string::npos) << ok.out;
  const auto no = run_racepred("check-witness " + shell_quote(trace) + " " + shell_quote(bad));
  EXPECT_EQ(no.code, 1) << no.err;
  EXPECT_NE(no.out.find("INVALID, breaks LW at event 3"), std::string::npos) << no.out;
  const auto json =
      run_racepred("check-witness --format json " + shell_quote(trace) + " " + shell_quote(bad));
  EXPECT_EQ(json.code, 1);
  EXPECT_NE(json.out.find("\"rule\": \"LW\""), std::string::npos) << json.out;
  const auto missing = run_racepred("check-witness " + shell_quote(trace) + " /nonexistent.json");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("/nonexistent.json"), std::string::npos) << missing.err;

  // exact writes witnesses that check.
  const std::string from_exact = (dir / "exact.json").string();
  const auto exact =
      run_racepred("exact --witness-file " + shell_quote(from_exact) + " " + shell_quote(trace));
  EXPECT_EQ(exact.code, 1) << exact.err;  // races found
  const auto checked =
      run_racepred("check-witness " + shell_quote(trace) + " " + shell_quote(from_exact));
  EXPECT_EQ(checked.code, 0) << checked.out << checked.err;
  EXPECT_NE(checked.out.find(" 0 invalid"), std::string::npos) << checked.out;
  fs::remove_all(dir);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::witness
