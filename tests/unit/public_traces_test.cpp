// Every public trace in tests/data parses, and its counts match numbers computed independently
// of racepred; input10/input11 are the only ill-formed ones. The STD traces above 40 KB are
// stored gzipped (racepred reads them as they are).
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "racepred/io/reader.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

const std::string kData = RACEPRED_TEST_DATA_DIR;

struct Counts {
  const char* file;
  uint64_t events, threads, variables, locks, locations;
  std::array<uint64_t, kOpCount> ops;  // r w acq rel fork join
};

// Computed with awk, not with racepred (threads include fork/join targets):
//   cd tests/data/std && for f in *.std*; do zcat -f $f | awk -v f=$f -F'|' '{split($2,a,"(");
//   op=a[1]; arg=substr($2,length(op)+2); arg=substr(arg,1,length(arg)-1); n[op]++; th[$1]=1;
//   if(op=="r"||op=="w")v[arg]=1; if(op=="acq"||op=="rel")l[arg]=1;
//   if(op=="fork"||op=="join")th[arg]=1; loc[$3]=1} END{nt=0;for(k in th)nt++;nv=0;
//   for(k in v)nv++;nl=0;for(k in l)nl++;nc=0;for(k in loc)nc++; printf "{\"%s\", %d, %d, %d,
//   %d, %d, {%d, %d, %d, %d, %d, %d}},\n", f, NR, nt, nv, nl, nc, n["r"],n["w"],
//   n["acq"],n["rel"],n["fork"],n["join"]}'; done
// (no file has comments, blank lines, '\r' or skipped ops; every file ends in '\n').
const Counts kStdCounts[] = {
    {"account.std", 15, 4, 1, 0, 7, {6, 5, 0, 0, 3, 1}},
    {"bubblesort.std.gz", 1654, 13, 25, 1, 11, {1141, 263, 119, 119, 12, 0}},
    {"bufwriter.std.gz", 10263, 6, 6, 1, 22, {5280, 2226, 1374, 1374, 5, 4}},
    {"clean.std", 867, 8, 2, 2, 15, {286, 96, 239, 239, 7, 0}},
    {"input1.std", 4, 2, 1, 0, 2, {2, 2, 0, 0, 0, 0}},
    {"input10.std", 5, 2, 1, 1, 2, {1, 1, 2, 1, 0, 0}},
    {"input11.std", 5, 2, 1, 1, 2, {1, 1, 2, 1, 0, 0}},
    {"input2.std", 4, 2, 1, 0, 2, {2, 2, 0, 0, 0, 0}},
    {"input3.std", 4, 2, 1, 0, 2, {2, 2, 0, 0, 0, 0}},
    {"input4.std", 8, 2, 1, 1, 2, {2, 2, 2, 2, 0, 0}},
    {"input5.std", 1064, 2, 1, 1, 2, {266, 266, 266, 266, 0, 0}},
    {"input6.std", 104, 2, 1, 1, 1, {0, 100, 2, 2, 0, 0}},
    {"input7.std", 6, 2, 2, 0, 2, {2, 4, 0, 0, 0, 0}},
    {"input8.std", 1068, 2, 1, 1, 2, {268, 268, 266, 266, 0, 0}},
    {"input9.std", 3196, 2, 1, 1, 2, {800, 800, 798, 798, 0, 0}},
    {"jigsaw.std.gz", 3181, 8, 51, 45, 283, {551, 498, 1062, 1062, 7, 1}},
    {"lang.std.gz", 1811, 7, 100, 0, 10, {1300, 500, 0, 0, 6, 5}},
    {"mergesort.std", 167, 5, 1, 1, 15, {55, 7, 49, 49, 4, 3}},
    {"readerswriters.std.gz", 9883, 5, 6, 1, 36, {4253, 2168, 1729, 1729, 4, 0}},
    {"syncp_vs_hb.std", 12, 2, 2, 1, 12, {2, 4, 2, 2, 1, 1}},
    {"twostage.std", 83, 12, 2, 2, 17, {20, 12, 20, 20, 11, 0}},
};

std::array<uint64_t, kOpCount> op_counts(const Trace& t) {
  std::array<uint64_t, kOpCount> n{};
  for (const Event& e : t.events) ++n[static_cast<size_t>(e.op)];
  return n;
}

TEST(PublicTraces, StdTracesParseWithIndependentlyComputedCounts) {
  for (const Counts& c : kStdCounts) {
    SCOPED_TRACE(c.file);
    const Trace t = load_trace(kData + "/std/" + c.file);
    EXPECT_EQ(t.summary.format, "std");
    EXPECT_EQ(t.size(), c.events);
    EXPECT_EQ(t.summary.lines, c.events);
    EXPECT_EQ(t.symbols.threads.size(), c.threads);
    EXPECT_EQ(t.symbols.variables.size(), c.variables);
    EXPECT_EQ(t.symbols.locks.size(), c.locks);
    EXPECT_EQ(t.symbols.locations.size(), c.locations);
    EXPECT_EQ(op_counts(t), c.ops);
    EXPECT_EQ(t.summary.skipped_total(), 0u);
  }
}

TEST(PublicTraces, OnlyInput10AndInput11AreIllFormed) {
  for (const Counts& c : kStdCounts) {
    SCOPED_TRACE(c.file);
    const std::string file = c.file;
    ValidationReport r;
    const Trace t = load_checked_trace(kData + "/std/" + file, {}, ValidationMode::Collect, &r);
    if (file == "input10.std" || file == "input11.std") {
      EXPECT_EQ(r.violations, 1u);
      ASSERT_EQ(r.errors.size(), 1u);
      EXPECT_EQ(r.errors[0].rule, kRuleLock1);
      // input10: T1 acquires l1 at event 3 while T0 holds it; input11: T0 at event 2, T1 holds.
      EXPECT_EQ(r.errors[0].event, file == "input10.std" ? 3u : 2u);
      EXPECT_THROW(load_checked_trace(kData + "/std/" + file), InputError);
    } else {
      EXPECT_TRUE(r.ok());
      EXPECT_EQ(r.reentrant_acquires, 0u);
      EXPECT_EQ(t.size(), c.events);
      EXPECT_NO_THROW(load_checked_trace(kData + "/std/" + file));
    }
  }
}

struct SpeedyGoCounts {
  const char* file;
  uint64_t lines, threads, variables, locks, locations;
  std::array<uint64_t, 4> accesses;  // RD WR LK UK
  uint64_t signals, waits;
};

// Computed with awk, not with racepred:
//   cd tests/data/speedygo && for f in $(ls *.log | sort -V); do awk -F, 'NF>=5{n[$2]++;
//   th[$1]=1; if($2=="RD"||$2=="WR")v[$3]=1; if($2=="LK"||$2=="UK")l[$3]=1; loc[$4]=1}
//   END{nt=0;for(k in th)nt++;nv=0;for(k in v)nv++;nl=0;for(k in l)nl++;nc=0;for(k in loc)nc++;
//   printf "{\"%s\", %d, %d, %d, %d, %d, {%d, %d, %d, %d}, %d, %d},\n", FILENAME, NR, nt, nv,
//   nl, nc, n["RD"],n["WR"],n["LK"],n["UK"],n["SIG"],n["WT"]}' $f; done
// Only Test12 has SIG/WT: two pairs, translated by hand to one fork and one join.
const SpeedyGoCounts kSpeedyGoCounts[] = {
    {"Test1.log", 8, 2, 1, 1, 5, {2, 2, 2, 2}, 0, 0},
    {"Test2.log", 8, 2, 2, 1, 5, {3, 1, 2, 2}, 0, 0},
    {"Test3.log", 8, 2, 2, 1, 5, {2, 2, 2, 2}, 0, 0},
    {"Test4.log", 8, 2, 2, 1, 5, {2, 2, 2, 2}, 0, 0},
    {"Test5.log", 18, 3, 2, 3, 5, {3, 3, 6, 6}, 0, 0},
    {"Test6.log", 31, 2, 1, 0, 31, {0, 31, 0, 0}, 0, 0},
    {"Test7.log", 11, 3, 3, 1, 8, {2, 5, 2, 2}, 0, 0},
    {"Test8.log", 8, 2, 1, 1, 5, {0, 4, 2, 2}, 0, 0},
    {"Test9.log", 22, 3, 2, 4, 5, {3, 3, 8, 8}, 0, 0},
    {"Test10.log", 30, 3, 3, 5, 5, {5, 5, 10, 10}, 0, 0},
    {"Test11.log", 4, 2, 2, 0, 4, {2, 2, 0, 0}, 0, 0},
    {"Test12.log", 14, 4, 1, 1, 7, {2, 4, 2, 2}, 2, 2},
    {"Test13.log", 14, 4, 3, 1, 11, {4, 6, 2, 2}, 0, 0},
    {"Test14.log", 7, 2, 1, 1, 4, {1, 2, 2, 2}, 0, 0},
    {"Test15.log", 14, 3, 3, 2, 7, {1, 5, 4, 4}, 0, 0},
    {"Test16.log", 86, 7, 10, 12, 5, {19, 19, 24, 24}, 0, 0},
    {"Test17.log", 14, 3, 2, 2, 5, {2, 2, 5, 5}, 0, 0},
    {"Test18.log", 12, 3, 2, 2, 5, {2, 2, 4, 4}, 0, 0},
    {"Test19.log", 11, 3, 3, 1, 8, {2, 5, 2, 2}, 0, 0},
    {"Test20.log", 18, 3, 3, 2, 7, {3, 5, 5, 5}, 0, 0},
    {"Test21.log", 50, 5, 5, 7, 5, {10, 10, 15, 15}, 0, 0},
    {"Test22.log", 42, 4, 5, 6, 5, {9, 9, 12, 12}, 0, 0},
    {"Test23.log", 8, 2, 1, 1, 5, {1, 3, 2, 2}, 0, 0},
    {"Test24.log", 8, 2, 1, 2, 3, {0, 2, 3, 3}, 0, 0},
    {"Test25.log", 15, 3, 3, 2, 7, {1, 6, 4, 4}, 0, 0},
    {"Test26.log", 18, 3, 3, 3, 7, {2, 4, 6, 6}, 0, 0},
    {"Test27.log", 18, 4, 5, 2, 10, {4, 6, 4, 4}, 0, 0},
    {"Test28.log", 16, 3, 4, 2, 9, {2, 6, 4, 4}, 0, 0},
    {"Test29.log", 14, 3, 3, 2, 7, {2, 4, 4, 4}, 0, 0},
    {"Test30.log", 20, 3, 3, 3, 7, {2, 4, 7, 7}, 0, 0},
    {"Test31.log", 16, 3, 3, 2, 7, {2, 4, 5, 5}, 0, 0},
    {"Test32.log", 14, 3, 3, 2, 7, {2, 4, 4, 4}, 0, 0},
    {"Test33.log", 10, 3, 3, 1, 7, {2, 4, 2, 2}, 0, 0},
};

TEST(PublicTraces, AllSpeedyGoTracesParseAndAreWellFormed) {
  EXPECT_EQ(std::size(kSpeedyGoCounts), 33u);
  for (const SpeedyGoCounts& c : kSpeedyGoCounts) {
    SCOPED_TRACE(c.file);
    const std::string path = kData + "/speedygo/" + c.file;
    ValidationReport r;
    const Trace t = load_checked_trace(path, {}, ValidationMode::Strict, &r);  // auto-detected
    EXPECT_EQ(t.summary.format, "speedygo");
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.reentrant_acquires, 0u);
    EXPECT_EQ(t.summary.lines, c.lines);
    EXPECT_EQ(t.symbols.threads.size(), c.threads);
    EXPECT_EQ(t.symbols.variables.size(), c.variables);
    EXPECT_EQ(t.symbols.locks.size(), c.locks);
    EXPECT_EQ(t.symbols.locations.size(), c.locations);
    const auto ops = op_counts(t);
    EXPECT_EQ(ops[0], c.accesses[0]);
    EXPECT_EQ(ops[1], c.accesses[1]);
    EXPECT_EQ(ops[2], c.accesses[2]);
    EXPECT_EQ(ops[3], c.accesses[3]);
    // Each signal/wait pair becomes one fork or one join; the other half is skipped.
    EXPECT_EQ(ops[4] + ops[5], (c.signals + c.waits) / 2);
    EXPECT_EQ(t.summary.skipped_total(), (c.signals + c.waits) / 2);
    EXPECT_EQ(t.size(), c.lines - t.summary.skipped_total());
  }
  const Trace t12 = load_trace(kData + "/speedygo/Test12.log");
  EXPECT_EQ(t12.to_std(t12.events[t12.index_of(8)]), "T3|fork(T4)|nil");
  EXPECT_EQ(t12.to_std(t12.events[t12.index_of(13)]), "T3|join(T4)|nil");
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
