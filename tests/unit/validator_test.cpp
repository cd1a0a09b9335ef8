// Well-formedness (Def. 3.2 of Sulzmann and Thiemann) with the policy of docs/WELLFORMEDNESS.md:
// every rule, the three modes, re-entrancy normalisation, and that what the validator forwards is
// always well-formed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>

#include "racepred/io/reader.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

Trace checked(std::string_view text, ValidationMode mode, ValidationReport* report) {
  return parse_checked_trace(text, {}, mode, report, "t.std");
}

// The InputError message of a Strict validation, or "".
std::string strict_error(std::string_view text) {
  try {
    checked(text, ValidationMode::Strict, nullptr);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

struct RuleCase {
  const char* name;
  const char* trace;
  const char* rule;
  EventId event;
  const char* message;  // the ValidationIssue message
  size_t kept;          // events forwarded under Lenient
};

const RuleCase kRuleCases[] = {
    {"acquire of a lock another thread holds", "T0|acq(l)|1\nT1|acq(l)|2\nT0|rel(l)|3\n",
     kRuleLock1, 2, "event 2 (line 2): T1 acquires l, which T0 holds since event 1 (line 1)", 2},
    {"release of a lock nobody holds", "T0|w(x)|1\nT0|rel(l)|2\n", kRuleLock2, 2,
     "event 2 (line 2): T0 releases l, which it does not hold", 1},
    {"release of a lock another thread holds", "T0|acq(l)|1\nT1|rel(l)|2\n", kRuleLock2, 2,
     "event 2 (line 2): T1 releases l, which it does not hold (T0 holds it since event 1 (line 1))",
     1},
    {"second fork of a thread", "T0|fork(T1)|1\nT1|w(x)|2\nT0|fork(T1)|3\n", kRuleFork1, 3,
     "event 3 (line 3): T0 forks T1, which was already forked at event 1 (line 1)", 2},
    {"fork of itself", "T0|w(x)|1\nT0|fork(T0)|2\n", kRuleFork1, 2,
     "event 2 (line 2): T0 forks itself", 1},
    {"fork of a thread that already ran", "T1|w(x)|1\nT0|fork(T1)|2\n", kRuleFork2, 2,
     "event 2 (line 2): T0 forks T1, which already ran from event 1 (line 1)", 1},
    {"event after join", "T0|fork(T1)|1\nT1|w(x)|2\nT0|join(T1)|3\nT1|r(x)|4\n", kRuleJoin, 4,
     "event 4 (line 4): T1 has an event after it was joined at event 3 (line 3)", 3},
    {"join of itself", "T0|w(x)|1\nT0|join(T0)|2\n", kRuleJoin, 2,
     "event 2 (line 2): T0 joins itself", 1},
    // Read-write locks: one writer or any number of readers; releases match the mode.
    {"read acquire of a lock another thread holds in write mode",
     "T0|acq(l)|1\nT1|racq(l)|2\nT0|rel(l)|3\n", kRuleLock1, 2,
     "event 2 (line 2): T1 acquires l in read mode, which T0 holds since event 1 (line 1)", 2},
    {"write acquire of a lock a reader holds", "T0|racq(l)|1\nT1|acq(l)|2\nT0|rrel(l)|3\n",
     kRuleLock1, 2,
     "event 2 (line 2): T1 acquires l, which T0 holds in read mode since event 1 (line 1)", 2},
    {"upgrade from read to write mode", "T0|racq(l)|1\nT0|acq(l)|2\nT0|rrel(l)|3\n", kRuleLock1, 2,
     "event 2 (line 2): T0 acquires l, which it holds in read mode since event 1 (line 1) (an "
     "upgrade from read to write mode)",
     2},
    {"read acquire of a lock held in write mode", "T0|acq(l)|1\nT0|racq(l)|2\nT0|rel(l)|3\n",
     kRuleLock1, 2,
     "event 2 (line 2): T0 acquires l in read mode, which it holds in write mode since event 1 "
     "(line 1)",
     2},
    {"read release of a lock held in write mode", "T0|acq(l)|1\nT0|rrel(l)|2\n", kRuleLock2, 2,
     "event 2 (line 2): T0 releases l in read mode, which it does not hold in that mode (it holds "
     "it in write mode since event 1 (line 1))",
     1},
    // Lock requests: after req(l) the thread only acquires l, and it is not joined waiting.
    {"event other than the granting acquire after a request",
     "T0|acq(l)|1\nT1|req(l)|2\nT1|w(x)|3\nT0|rel(l)|4\n", kRuleRequest, 3,
     "event 3 (line 3): T1 has an event other than the acquire of l after its request at event 2 "
     "(line 2)",
     3},
    {"join of a thread waiting at a request",
     "T0|fork(T1)|1\nT0|acq(l)|2\nT1|req(l)|3\nT0|join(T1)|4\n", kRuleRequest, 4,
     "event 4 (line 4): T0 joins T1, which waits for l since its request at event 3 (line 3)", 3},
    {"write acquire after a read request",
     "T0|racq(l)|1\nT1|rreq(l)|2\nT1|acq(l)|3\nT0|rrel(l)|4\n", kRuleRequest, 3,
     "event 3 (line 3): T1 has an event other than the read acquire of l after its read request "
     "at event 2 (line 2)",
     3},
};

TEST(Validator, EveryRuleUnderEveryMode) {
  for (const RuleCase& c : kRuleCases) {
    SCOPED_TRACE(c.name);
    // Strict: InputError at the first violation, naming file, line, rule and event.
    const std::string line = std::to_string(c.event);  // lines = ids in these traces
    EXPECT_EQ(strict_error(c.trace), "t.std:" + line + ":1: error: trace is not well-formed (" +
                                         c.rule + "): " + c.message);
    // Lenient: the offending event is dropped and counted; the rest goes on.
    ValidationReport lenient;
    const Trace t = checked(c.trace, ValidationMode::Lenient, &lenient);
    EXPECT_EQ(t.size(), c.kept);
    EXPECT_EQ(t.index_of(c.event), SIZE_MAX);
    EXPECT_EQ(lenient.violations, 1u);
    EXPECT_FALSE(lenient.ok());
    // Collect: the same, with the issue recorded.
    ValidationReport collect;
    checked(c.trace, ValidationMode::Collect, &collect);
    ASSERT_EQ(collect.errors.size(), 1u);
    EXPECT_EQ(collect.errors[0].rule, c.rule);
    EXPECT_EQ(collect.errors[0].event, c.event);
    EXPECT_EQ(collect.errors[0].line, c.event);
    EXPECT_EQ(collect.errors[0].message, c.message);
    EXPECT_EQ(collect.violations_by_rule, (std::map<std::string, uint64_t>{{c.rule, 1}}));
  }
}

// What a validator makes of the events `feed` hands it: what it forwards (with lines), the error
// it throws under Strict, and its report.
struct Judged {
  Trace forwarded;
  std::string error;
  ValidationReport report;
};
template <class Feed>
Judged judge(const Trace& in, ValidationMode mode, Feed&& feed) {
  Judged j;
  TraceCollector to(j.forwarded);
  Validator v(in.symbols, {mode, "t.std"}, to);
  try {
    feed(v);
  } catch (const InputError& e) {
    j.error = e.what();
  }
  j.report = v.report();
  return j;
}
constexpr ValidationMode kModes[] = {ValidationMode::Strict, ValidationMode::Lenient,
                                     ValidationMode::Collect};

// Runs of events (on_events, as the binary reader delivers them) are judged exactly as the same
// events one by one: what is forwarded, in which runs' order, and the report; under Strict the
// events before the violation are forwarded before the error.
TEST(Validator, RunsOfEventsAreJudgedAsOneByOne) {
  for (const RuleCase& c : kRuleCases) {
    SCOPED_TRACE(c.name);
    const Trace in = parse_trace(c.trace);
    for (ValidationMode mode : kModes) {
      const Judged one = judge(in, mode, [&](Validator& v) {
        for (size_t i = 0; i < in.size(); ++i) v.on_event(in.ids[i], in.events[i], 0);
      });
      const Judged runs = judge(in, mode, [&](Validator& v) { v.on_events(in.ids, in.events); });
      EXPECT_EQ(runs.error, one.error);
      EXPECT_EQ(runs.forwarded.events, one.forwarded.events);
      EXPECT_EQ(runs.forwarded.ids, one.forwarded.ids);
      EXPECT_EQ(runs.report.forwarded, one.report.forwarded);
      EXPECT_EQ(runs.report.violations, one.report.violations);
      EXPECT_EQ(one.forwarded.size(), mode == ValidationMode::Strict ? c.event - 1 : c.kept);
    }
  }
}

// Runs with input lines (on_lines, as the STD reader delivers them) are judged as the same
// events one by one with their lines: same forwarded events and lines, same messages (which
// name the line), same report; the fast path for accesses and lock pairs changes nothing.
TEST(Validator, RunsWithLinesAreJudgedAsOneByOne) {
  for (const RuleCase& c : kRuleCases) {
    SCOPED_TRACE(c.name);
    const Trace in = parse_trace(c.trace);
    std::vector<uint32_t> lines(in.size());
    for (size_t i = 0; i < lines.size(); ++i) lines[i] = static_cast<uint32_t>(10 + 2 * i);
    for (ValidationMode mode : kModes) {
      const Judged one = judge(in, mode, [&](Validator& v) {
        for (size_t i = 0; i < in.size(); ++i) v.on_event(in.ids[i], in.events[i], lines[i]);
      });
      const Judged runs = judge(in, mode, [&](Validator& v) {
        // Split in two runs: the state carries over from one run to the next.
        const size_t half = in.size() / 2;
        v.on_lines(std::span(in.ids).first(half), std::span(in.events).first(half),
                   std::span(lines).first(half));
        v.on_lines(std::span(in.ids).subspan(half), std::span(in.events).subspan(half),
                   std::span(lines).subspan(half));
      });
      EXPECT_EQ(runs.error, one.error);
      if (mode == ValidationMode::Strict) {
        EXPECT_NE(one.error.find("t.std:"), std::string::npos);
      }
      EXPECT_EQ(runs.forwarded.events, one.forwarded.events);
      EXPECT_EQ(runs.forwarded.ids, one.forwarded.ids);
      EXPECT_EQ(runs.forwarded.lines, one.forwarded.lines);
      EXPECT_EQ(runs.report.forwarded, one.report.forwarded);
      EXPECT_EQ(runs.report.violations, one.report.violations);
      ASSERT_EQ(runs.report.errors.size(), one.report.errors.size());
      for (size_t i = 0; i < runs.report.errors.size(); ++i)
        EXPECT_EQ(runs.report.errors[i].message, one.report.errors[i].message);
    }
  }
}

TEST(Validator, ReadersShareALockAndRecursiveReadLocksAreNormalised) {
  ValidationReport r;
  const Trace t = checked(
      "T0|racq(l)|1\nT1|racq(l)|2\nT1|racq(l)|3\nT1|rrel(l)|4\nT0|rrel(l)|5\nT1|rrel(l)|6\n"
      "T2|acq(l)|7\nT2|rel(l)|8\nT3|racq(l)|9\n",
      ValidationMode::Strict, &r);
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 2, 5, 6, 7, 8, 9}));  // inner read pair dropped
  EXPECT_EQ(r.reentrant_acquires, 1u);
  EXPECT_EQ(r.unreleased_locks, 1u);  // T3's read section is still open
  EXPECT_TRUE(r.ok());
}

// send/recv have no rules: a recv before any send, a send inside a critical section, a name
// used as a lock and as a sync object, by any thread, all well-formed and all kept.
TEST(Validator, SyncOrdersHaveNoRules) {
  ValidationReport r;
  const Trace t = checked(
      "T1|recv(s)|1\nT0|acq(l)|2\nT0|send(s)|3\nT0|send(l)|4\nT0|rel(l)|5\nT1|recv(l)|6\n"
      "T2|send(s)|7\nT2|send(s)|8\nT1|recv(s)|9\n",
      ValidationMode::Strict, &r);
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.unreleased_locks, 0u);
  // An event after the thread's join is still an error, whatever its op.
  ValidationReport j;
  checked("T0|fork(T1)|1\nT1|w(x)|2\nT0|join(T1)|3\nT1|send(s)|4\n", ValidationMode::Collect, &j);
  EXPECT_EQ(j.violations, 1u);
}

// A request granted (followed by its acquire, as RAPID writes them) and one still pending at the
// end (the thread blocked there) are both well-formed and kept.
TEST(Validator, RequestsGrantedAndPendingAreKept) {
  ValidationReport r;
  const Trace t = checked(
      "T0|req(a)|1\nT0|acq(a)|2\nT1|acq(b)|3\nT0|req(b)|4\nT1|req(a)|5\n"
      "T2|req(c)|6\nT2|racq(c)|7\nT2|rrel(c)|8\nT3|rreq(c)|9\nT3|racq(c)|10\nT4|acq(d)|11\n"
      "T3|rreq(d)|12\n",
      ValidationMode::Strict, &r);
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.unreleased_locks, 4u);
}

TEST(Validator, CollectRecordsEveryViolation) {
  ValidationReport r;
  const Trace t =
      checked("T0|fork(T1)|1\nT0|join(T1)|2\nT1|w(x)|3\nT1|w(x)|4\nT2|rel(l)|5\nT3|join(T3)|6\n",
              ValidationMode::Collect, &r);
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 2}));
  EXPECT_EQ(r.violations, 4u);
  ASSERT_EQ(r.errors.size(), 4u);
  EXPECT_EQ(r.errors[0].event, 3u);
  EXPECT_EQ(r.errors[1].event, 4u);
  EXPECT_EQ(r.errors[2].rule, kRuleLock2);
  EXPECT_EQ(r.errors[3].rule, kRuleJoin);
  EXPECT_EQ(r.violations_by_rule, (std::map<std::string, uint64_t>{{"Join", 3}, {"Lock-2", 1}}));
}

TEST(Validator, LenientKeepsOnlyTheFirstFewIssuesButCountsAll) {
  std::string text;
  for (int i = 0; i < 25; ++i) text += "T0|rel(l)|1\n";
  ValidationReport r;
  checked(text, ValidationMode::Lenient, &r);
  EXPECT_EQ(r.violations, 25u);
  EXPECT_EQ(r.errors.size(), kKeptIssues);
  checked(text, ValidationMode::Collect, &r);
  EXPECT_EQ(r.errors.size(), kKeptIssues);  // Collect keeps max_issues too (check: an option)
  EXPECT_EQ(r.violations, 25u);
}

TEST(Validator, ReentrantAcquiresAreNormalisedInEveryMode) {
  const char* text =
      "T1|acq(l)|1\nT1|acq(l)|2\nT1|w(x)|3\nT1|acq(l)|4\nT1|rel(l)|5\nT1|rel(l)|6\nT1|rel(l)|7\n"
      "T2|acq(l)|8\nT2|rel(l)|9\n";
  for (ValidationMode mode :
       {ValidationMode::Strict, ValidationMode::Lenient, ValidationMode::Collect}) {
    ValidationReport r;
    const Trace t = checked(text, mode, &r);
    EXPECT_EQ(t.ids, (std::vector<EventId>{1, 3, 7, 8, 9}));  // inner pairs dropped
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.reentrant_acquires, 2u);
    ASSERT_EQ(r.notes.size(), 2u);
    EXPECT_EQ(r.notes[0].rule, kNoteReentrant);
    EXPECT_EQ(r.notes[0].event, 2u);
    EXPECT_EQ(r.notes[0].message,
              "event 2 (line 2): T1 acquires l again while holding it since event 1 (line 1) "
              "(re-entrant); this acquire and its matching release are dropped");
    EXPECT_EQ(r.forwarded, 5u);
  }
}

TEST(Validator, ReleaseOfADroppedAcquireGoesWithIt) {
  // input11.std: T0's acquire breaks Lock-1; its release is dropped with it, not reported.
  ValidationReport r;
  const Trace t = checked("T1|acq(l1)|0\nT0|acq(l1)|0\nT0|r(x)|1\nT1|w(x)|1\nT0|rel(l1)|0\n",
                          ValidationMode::Collect, &r);
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 3, 4}));
  EXPECT_EQ(r.violations, 1u);
  EXPECT_EQ(r.dropped_with_acquire, 1u);
  EXPECT_EQ(r.unreleased_locks, 1u);
  // Nested acquires inside the dropped one go with it too.
  checked("T1|acq(l)|1\nT0|acq(l)|2\nT0|acq(l)|3\nT0|rel(l)|4\nT0|rel(l)|5\nT1|rel(l)|6\n",
          ValidationMode::Collect, &r);
  EXPECT_EQ(r.violations, 1u);
  EXPECT_EQ(r.dropped_with_acquire, 3u);
  EXPECT_EQ(r.unreleased_locks, 0u);
}

TEST(Validator, PolicyAllowsUnforkedThreadsUnrunForksRepeatedJoinsAndOpenLocks) {
  ValidationReport r;
  // Fig. 7 of Sulzmann and Thiemann (well-formed, join(t2) twice) plus: T9 runs without a fork, T4
  // is forked and never runs, x stays locked at the end.
  const Trace t = checked(
      "t1|fork(t2)|1\nt1|fork(t3)|2\nt1|acq(x)|3\nt2|acq(y)|4\nt2|rel(y)|5\nt3|acq(z)|6\n"
      "t3|join(t2)|7\nt3|rel(z)|8\nt1|join(t2)|9\nt1|rel(x)|10\nT9|w(a)|11\nt1|fork(T4)|12\n"
      "t1|acq(x)|13\n",
      ValidationMode::Strict, &r);
  EXPECT_EQ(t.size(), 13u);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.unreleased_locks, 1u);
  EXPECT_EQ(r.reentrant_acquires, 0u);
}

// Def. 3.2 Join asks only that every event of the joined thread comes before the join; Fork-1 and
// Fork-2 say nothing about joins. So a join of a thread that is forked later is well-formed as
// long as that thread has no event; an event of it after the fork breaks Join. The exact
// analyses (trace/trace_index.cpp) check through this validator, so every command agrees.
TEST(Validator, JoinBeforeForkFollowsDef32) {
  ValidationReport r;
  const Trace t = checked("T0|join(T1)|1\nT0|fork(T1)|2\nT0|w(x)|3\n", ValidationMode::Strict, &r);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(strict_error("T0|join(T1)|1\nT0|fork(T1)|2\nT1|w(x)|3\n"),
            "t.std:3:1: error: trace is not well-formed (Join): event 3 (line 3): T1 has an event "
            "after it was joined at event 1 (line 1)");
}

TEST(Validator, DroppedEventsDoNotChangeTheState) {
  // The fork at 2 breaks Fork-2 and is dropped, so the later fork at 4 is T1's first fork...
  // but T1 already ran, so it breaks Fork-2 as well; the join at 5 is fine and T1's event at 6
  // comes after it.
  ValidationReport r;
  const Trace t = checked(
      "T1|w(x)|1\nT0|fork(T1)|2\nT1|acq(l)|3\nT0|fork(T1)|4\nT0|join(T1)|5\n"
      "T1|rel(l)|6\n",
      ValidationMode::Collect, &r);
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 3, 5}));
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0].rule, kRuleFork2);
  EXPECT_EQ(r.errors[1].rule, kRuleFork2);
  EXPECT_EQ(r.errors[2].rule, kRuleJoin);
}

TEST(Validator, WorksOnStreamsWithoutLines) {
  // Events from a generator have line 0: messages then name the event only.
  Symbols symbols;
  symbols.threads.intern("A");
  symbols.locks.intern("m");
  Trace out;
  TraceCollector collector(out);
  Validator v(symbols, ValidationOptions{ValidationMode::Collect, "gen"}, collector);
  v.on_event(1, Event{Op::Release, 0, 0, 0}, 0);
  v.on_end();
  ASSERT_EQ(v.report().errors.size(), 1u);
  EXPECT_EQ(v.report().errors[0].message, "event 1: A releases m, which it does not hold");
}

// Random traces, many of them ill-formed: what the validator forwards (Lenient) must be
// well-formed and free of re-entrancy, and validating it again must forward it unchanged.
TEST(Validator, ForwardedTracesAreWellFormed) {
  std::mt19937_64 rng(11);
  const char* ops[] = {"r", "w", "acq", "rel", "fork", "join"};
  const int iterations = std::getenv("RACEPRED_SANITIZED") ? 500 : 3000;
  for (int iter = 0; iter < iterations; ++iter) {
    std::string text;
    const int n = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      const unsigned op = static_cast<unsigned>(rng() % 6);
      const char prefix = op < 2 ? 'x' : op < 4 ? 'l' : 'T';
      const uint64_t arg = rng() % (op < 4 ? 2 : 4);
      text += 'T';
      text += std::to_string(rng() % 4);
      text += '|';
      text += ops[op];
      text += '(';
      text += prefix;
      text += std::to_string(arg);
      text += ")|";
      text += std::to_string(i);
      text += '\n';
    }
    SCOPED_TRACE(text);
    ValidationReport first;
    const Trace kept = checked(text, ValidationMode::Lenient, &first);
    EXPECT_EQ(kept.size(), first.forwarded);
    std::string again;
    for (const Event& e : kept.events) again += kept.to_std(e) + "\n";
    ValidationReport second;
    const Trace kept_again = checked(again, ValidationMode::Strict, &second);
    EXPECT_TRUE(second.ok());
    EXPECT_EQ(second.reentrant_acquires, 0u);
    ASSERT_EQ(kept_again.size(), kept.size());
    if (first.ok() && first.reentrant_acquires == 0) {
      EXPECT_EQ(kept.size(), kept.summary.delivered);
    }
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
