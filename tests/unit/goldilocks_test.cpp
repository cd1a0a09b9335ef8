// Lazy Goldilocks: the short-circuit checks and the list trimming on hand-made traces, compared
// with the eager reference.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "racepred/engines/goldilocks/goldilocks.hpp"
#include "racepred/io/reader.hpp"
#include "support/goldilocks_eager.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using Pairs = std::vector<std::pair<EventId, EventId>>;

Pairs run(const Trace& trace, bool lazy, GoldilocksDiscipline d, GoldilocksLazyOptions o = {}) {
  RaceSink sink(SIZE_MAX);
  EngineContext context{trace.symbols, sink};
  std::unique_ptr<Engine> engine =
      lazy ? make_goldilocks_lazy(context, d, o) : make_goldilocks_eager(context, d);
  for (size_t i = 0; i < trace.size(); ++i) engine->on_event(trace.ids[i], trace.events[i]);
  sink.finalize();
  Pairs out;
  for (const Race& r : sink.races()) out.emplace_back(r.first.event, r.second.event);
  return out;
}

// Both disciplines, lazy with the default and with a tiny list, and eager, give `expected`
// (`expected_rw` for goldilocks-rw when given).
void expect_everywhere(const std::string& text, const Pairs& expected,
                       const Pairs* expected_rw = nullptr) {
  const Trace trace = parse_trace(text);
  for (GoldilocksDiscipline d :
       {GoldilocksDiscipline::MutEx, GoldilocksDiscipline::ConcurrentReads}) {
    SCOPED_TRACE(d == GoldilocksDiscipline::MutEx ? "goldilocks" : "goldilocks-rw");
    const Pairs& want =
        d == GoldilocksDiscipline::ConcurrentReads && expected_rw ? *expected_rw : expected;
    EXPECT_EQ(run(trace, false, d), want) << "eager";
    EXPECT_EQ(run(trace, true, d), want) << "lazy";
    EXPECT_EQ(run(trace, true, d, {2, false}), want) << "lazy, tiny list";
  }
}

TEST(GoldilocksLazy, CommonLockShortCircuit) {
  expect_everywhere("T1|acq(m)|a\nT1|w(x)|b\nT1|rel(m)|c\nT2|acq(m)|d\nT2|w(x)|e\nT2|rel(m)|f\n",
                    {});
}

TEST(GoldilocksLazy, NoIncomingEventMeansUnordered) {
  // T2 acquired m before T1's write; nothing reaches T2 afterwards.
  expect_everywhere("T2|acq(m)|a\nT2|rel(m)|b\nT1|w(x)|c\nT1|acq(m)|d\nT1|rel(m)|e\nT2|w(x)|f\n",
                    {{3, 6}});
}

TEST(GoldilocksLazy, RepeatedFailingCheckThenOrdered) {
  // T2's first write is unordered (reported, the lock set restarts from it); T1 then writes
  // again and hands over through m, so the last write is ordered.
  expect_everywhere(
      "T1|w(x)|a\nT2|w(x)|b\nT2|acq(m)|c\nT2|rel(m)|d\nT1|acq(m)|e\nT1|w(x)|f\nT1|rel(m)|g\n"
      "T2|acq(m)|h\nT2|w(x)|i\n",
      {{1, 2}});
}

// The trimmed prefix below every record is dropped without folding; the threads' own epochs in
// the summary must still count the forks and releases in it.
TEST(GoldilocksLazy, ForkInDroppedPrefix) {
  expect_everywhere("T0|fork(T1)|a\nT0|w(x)|b\nT0|acq(m)|c\nT0|rel(m)|d\nT1|acq(m)|e\nT1|w(x)|f\n",
                    {});
}

TEST(GoldilocksLazy, ReleaseInDroppedPrefix) {
  expect_everywhere(
      "T0|acq(n)|a\nT0|rel(n)|b\nT0|w(x)|c\nT0|acq(m)|d\nT0|rel(m)|e\nT1|acq(m)|f\nT1|w(x)|g\n",
      {});
}

TEST(GoldilocksLazy, StaleRecordOrderedThroughFoldedChain) {
  // x is written once early; a long chain of hand-overs through a, b, c is folded into the
  // summary before T4 reads x. T5 never synchronises: its write is unordered with T4's read
  // (and, for goldilocks-rw, with the write of x too).
  std::string text = "T1|w(x)|w\n";
  for (int i = 0; i < 50; ++i) {
    text += "T1|acq(a)|1\nT1|w(y)|2\nT1|rel(a)|3\nT2|acq(a)|4\nT2|w(y)|5\nT2|rel(a)|6\n";
    text += "T2|acq(b)|7\nT2|rel(b)|8\nT3|acq(b)|9\nT3|acq(c)|10\nT3|rel(c)|11\nT3|rel(b)|12\n";
  }
  text += "T4|acq(c)|r\nT4|r(x)|r\nT4|rel(c)|r\nT5|w(x)|u\n";
  const EventId read = 1 + 50 * 12 + 2, write = read + 2;
  const Pairs rw = {{1, write}, {read, write}};
  expect_everywhere(text, {{read, write}}, &rw);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
