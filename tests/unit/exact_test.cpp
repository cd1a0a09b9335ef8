// exact/: search, must-happen-before, lock sets; the `exact` command.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "racepred/driver/run.hpp"
#include "racepred/exact/locksets.hpp"
#include "racepred/exact/search.hpp"
#include "racepred/exact/table.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/trace_index.hpp"
#include "support/exact_support.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using testing::ix;
using testing::pairs_of;

exact::SearchResult run(const std::string& text, exact::SearchOptions o = {}) {
  static std::vector<std::unique_ptr<Trace>> keep;  // the results refer to the traces
  static std::vector<std::unique_ptr<TraceIndex>> keep_exact;
  keep.push_back(std::make_unique<Trace>(parse_trace(text)));
  keep_exact.push_back(std::make_unique<TraceIndex>(*keep.back()));
  return exact::search(*keep_exact.back(), o);
}

TEST(ExactSearch, ReadsKeepTheirLastWrite) {
  // T2's read sees T1's write in the trace: it can never run before it. The write and its read
  // are adjacent in the trace itself, which Def. 3.8 counts as a race.
  const auto r = run("T1|fork(T2)|1\nT1|w(a)|2\nT2|r(a)|3\n");
  EXPECT_EQ(r.races, pairs_of({{2, 3}}));
  EXPECT_TRUE(r.mhb.before(ix(2), ix(3)));
  // A read of the initial value must stay before the write when both run; but the write may
  // run without the read, so it is not must-happen-before in the sense of Lemma 3.6.
  const auto initial = run("T1|fork(T2)|1\nT2|r(a)|2\nT1|w(a)|3\n");
  EXPECT_EQ(initial.races, pairs_of({{2, 3}}));
  EXPECT_TRUE(initial.mhb.before_in_common(ix(2), ix(3)));
  EXPECT_FALSE(initial.mhb.before(ix(2), ix(3)));
  // With something in between, the write-read pair is no race (the read needs the write, and
  // T1's next write would hide it).
  const auto hidden = run("T1|fork(T2)|1\nT1|w(a)|2\nT2|r(a)|3\nT1|w(a)|4\n");
  EXPECT_EQ(hidden.races, pairs_of({{2, 3}, {3, 4}}));
}

TEST(ExactSearch, EnabledIsWeakerThanAdjacent) {
  // T2's read sees the second write: with --enabled it is enabled next to the first write
  // already, whatever it would read there; adjacent to e2 it would read the wrong write.
  const std::string text = "T1|fork(T2)|1\nT1|w(a)|2\nT1|w(a)|3\nT2|r(a)|4\n";
  exact::SearchOptions o;
  const auto adjacent = run(text, o);
  o.notion = exact::RaceNotion::Enabled;
  const auto enabled = run(text, o);
  EXPECT_EQ(adjacent.races, pairs_of({{3, 4}}));
  EXPECT_EQ(enabled.races, pairs_of({{2, 4}, {3, 4}}));
}

TEST(ExactSearch, JoinWaitsForTheWholeThread) {
  const auto r = run("T1|fork(T2)|1\nT2|w(a)|2\nT2|w(b)|3\nT1|join(T2)|4\nT1|w(b)|5\n");
  EXPECT_TRUE(r.races.empty());
  EXPECT_TRUE(r.mhb.before(ix(3), ix(4)));
  EXPECT_TRUE(r.mhb.before(ix(2), ix(5)));
}

TEST(ExactSearch, StateBudgetEndsTheSearch) {
  exact::SearchOptions o;
  o.max_states = 5;
  EXPECT_THROW(run("T1|w(a)|1\nT2|w(a)|2\nT3|w(a)|3\nT1|w(b)|4\nT2|w(b)|5\n", o),
               exact::SearchLimitError);
  o = {};
  o.max_memory = 64;
  try {
    run("T1|w(a)|1\nT2|r(a)|2\nT3|r(b)|3\nT1|w(b)|4\nT2|w(b)|5\n", o);
    ADD_FAILURE() << "no SearchLimitError";
  } catch (const exact::SearchLimitError& e) {
    EXPECT_NE(std::string(e.what()).find("memory budget"), std::string::npos) << e.what();
  }
}

TEST(ExactSearch, WitnessesAreCorrectReorderings) {
  const Trace trace = testing::load_example("fig03_hb_wcp.std");
  const TraceIndex t(trace);
  exact::SearchOptions o;
  o.witnesses = true;
  const auto r = exact::search(t, o);
  ASSERT_EQ(r.witnesses.size(), 1u);
  EXPECT_EQ(testing::check_reordering(t, r.witnesses[0].prefix), "");
  std::vector<exact::TableRow> rows;
  for (uint32_t i : r.witnesses[0].prefix) rows.push_back({i, "", {}});
  const std::string table = exact::format_table(t, rows);
  EXPECT_EQ(table.substr(0, table.find('\n')), "    T1        T2");
  EXPECT_NE(table.find("e5            acq(x)"), std::string::npos) << table;
}

TEST(ExactLockSets, LockHeldAtTheEndEndsWithItsThread) {
  // T1 never releases x. The missing release goes right after T1's last event: T2's write is
  // in the section only if it must happen before that event (here: T1 joins T2).
  const Trace open = parse_trace("T1|acq(x)|1\nT1|fork(T2)|2\nT1|w(a)|3\nT2|w(a)|4\n");
  const TraceIndex t1(open);
  const auto r1 = exact::search(t1);
  const auto c1 = exact::cross_lock_sets(t1, r1.mhb);
  EXPECT_EQ(exact::format_lock_set(t1, c1[ix(3)], true), "{(x,T1)}");
  EXPECT_EQ(exact::format_lock_set(t1, c1[ix(4)], true), "{}");

  const Trace joined = parse_trace("T1|acq(x)|1\nT1|fork(T2)|2\nT2|w(a)|3\nT1|join(T2)|4\n");
  const TraceIndex t2(joined);
  const auto r2 = exact::search(t2);
  const auto c2 = exact::cross_lock_sets(t2, r2.mhb);
  EXPECT_EQ(exact::format_lock_set(t2, c2[ix(3)], true), "{(x,T1)}");
  EXPECT_EQ(exact::format_lock_set(t2, exact::standard_lock_sets(t2)[ix(4)], false), "{x}");
}

TEST(ExactLockSets, ReleaseIsInOuterSectionsOnly) {
  const Trace trace =
      parse_trace("T1|acq(x)|1\nT1|acq(y)|2\nT1|rel(x)|3\nT1|w(a)|4\nT1|rel(y)|5\n");
  const TraceIndex t(trace);
  const auto s = exact::standard_lock_sets(t);
  EXPECT_EQ(exact::format_lock_set(t, s[ix(1)], false), "{}");
  EXPECT_EQ(exact::format_lock_set(t, s[ix(2)], false), "{x}");
  EXPECT_EQ(exact::format_lock_set(t, s[ix(3)], false), "{y}");  // not in its own section
  EXPECT_EQ(exact::format_lock_set(t, s[ix(4)], false), "{y}");
  EXPECT_EQ(exact::format_lock_set(t, s[ix(5)], false), "{}");
  const auto ids = exact::standard_lock_set_ids(t);
  for (uint32_t i = 0; i < t.size(); ++i) EXPECT_EQ(ids.sets[ids.of_event[i]], s[i]);
}

TEST(ExactLockSets, PredictorCountsPastTheSinkCap) {
  // Many unprotected writes of two threads: all pairs are predicted; the sink keeps 3.
  std::string text = "T1|fork(T2)|0\n";
  for (int i = 0; i < 20; ++i) text += "T1|w(a)|1\nT2|w(a)|2\n";
  const Trace trace = parse_trace(text);
  const RaceSink all = run_engine("ls-standard", trace);
  const RaceSink capped = run_engine("ls-standard", trace, 3);
  EXPECT_EQ(all.race_count(), 400u);
  EXPECT_EQ(capped.race_count(), 400u);
  EXPECT_EQ(capped.races().size(), 3u);
  EXPECT_EQ(capped.racy_events(), all.racy_events());
  // The kept races are the first ones in detection order.
  EXPECT_EQ(capped.races()[0].first.event, 2u);
  EXPECT_EQ(capped.races()[0].second.event, 3u);
}

// ---------------------------------------------------------------------------------------------
// The command line.

struct Output {
  int code;
  std::string out;
};

Output racepred(const std::string& args) {
  const std::string command = std::string(RACEPRED_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

std::string example(const std::string& name) {
  return std::string(RACEPRED_EXAMPLES_DIR) + "/exact/" + name;
}

TEST(ExactCommand, ExitCodesAndText) {
  const Output race = racepred("exact " + example("fig03_hb_wcp.std"));
  EXPECT_EQ(race.code, 1) << race.out;
  EXPECT_NE(race.out.find("race 1: e3 T1|w(a)|3  and  e7 T2|w(a)|7"), std::string::npos)
      << race.out;
  EXPECT_NE(race.out.find("SUMMARY: 1 predictable race among 1 conflicting pairs"),
            std::string::npos);
  const Output none = racepred("exact " + example("fig02_cross_thread.std"));
  EXPECT_EQ(none.code, 0) << none.out;
  const Output complete = racepred("exact --complete " + example("fig06_dctp.std"));
  EXPECT_EQ(complete.code, 0) << complete.out;
  EXPECT_EQ(racepred("exact " + example("fig06_dctp.std")).code, 1);
}

TEST(ExactCommand, WitnessMhbAndStuck) {
  const Output w = racepred("exact --witness " + example("fig03_hb_wcp.std"));
  EXPECT_NE(w.out.find("witness:"), std::string::npos) << w.out;
  EXPECT_NE(w.out.find("<- race"), std::string::npos);
  const Output m = racepred("exact --mhb " + example("fig14_pwr_e.std"));
  // Not e8 or e9: T3 may acquire x first (and then get stuck), without e5.
  EXPECT_NE(m.out.find("e5 T1|w(b)  <mhb  e6 e7 e10 e11 e12 e13\n"), std::string::npos) << m.out;
  const Output s = racepred("exact --witness " + example("fig05_stuck.std"));
  EXPECT_NE(s.out.find("stuck prefix:"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("waiting:"), std::string::npos);
}

TEST(ExactCommand, Json) {
  const Output j = racepred("exact --format json --witness --mhb " + example("fig01_lockset.std"));
  EXPECT_EQ(j.code, 1);
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["schema"], "racepred/2");
  EXPECT_EQ(doc["trace"]["events"], 7);
  const auto& r = doc["results"][0];
  EXPECT_EQ(r["engine"], "exact");
  EXPECT_EQ(r["race_count"], 1);
  EXPECT_EQ(r["counts"]["data-race"], 1);
  EXPECT_EQ(r["findings"][0]["kind"], "data-race");
  EXPECT_EQ(r["findings"][0]["first"], 2);
  EXPECT_EQ(r["findings"][0]["second"], 6);
  EXPECT_EQ(r["findings"][0]["access"], "write-write");
  EXPECT_GT(r["extras"]["states"].get<uint64_t>(), 0u);
  EXPECT_EQ(r["racy_events"], nlohmann::json::array({6}));
  EXPECT_EQ(r["witnesses"][0]["prefix"].back(), r["witnesses"][0]["races"][1]);
  EXPECT_FALSE(r["must_happen_before"].empty());
  const Output e = racepred("exact --format json --enabled " + example("fig01_lockset.std"));
  EXPECT_EQ(nlohmann::json::parse(e.out)["results"][0]["engine"], "exact-enabled");
}

TEST(ExactCommand, ErrorsExitWithTwo) {
  const std::string path = ::testing::TempDir() + "exact_big.std";
  {
    std::ofstream out(path);
    for (int t = 0; t < 6; ++t)
      for (int i = 0; i < 6; ++i) out << "T" << t << "|w(v" << i << ")|" << i << "\n";
  }
  const Output budget = racepred("exact --max-states 100 " + path);
  EXPECT_EQ(budget.code, 2) << budget.out;
  EXPECT_NE(budget.out.find("--max-states 100"), std::string::npos) << budget.out;
  std::remove(path.c_str());
  const std::string bad = ::testing::TempDir() + "exact_bad.std";
  {
    std::ofstream out(bad);
    out << "T1|rel(x)|1\n";
  }
  const Output ill = racepred("exact " + bad);
  EXPECT_EQ(ill.code, 2) << ill.out;
  std::remove(bad.c_str());
  EXPECT_EQ(racepred("exact --format xml " + example("fig01_lockset.std")).code, 2);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
