// The findings model: what racepred reports, apart from how it is printed (writers.hpp prints
// it; ThreadSanitizer's ReportDesc / PrintReport split). A finding is a data race, a read-read
// discipline violation, a deadlock or a program failure. Races are collected compactly in a
// RaceSink (race.hpp) and become findings when a report is written.
//
// Adding a kind: a FindingKind value, its name in finding_kind_name(), its payload below, and a
// case in every writer's switch (no writer has a default case, so the build fails until each
// one handles the new kind).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "racepred/trace/event.hpp"

namespace racepred {

// One side of a race: the access event and what a report needs to name it.
struct Access {
  EventId event = kNoEvent;  // kNoEvent: the engine knows only the later event
  ThreadId thread = 0;
  LocationId location = 0;
  Op op = Op::Read;

  static Access of(EventId id, const Event& e) { return Access{id, e.thread, e.location, e.op}; }
  bool known() const { return event != kNoEvent; }
};

// A race pair (first < second in trace order) on `variable`.
struct Race {
  Access first;
  Access second;
  VariableId variable = 0;

  // Output order: by (first, second).
  friend bool operator<(const Race& a, const Race& b) {
    return a.first.event != b.first.event ? a.first.event < b.first.event
                                          : a.second.event < b.second.event;
  }
};

// How far a report is proven, in the words a ThreadSanitizer user expects (docs/ENGINES.md,
// "Confidence"): Observed = the recorded run itself shows the race (the two accesses ran back to
// back); Witnessed = a reordering of this run that shows the race was built and checked by the
// independent witness checker (analyze --witness); Predicted = a sound engine's guarantee says
// some reordering of this run (every read seeing the same write) shows it, no witness was asked
// for; Possible = a warning of an engine without that guarantee, which may be false. Reproduced
// = `racepred confirm` made the two accesses run back to back in a new execution of the real
// program (never given by analyze). Ordered from most to least certain.
enum class Confidence : uint8_t { Reproduced, Observed, Witnessed, Predicted, Possible };
inline constexpr std::array kConfidences = {Confidence::Observed, Confidence::Witnessed,
                                            Confidence::Predicted, Confidence::Possible};
// The labels analyze gives. "reproduced", "observed", "witnessed", "predicted", "possible".
std::string_view confidence_name(Confidence c);
// One sentence that says what the label means for the report it labels.
std::string_view confidence_sentence(Confidence c);

// Detection order: by (second, first). The sink keeps the races that come first in this order.
inline bool detected_before(const Race& a, const Race& b) {
  return a.second.event != b.second.event ? a.second.event < b.second.event
                                          : a.first.event < b.first.event;
}

// The two accesses' ops. ReadRead only comes from engines whose discipline orders reads too
// (goldilocks: Elmas and Qadeer, "A New Lockset Algorithm and Its Applications", §3).
enum class RaceKind : uint8_t { WriteWrite, WriteRead, ReadWrite, ReadRead, Unknown };
RaceKind race_kind(const Race& race);
// "write-write", "write-read", "read-write", "read-read" (first access's op first);
// "unknown" if the first access is unknown.
std::string_view race_kind_name(RaceKind kind);

enum class FindingKind : uint8_t {
  DataRace,           // two conflicting accesses, at least one a write
  ReadReadViolation,  // two reads a discipline orders (not a data race; exit code 0 alone)
  Deadlock,           // a cycle of threads each requesting a lock the next one holds
  Failure,            // the program failed: an assertion, a crash, a hang
};
inline constexpr std::array kFindingKinds = {FindingKind::DataRace, FindingKind::ReadReadViolation,
                                             FindingKind::Deadlock, FindingKind::Failure};
// "data-race", "read-read-violation", "deadlock", "failure" (the JSON "kind").
std::string_view finding_kind_name(FindingKind kind);
// The kind of a race pair: ReadReadViolation when both accesses are known reads.
FindingKind finding_kind_of(const Race& race);
// Whether a finding of this kind makes a run exit with code 1.
bool fails_run(FindingKind kind);

// A lock held by `thread`, in read mode or not, and where it was acquired when known.
struct HeldLock {
  LockId lock = 0;
  ThreadId thread = 0;
  bool read = false;
  EventId acquired = kNoEvent;  // kNoEvent: not known
  LocationId location = 0;      // of `acquired`; meaningful when acquired is known
  friend bool operator==(const HeldLock&, const HeldLock&) = default;
  friend auto operator<=>(const HeldLock&, const HeldLock&) = default;
};

// One step of a deadlock cycle: `thread`, holding `held`, requests `requested` at `event`.
struct DeadlockStep {
  ThreadId thread = 0;
  std::vector<HeldLock> held;
  LockId requested = 0;
  EventId event = kNoEvent;
  LocationId location = 0;
};
// Each step's requested lock is held by the next step's thread (the last step's by the first).
struct Deadlock {
  std::vector<DeadlockStep> cycle;
  std::vector<EventId> witness;  // a prefix of the trace that reaches the deadlock (may be empty)
};

enum class FailureKind : uint8_t {
  Assertion,  // the program's assertion failed (abort)
  Crash,      // a fatal signal
  Hang,       // no progress within the time allowed
  Deadlock,   // every live thread blocked at run time
};
// "assertion", "crash", "hang", "deadlock".
std::string_view failure_kind_name(FailureKind kind);

// How to reproduce an execution: a replay file, or the scheduler's choices (thread per step).
struct Schedule {
  std::string replay_file;
  std::vector<ThreadId> choices;
  bool empty() const { return replay_file.empty() && choices.empty(); }
};

struct Failure {
  FailureKind kind = FailureKind::Crash;
  int signal = 0;           // Crash: the signal number
  std::string message;      // e.g. the assertion's text
  bool has_thread = false;  // `thread` and `location` are known
  ThreadId thread = 0;
  LocationId location = 0;
  Schedule schedule;  // the execution that failed
};

// A race's checked witness (analyze --witness, docs/WITNESSES.md) as a report shows it: where it
// is in the witness file, and the end of its interleaving.
struct WitnessSummary {
  size_t number = 0;      // its place in the witness file, from 1
  bool adjacent = false;  // the notion: the accesses run back to back at its end; else both next
  uint64_t events = 0;    // events in the prefix T'
  struct Step {
    EventId id = kNoEvent;
    Event event;
  };
  // The last few events of each thread in T', in T' order (the two accesses last when adjacent).
  std::vector<Step> tail;
  uint64_t hidden = 0;  // events of T' not in the tail
  Step first, second;   // the two accesses
  // T' (for JSON without a witness file): the cut's events in trace order (each thread's last
  // event in T', docs/WITNESSES.md), then the prefix as runs of consecutive ids [first, last].
  std::vector<EventId> cut;
  std::vector<std::pair<EventId, EventId>> runs;
};

// Locks an engine found around the two accesses of a race (pwr-cs, pwr-e: the cross-thread
// guard locks of Sulzmann and Thiemann, "Cross-thread critical sections…", §6.3).
struct RaceLocks {
  std::vector<HeldLock> first;
  std::vector<HeldLock> second;
};

// One report entry. `kind` says which payload is meaningful.
struct Finding {
  FindingKind kind = FindingKind::DataRace;
  uint64_t count = 1;  // how many times it was found (races: at its pair of locations)
  Race race;           // DataRace, ReadReadViolation
  const RaceLocks* locks = nullptr;  // DataRace, ReadReadViolation: engine's locks, if any
  Deadlock deadlock;                 // Deadlock
  Failure failure;                   // Failure

  static Finding of_race(const Race& race, uint64_t count = 1, const RaceLocks* locks = nullptr) {
    Finding f;
    f.kind = finding_kind_of(race);
    f.race = race;
    f.count = count;
    f.locks = locks;
    return f;
  }
  static Finding of_deadlock(Deadlock deadlock) {
    Finding f;
    f.kind = FindingKind::Deadlock;
    f.deadlock = std::move(deadlock);
    return f;
  }
  static Finding of_failure(Failure failure) {
    Finding f;
    f.kind = FindingKind::Failure;
    f.failure = std::move(failure);
    return f;
  }
};

// An engine's own statistic, printed generically: `key` in JSON "extras", `column` in compare's
// tables, the value and `singular` or `plural` in the text report's note ("2 guard-lock
// confirmations").
struct ExtraStat {
  std::string key;
  std::string column;
  std::string singular;
  std::string plural;
  uint64_t value = 0;
};

// What an engine reports beyond its races, filled in by the engine by the end of finish().
struct EngineExtras {
  std::vector<ExtraStat> stats;
  // Of the races the engine reported, the read-read pairs (counted in the sink's race count):
  // findings of kind ReadReadViolation. Only engines whose discipline orders reads set it.
  uint64_t read_read_pairs = 0;
  // Locks around the accesses of the kept races, by (first, second) event; named `locks_key` in
  // JSON ("guard_locks") and `locks_text` in text ("Cross-thread guard locks").
  std::string locks_key;
  std::string locks_text;
  std::map<std::pair<EventId, EventId>, RaceLocks> race_locks;

  const RaceLocks* locks_of(const Race& race) const {
    const auto it = race_locks.find({race.first.event, race.second.event});
    return it == race_locks.end() ? nullptr : &it->second;
  }
  const ExtraStat* stat(std::string_view key) const {
    for (const ExtraStat& s : stats)
      if (s.key == key) return &s;
    return nullptr;
  }
};

}  // namespace racepred
