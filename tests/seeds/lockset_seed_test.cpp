// Every example trace of seeds 000 (lock sets) and 001 (dynamic data race prediction): the
// lockset engine's race pairs and, where the seed prints them, its lock sets LS(e).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "racepred/driver/annotate.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/io/reader.hpp"

namespace racepred {
namespace {

using Pairs = std::vector<std::pair<EventId, EventId>>;
using LockSets = std::map<EventId, std::string>;  // event id → "{…}" as the seed prints it

struct SeedCase {
  const char* file;  // under examples/
  Pairs races;       // every lock-set race pair (first, second)
  LockSets lock_sets;
};

// CTest lists parameterised tests with their value: name the file, not its bytes.
void PrintTo(const SeedCase& c, std::ostream* os) {
  *os << c.file;
}

// Runs lockset with annotation over the file; returns its races and the LS column.
void check(const SeedCase& c) {
  SCOPED_TRACE(c.file);
  const Trace trace = load_trace(std::string(RACEPRED_EXAMPLES_DIR) + "/" + c.file);
  ASSERT_GT(trace.size(), 0u);
  const AnnotationRun run = annotate_trace("lockset", trace);
  const RaceSink& sink = run.sink;
  LockSets annotated;
  for (size_t i = 0; i < trace.size(); ++i)
    for (const AnnotationCell& cell : run.rows[i])
      if (cell.column == "LS" && !cell.value.empty()) annotated[trace.ids[i]] = cell.value;
  Pairs got;
  for (const Race& r : sink.races()) got.emplace_back(r.first.event, r.second.event);
  EXPECT_EQ(got, c.races);
  EXPECT_EQ(sink.race_count(), c.races.size());
  for (const auto& [id, ls] : c.lock_sets) {
    ASSERT_TRUE(annotated.count(id)) << "no lock set for event " << id;
    EXPECT_EQ(annotated[id], ls) << "LS of event " << id;
  }
}

// Seed 000 (lecture: lock sets) under lockset/, seed 001 (lecture: dynamic data race
// prediction) under lecture/. The comments quote the seed's verdicts.
const std::vector<SeedCase>& seed_cases() {
  static const std::vector<SeedCase> cases = {
      // ---- seed 000 (lecture: lock sets) -------------------------------------------------------
      // "LS(w(x)_1) = {}. LS(w(x)_5) = {y}. … represent a data race."
      {"lockset/trace_a.std", {{1, 5}}, {{1, "{}"}, {5, "{y}"}}},
      // "Observation": LS(e1) = {}, LS(e5) = {y} after reordering (here e5 = id 2, e1 = id 4).
      {"lockset/trace_a_reordered.std", {{2, 4}}, {{2, "{y}"}, {4, "{}"}}},
      // "LS(w(x)_4) = {y1}. LS(w(x)_9) = {y2}." Reported, though a false positive.
      {"lockset/deadlock.std", {{4, 9}}, {{4, "{y1}"}, {9, "{y2}"}}},
      // Examples 1, 2: "Locksets of the writes are disjoint. Hence, we issue a data race warning."
      {"lockset/example1.std", {{3, 7}}, {{3, "{L1}"}, {7, "{}"}}},
      {"lockset/example2.std", {{3, 5}}, {{3, "{L1}"}, {5, "{}"}}},
      // "Each write in thread T0 is in a race with the write in thread T1."
      {"lockset/example2b.std", {{3, 6}, {4, 6}}, {{3, "{L1}"}, {4, "{L1}"}, {6, "{}"}}},
      // "Each read (in thread T0 and thread T1) is in a race with the write in thread T2"; the
      // pure check also pairs T0's write e1 with e5 and e7 (false positives ruled out by the
      // forks).
      {"lockset/example3.std",
       {{1, 5}, {1, 7}, {4, 7}, {5, 7}},
       {{1, "{}"}, {4, "{}"}, {5, "{}"}, {7, "{L1}"}}},
      // e3 and e4 "take place in the same thread": no race between them.
      {"lockset/example3b.std",
       {{3, 5}, {3, 7}, {4, 7}, {5, 7}},
       {{3, "{}"}, {4, "{}"}, {5, "{}"}, {7, "{L1}"}}},
      // "e4 is not in a race with e9 … write e6 is in a race with e9".
      {"lockset/example4.std", {{6, 9}}, {{4, "{L1,L2}"}, {6, "{L1}"}, {9, "{L2}"}}},
      // "the write e3 is in a race with the write e4"; e4 and e7 share L1.
      {"lockset/example5.std", {{3, 4}}, {{3, "{}"}, {4, "{L1}"}, {7, "{L1}"}}},
      // "e2 … with e4", "e2 … with e6", "e4 … with e6" (only the last a true positive).
      {"lockset/example6.std", {{2, 4}, {2, 6}, {4, 6}}, {{2, "{}"}, {4, "{}"}, {6, "{}"}}},
      // ---- seed 001 (lecture: dynamic data race prediction) -------------------------------------
      // Trace A and its reorderings B, C (ids are the line order; locations keep A's positions).
      {"lecture/trace_a.std", {{1, 5}}, {{1, "{}"}, {5, "{y}"}}},
      {"lecture/trace_b.std", {{2, 4}}, {{2, "{y}"}, {4, "{}"}}},
      {"lecture/trace_c.std", {{2, 3}}, {{2, "{y}"}, {3, "{}"}}},
      // "the lockset method ignores write-read dependency": (w(x)_1, w(x)_4) and (w(y)_2, r(y)_3).
      {"lecture/trace_i.std", {{1, 4}, {2, 3}}, {}},
      {"lecture/trace_ii.std", {{1, 4}, {2, 3}}, {}},
      {"lecture/deadlock.std", {{4, 9}}, {{4, "{y1}"}, {9, "{y2}"}}},
      // "Lockset of the two writes on x in thread T0 and T1 are disjont"; read 4 ({}) races too.
      {"lecture/lockset_example1.std", {{2, 5}, {4, 5}}, {{2, "{y}"}, {4, "{}"}, {5, "{}"}}},
      // "the write at trace position 1 and the write at trace position 6 are disjoint".
      {"lecture/lockset_example2.std", {{1, 6}}, {{1, "{}"}, {3, "{y}"}, {6, "{y}"}}},
      // "Locksets are disjoint. Hence, the algorithm signals that there is a data race."
      {"lecture/lockset_example3.std", {{1, 5}}, {{1, "{}"}, {5, "{y}"}}},
      // "Shouldn't the lockset at trace position 2 include lock variable y!? No!"
      {"lecture/lockset_example4.std", {{2, 5}}, {{2, "{}"}, {5, "{y}"}}},
      // Pre vector clock example: the writes 3 and 5 are unordered and unprotected in common.
      {"lecture/pre_vc_sync.std", {{3, 5}}, {{3, "{}"}, {5, "{y}"}}},
      // All lock sets empty: every pair of writes of different threads.
      {"lecture/vc_w_r_two_writes.std", {{1, 3}, {2, 3}}, {}},
      {"lecture/fasttrack_miss.std", {{1, 2}, {1, 3}}, {}},
      // The Go framework's traces (their comments refer to a lockset + fork/join predictor).
      {"lecture/go_trace1.std", {{1, 2}}, {}},
      {"lecture/go_trace1b.std", {{1, 3}, {1, 4}}, {}},
      {"lecture/go_trace1c.std", {{1, 2}, {1, 3}}, {}},
      {"lecture/go_trace2.std", {{1, 6}}, {{1, "{}"}, {3, "{y}"}, {6, "{y}"}}},
  };
  return cases;
}

class LocksetSeed : public testing::TestWithParam<SeedCase> {};

TEST_P(LocksetSeed, RacesAndLockSetsAsInTheSeed) {
  check(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Examples, LocksetSeed, testing::ValuesIn(seed_cases()),
                         [](const testing::TestParamInfo<SeedCase>& info) {
                           std::string name = info.param.file;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

// Every trace under examples/lockset has its case above (examples/lecture is shared with the
// HB engines' examples; the cases above name the lecture traces lockset is checked on).
TEST(LocksetSeedFiles, EveryLocksetExampleIsChecked) {
  std::set<std::string> covered;
  for (const SeedCase& c : seed_cases()) covered.insert(c.file);
  size_t files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(RACEPRED_EXAMPLES_DIR) + "/lockset")) {
    if (entry.path().extension() != ".std") continue;
    ++files;
    const std::string file = "lockset/" + entry.path().filename().string();
    EXPECT_TRUE(covered.count(file)) << file << " has no seed case";
  }
  EXPECT_EQ(files, 11u);
}

}  // namespace
}  // namespace racepred
