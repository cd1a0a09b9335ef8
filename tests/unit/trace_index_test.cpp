// trace/trace_index: the index of a whole trace that the offline engines share, and its use by
// the pipeline (built once per run, handed to every offline engine).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "racepred/driver/pipeline.hpp"
#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/trace_index.hpp"
#include "support/exact_support.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using testing::ix;
using testing::pairs_of;

std::string trace_error(const std::string& text) {
  try {
    const Trace trace = parse_trace(text);
    TraceIndex t(trace);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceIndex, RejectsIllFormedTraces) {
  EXPECT_NE(trace_error("T1|rel(x)|1\n").find("Lock-2"), std::string::npos);
  EXPECT_NE(trace_error("T1|fork(T2)|1\nT1|acq(x)|1\nT2|acq(x)|2\n").find("Lock-1"),
            std::string::npos);
  EXPECT_NE(trace_error("T1|acq(x)|1\nT1|acq(x)|2\n").find("re-entrant"), std::string::npos);
  EXPECT_NE(trace_error("T1|fork(T2)|1\nT1|fork(T2)|2\n").find("Fork-1"), std::string::npos);
  EXPECT_NE(trace_error("T2|w(a)|1\nT1|fork(T2)|2\n").find("Fork-2"), std::string::npos);
  EXPECT_NE(trace_error("T1|fork(T2)|1\nT1|join(T2)|2\nT2|w(a)|3\n").find("Join"),
            std::string::npos);
  EXPECT_NE(trace_error("T1|join(T1)|1\n").find("Join"), std::string::npos);
  // One error format with the validator (`racepred check`, analyze): rule, event id and line.
  EXPECT_EQ(trace_error("T1|w(a)|1\nT1|rel(x)|2\n"),
            "error: trace is not well-formed (Lock-2): event 2 (line 2): T1 releases x, which it "
            "does not hold");
  // Events in memory without lines: the event id.
  try {
    TraceIndex t({Event{Op::Write, 0, 0, 0}, Event{Op::Release, 0, 0, 0}}, {5, 9});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "error: trace is not well-formed (Lock-2): event 9: thread#0 releases lock#0, which "
              "it does not hold");
  }
  // Allowed: no fork (runs from the start), a lock held at the end, two joins, empty threads.
  EXPECT_EQ(trace_error("T1|acq(x)|1\nT2|w(a)|2\nT1|fork(T3)|3\nT1|join(T3)|4\nT2|join(T3)|5\n"),
            "");
}

// Def. 3.2 (Sulzmann and Thiemann) accepts a join of a thread that is forked later and has no
// events (Join only asks that the joined thread's events come first); the exact engines used to
// reject it.
TEST(TraceIndex, JoinBeforeForkOfAThreadWithoutEvents) {
  const Trace trace = parse_trace("T0|join(T1)|1\nT0|fork(T1)|2\nT0|w(x)|3\nT2|w(x)|4\n");
  EXPECT_EQ(trace_error("T0|join(T1)|1\nT0|fork(T1)|2\nT0|w(x)|3\nT2|w(x)|4\n"), "");
  const TraceIndex t(trace);
  EXPECT_EQ(t.fork_of(1), ix(2));
  for (const char* engine : {"exact", "exact-enabled", "ls-standard", "ls-cross",
                             "ls-cross-indexed", "hb", "fasttrack"}) {
    const RaceSink sink = run_engine(engine, trace);
    ASSERT_EQ(sink.races().size(), 1u) << engine;
    EXPECT_EQ(sink.races()[0].first.event, 3u) << engine;
    EXPECT_EQ(sink.races()[0].second.event, 4u) << engine;
  }
  // An event of the thread after the fork comes after the join: Join, with event and line.
  EXPECT_EQ(trace_error("T0|join(T1)|1\nT0|fork(T1)|2\nT1|w(x)|3\n"),
            "error: trace is not well-formed (Join): event 3 (line 3): T1 has an event after it "
            "was joined at event 1 (line 1)");
}

TEST(TraceIndex, LastWritesAndMatchingPairs) {
  const Trace trace =
      parse_trace("T1|r(a)|1\nT1|w(a)|2\nT1|acq(x)|3\nT2|r(a)|4\nT1|rel(x)|5\nT2|acq(x)|6\n");
  const TraceIndex t(trace);
  EXPECT_EQ(t.last_write(ix(1)), kNoIndex);
  EXPECT_EQ(t.last_write(ix(4)), ix(2));
  EXPECT_EQ(t.matching(ix(3)), ix(5));
  EXPECT_EQ(t.matching(ix(5)), ix(3));
  EXPECT_EQ(t.matching(ix(6)), kNoIndex);  // held at the end
  EXPECT_EQ(t.conflicting_pairs(), pairs_of({{2, 4}}));
  EXPECT_EQ(t.describe(ix(4)), "T2|r(a)");
}

// A recv lists the last earlier send on its object of every thread that sent on it; sync
// objects count in the lock name space.
TEST(TraceIndex, SendsBeforeEachRecv) {
  const Trace trace = parse_trace(
      "T1|recv(s)|1\nT1|send(s)|2\nT2|send(s)|3\nT1|send(s)|4\nT2|send(o)|5\nT3|recv(s)|6\n"
      "T3|acq(m)|7\nT3|rel(m)|8\nT2|recv(o)|9\nT3|w(x)|10\n");
  const TraceIndex t(trace);
  EXPECT_TRUE(t.has_sync_ops());
  EXPECT_TRUE(t.sends_before(ix(1)).empty());  // no send before it
  const auto ids = [&](uint32_t i) {
    std::vector<EventId> out;
    for (uint32_t k : t.sends_before(i)) out.push_back(t.id(k));
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(ids(ix(6)), (std::vector<EventId>{3, 4}));  // T1's last (4), T2's (3)
  EXPECT_EQ(ids(ix(9)), (std::vector<EventId>{5}));
  EXPECT_TRUE(t.sends_before(ix(2)).empty());  // not a recv
  EXPECT_TRUE(t.sends_before(ix(10)).empty());
  EXPECT_EQ(t.lock_count(), 3u);  // s, o, m
  EXPECT_EQ(t.describe(ix(6)), "T3|recv(s)");
  EXPECT_FALSE(TraceIndex(parse_trace("T0|w(x)|1\n")).has_sync_ops());
}

// Positions of a thread's events, as event ids (1-based) for readability.
std::vector<EventId> ids_of(const TraceIndex& t, const std::vector<uint32_t>& positions) {
  std::vector<EventId> out;
  for (uint32_t i : positions) out.push_back(t.id(i));
  return out;
}

TEST(TraceIndex, ThreadsFirstLastForkJoinAndPositions) {
  // T2 is forked and joined but has no events; T3 runs from the start without a fork.
  const Trace trace = parse_trace(
      "T0|fork(T1)|1\nT1|w(x)|2\nT0|fork(T2)|3\nT3|r(x)|4\nT1|acq(l)|5\nT1|rel(l)|6\n"
      "T0|join(T1)|7\nT0|join(T2)|8\nT0|w(y)|9\n");
  const TraceIndex t(trace);
  ASSERT_EQ(t.size(), 9u);
  ASSERT_EQ(t.thread_count(), 4u);
  EXPECT_EQ(t.variable_count(), 2u);
  EXPECT_EQ(t.lock_count(), 1u);
  EXPECT_EQ(t.first_of(0), ix(1));
  EXPECT_EQ(t.last_of(0), ix(9));
  EXPECT_EQ(t.fork_of(0), kNoIndex);
  EXPECT_EQ(t.join_of(0), kNoIndex);
  EXPECT_EQ(t.first_of(1), ix(2));
  EXPECT_EQ(t.last_of(1), ix(6));
  EXPECT_EQ(t.fork_of(1), ix(1));
  EXPECT_EQ(t.join_of(1), ix(7));
  EXPECT_EQ(t.first_of(2), kNoIndex);
  EXPECT_EQ(t.last_of(2), kNoIndex);
  EXPECT_EQ(t.fork_of(2), ix(3));
  EXPECT_EQ(t.join_of(2), ix(8));
  EXPECT_EQ(t.first_of(3), ix(4));
  EXPECT_EQ(t.fork_of(3), kNoIndex);

  EXPECT_EQ(ids_of(t, t.thread_events(0)), (std::vector<EventId>{1, 3, 7, 8, 9}));
  EXPECT_EQ(ids_of(t, t.thread_events(1)), (std::vector<EventId>{2, 5, 6}));
  EXPECT_TRUE(t.thread_events(2).empty());
  EXPECT_EQ(ids_of(t, t.thread_events(3)), (std::vector<EventId>{4}));
  EXPECT_EQ(t.index_in_thread(ix(1)), 0u);
  EXPECT_EQ(t.index_in_thread(ix(7)), 2u);
  EXPECT_EQ(t.index_in_thread(ix(9)), 4u);
  EXPECT_EQ(t.index_in_thread(ix(6)), 2u);
  EXPECT_EQ(t.index_in_thread(ix(4)), 0u);
  EXPECT_EQ(t.last_write(ix(4)), ix(2));
  EXPECT_EQ(t.last_write(ix(2)), kNoIndex);  // a write has none
  EXPECT_EQ(t.matching(ix(1)), kNoIndex);    // nor has a fork
}

TEST(TraceIndex, MatchingOfNestedAndReadSections) {
  // Nested sections released out of order; two readers of one lock at once, then a writer.
  const Trace trace = parse_trace(
      "T1|acq(x)|1\nT1|acq(y)|2\nT1|rel(x)|3\nT1|rel(y)|4\nT1|fork(T2)|5\nT1|racq(z)|6\n"
      "T2|racq(z)|7\nT1|rrel(z)|8\nT2|rrel(z)|9\nT2|acq(z)|10\nT2|w(a)|11\n");
  const TraceIndex t(trace);
  EXPECT_EQ(t.matching(ix(1)), ix(3));
  EXPECT_EQ(t.matching(ix(3)), ix(1));
  EXPECT_EQ(t.matching(ix(2)), ix(4));
  EXPECT_EQ(t.matching(ix(4)), ix(2));
  EXPECT_EQ(t.matching(ix(6)), ix(8));  // each reader its own release
  EXPECT_EQ(t.matching(ix(7)), ix(9));
  EXPECT_EQ(t.matching(ix(9)), ix(7));
  EXPECT_EQ(t.matching(ix(10)), kNoIndex);  // held at the end

  const std::vector<CriticalSection> cs = t.critical_sections();
  ASSERT_EQ(cs.size(), 5u);
  auto expect = [&](size_t k, EventId acquire, uint32_t release, const char* lock, ThreadId thread,
                    bool read) {
    SCOPED_TRACE(k);
    EXPECT_EQ(cs[k].acquire, ix(acquire));
    EXPECT_EQ(cs[k].release, release);
    EXPECT_EQ(trace.lock_name(cs[k].lock), lock);
    EXPECT_EQ(cs[k].thread, thread);
    EXPECT_EQ(cs[k].read, read);
  };
  const ThreadId t1 = trace.events[0].thread, t2 = trace.events[6].thread;
  expect(0, 1, ix(3), "x", t1, false);
  expect(1, 2, ix(4), "y", t1, false);
  expect(2, 6, ix(8), "z", t1, true);
  expect(3, 7, ix(9), "z", t2, true);
  expect(4, 10, kNoIndex, "z", t2, false);
}

TEST(TraceIndex, IdsWithGapsAndDenseIds) {
  const std::vector<Event> events = {Event{Op::Write, 0, 0, 0}, Event{Op::Fork, 0, 1, 0},
                                     Event{Op::Read, 1, 0, 0}};
  const TraceIndex gaps(events, {3, 8, 20});
  EXPECT_EQ(gaps.id(0), 3u);
  EXPECT_EQ(gaps.id(1), 8u);
  EXPECT_EQ(gaps.id(2), 20u);
  const TraceIndex dense(events, {1, 2, 3});
  EXPECT_EQ(dense.id(2), 3u);
  const TraceIndex none(events, {});  // no ids: 1, 2, 3
  EXPECT_EQ(none.id(0), 1u);
  EXPECT_EQ(none.id(2), 3u);
  // Events the validator has already forwarded are indexed as they are.
  const TraceIndex validated(TraceIndex::Validated{}, events, {4, 5, 9});
  EXPECT_EQ(validated.id(2), 9u);
  EXPECT_EQ(validated.last_write(2), 0u);
  EXPECT_EQ(validated.fork_of(1), 1u);
  EXPECT_EQ(validated.describe(2), "T1|r(V0)");  // without symbols
  EXPECT_THROW(TraceIndex(events, {1, 2}), InputError);
}

TEST(TraceIndex, LinksAreBuiltOnceWhenReadFromSeveralThreads) {
  std::string text = "T0|fork(T1)|1\n";
  for (int k = 0; k < 2000; ++k) text += k % 2 ? "T0|w(x)|1\n" : "T1|r(x)|1\n";
  const Trace trace = parse_trace(text);
  const TraceIndex t(trace);
  std::vector<uint32_t> seen(4, 0);
  std::vector<std::thread> readers;
  for (size_t r = 0; r < seen.size(); ++r)
    readers.emplace_back([&, r] {
      uint32_t reads_of_initial = 0;
      for (uint32_t i = 0; i < t.size(); ++i)
        if (t.event(i).op == Op::Read && t.last_write(i) == kNoIndex) ++reads_of_initial;
      seen[r] = reads_of_initial + static_cast<uint32_t>(t.thread_events(1).size());
    });
  for (std::thread& r : readers) r.join();
  // The first read (event 2) sees the initial value; T1 has its 1000 reads.
  for (uint32_t s : seen) EXPECT_EQ(s, 1u + 1000u);
}

// An offline engine takes the index; streaming to it is a mistake the engine refuses.
TEST(OfflineEngine, TakesTheIndexNotBatches) {
  Symbols symbols;
  RaceSink sink(10);
  EngineContext context{symbols, sink};
  for (const EngineInfo& info : engine_registry()) {
    std::unique_ptr<Engine> engine = info.make(context);
    if (!engine->offline()) continue;
    SCOPED_TRACE(info.name);
    EXPECT_EQ(info.mode, EngineMode::Offline);  // never in `-e all`
    EXPECT_THROW(engine->on_event(1, Event{Op::Write, 0, 0, 0}), std::logic_error);
  }
  for (const char* name :
       {"hb", "exact", "exact-enabled", "ls-standard", "ls-cross", "ls-cross-indexed"})
    EXPECT_NE(find_engine(name)->make(context)->offline(), nullptr) << name;
  EXPECT_EQ(find_engine("fasttrack")->make(context)->offline(), nullptr);
}

// The pipeline builds one index and runs every offline engine on it: the same races as each
// engine alone, in every batching and threading mode, also when the validator leaves gaps in
// the ids (a normalised re-entrant pair) in the middle of a batch.
TEST(OfflineEngine, PipelineSharesOneIndexAmongOfflineEngines) {
  const std::string text =
      "T0|fork(T1)|1\nT0|acq(l)|2\nT0|acq(l)|3\nT0|rel(l)|4\nT0|w(x)|5\nT0|rel(l)|6\n"
      "T1|r(x)|7\nT1|w(y)|8\nT0|w(y)|9\nT1|acq(l)|10\nT1|w(x)|11\nT1|rel(l)|12\n"
      "T0|join(T1)|13\nT0|r(x)|14\n";
  const Trace trace = parse_trace(text);  // as written (ids 1..14)
  const std::vector<std::string> names = {"hb",       "fasttrack",       "exact", "ls-standard",
                                          "ls-cross", "lockset",         "sdp",   "exact-enabled",
                                          "hb-sets",  "ls-cross-indexed"};
  for (size_t batch : {1, 3, 64}) {
    for (bool threaded : {false, true}) {
      SCOPED_TRACE(std::to_string(batch) + (threaded ? " threaded" : ""));
      PipelineOptions o;
      o.batch_size = batch;
      o.threaded = threaded;
      const PipelineResult r = run_pipeline_on_text(text, "t.std", resolve_engines(names), o);
      ASSERT_EQ(r.runs.size(), names.size());
      EXPECT_EQ(r.events, 12u);  // the inner acq/rel pair (3, 4) is dropped
      for (const EngineRun& run : r.runs) {
        SCOPED_TRACE(run.info->name);
        EXPECT_TRUE(run.error.empty()) << run.error;
        // Each alone on the normalised trace (without events 3 and 4).
        Trace normalised;
        normalised.symbols = trace.symbols;
        for (size_t i = 0; i < trace.size(); ++i)
          if (trace.ids[i] != 3 && trace.ids[i] != 4) {
            normalised.events.push_back(trace.events[i]);
            normalised.ids.push_back(trace.ids[i]);
          }
        const RaceSink alone = run_engine(*run.info, normalised);
        ASSERT_EQ(run.sink.races().size(), alone.races().size());
        for (size_t k = 0; k < alone.races().size(); ++k) {
          EXPECT_EQ(run.sink.races()[k].first.event, alone.races()[k].first.event);
          EXPECT_EQ(run.sink.races()[k].second.event, alone.races()[k].second.event);
        }
      }
      // hb: w(x) 5 in T0's section against T1's r(x) 7, and the two w(y); ids after the gap
      // are the trace's.
      std::vector<std::pair<EventId, EventId>> hb;
      for (const Race& race : r.runs[0].sink.races())
        hb.emplace_back(race.first.event, race.second.event);
      EXPECT_EQ(hb, (std::vector<std::pair<EventId, EventId>>{{5, 7}, {8, 9}}));
    }
  }
}

// Budgets: an offline engine out of budget loses its result only; the error is the engines'
// BudgetError, its message the search's.
TEST(OfflineEngine, BudgetErrorLosesOnlyThatEngine) {
  const std::string text = "T0|w(x)|1\nT1|w(x)|2\nT0|w(y)|3\nT1|w(y)|4\nT2|w(z)|5\n";
  PipelineOptions o;
  o.engine.max_states = 1;
  const PipelineResult r =
      run_pipeline_on_text(text, "t.std", resolve_engines({"fasttrack", "exact", "hb"}), o);
  ASSERT_EQ(r.runs.size(), 3u);
  EXPECT_TRUE(r.runs[0].error.empty());
  EXPECT_EQ(r.runs[0].sink.race_count(), 2u);
  EXPECT_EQ(r.runs[1].error.rfind(
                "racepred: error: exact: search stopped after 1 states (--max-states 1): ", 0),
            0u)
      << r.runs[1].error;
  EXPECT_EQ(r.runs[1].sink.race_count(), 0u);
  EXPECT_TRUE(r.runs[2].error.empty());
  EXPECT_EQ(r.runs[2].sink.race_count(), 2u);
  EXPECT_GT(r.index_seconds, 0.0);

  Symbols symbols;
  RaceSink sink(10);
  EngineOptions budget;
  budget.max_states = 1;
  EngineContext context{symbols, sink, budget};
  const Trace trace = parse_trace(text);
  auto engine = find_engine("exact")->make(context);
  EXPECT_THROW(engine->offline()->run(TraceIndex(trace)), BudgetError);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
