// racepred confirm following a witness (docs/WITNESSES.md, "Following the witness"): a chooser
// for the controlled scheduler that runs the program's threads in the order of a witness of the
// recorded run, then lets the two racing accesses run back to back.
//
// The program runs with every scheduling hook a choice point (ProgramSpec::every_point), so the
// chooser sees each visible operation of each thread before it happens. The witness's events are
// mapped to those operations by thread and per-thread position: a thread's lock acquires and
// releases, condition waits, thread creations and joins (its *steps*) are its visible operations
// in order, and each must agree with the recorded event at its position (kind, lock or thread).
// A thread runs a step only when the witness has it next among the threads that can run; between
// steps it runs freely (memory accesses and the operations that order nothing by themselves:
// atomics, semaphores, signals, sleeps). The racing accesses' code offsets are access points
// (ProgramSpec::access_offsets): a racing thread that reaches its access at the position of the
// witness is held there; once both are held the two run, the witness's first, then the second.
// Mismatches (the program did something else than the recorded run: its own nondeterminism)
// end the steering with a description: "diverged at event N (thread T did X where the witness
// has Y)"; the execution then goes on with the default choice. Two accesses that the witness
// leaves both enabled may run in either order (both continue the witness); adjacent ones run in
// the witness's order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "racepred/explore/execution.hpp"
#include "racepred/explore/strategy.hpp"
#include "racepred/trace/trace.hpp"
#include "racepred/witness/witness.hpp"

namespace racepred::explore {

// What a witness asks of the program's threads, computed once per race from the recorded run.
struct WitnessPlan {
  enum class StepKind : uint8_t {
    Acquire,
    ReadAcquire,
    Release,
    ReadRelease,
    CondWait,
    Fork,
    Join
  };
  struct Step {
    StepKind kind = StepKind::Acquire;
    size_t index = 0;     // in the recorded trace's events (a condition wait: its acquire)
    size_t position = 0;  // in its thread's events
    uint32_t object = 0;  // the lock (a condition wait: the mutex), or the thread forked/joined
    uint32_t cv = 0;      // a condition wait: the condition variable (a sync object)
    uint64_t rank = 0;    // its place in T' (kNotInWitness: after it)
  };
  static constexpr uint64_t kNotInWitness = UINT64_MAX;

  const Trace* trace = nullptr;  // the recorded run (plain names)
  const Trace* named = nullptr;  // the same, symbolised (for messages)
  witness::Notion notion = witness::Notion::Adjacent;
  std::vector<uint64_t> rank;               // by event index: its place in T', or kNotInWitness
  uint64_t witness_events = 0;              // |T'|
  std::vector<std::vector<size_t>> events;  // by thread: its event indices in order
  std::vector<std::vector<Step>> steps;     // by thread
  std::vector<bool> whole;                  // by thread: all its events are in T'
  ThreadId main = 0;                        // the thread of the first event
  // The racing accesses (the witness's order): event index, thread, steps before it, and how
  // many accesses of its thread at either race location come after those steps and before it.
  struct Access {
    size_t index = 0;
    ThreadId thread = 0;
    size_t steps_before = 0;
    uint64_t arrivals_before = 0;
    uint64_t address = 0;  // of its variable, when the unsymbolised trace names it by one
  };
  Access race[2];
  // By lock (and sync object) id: its address, when the unsymbolised trace names it by one
  // (0: not known; it is then bound to the first address its steps meet). The program runs
  // with a fixed address layout, so an execution has its objects where the recorded run had.
  std::vector<uint64_t> lock_address;
  // The two accesses' locations: an access at either is an access point.
  LocationId race_locations[2] = {0, 0};
  bool is_race_location(LocationId l) const {
    return l == race_locations[0] || l == race_locations[1];
  }

  // Empty `error` when the witness can be followed; else why not.
  std::string error;
};

// `trace`/`named`: the recorded run (plain and symbolised, one numbering); `w`: a checked witness
// of one of its races. The race's access locations are its two accesses' locations.
WitnessPlan plan_witness(const Trace& trace, const Trace& named, const witness::Witness& w);

// After an execution steered by `order`: its trace (unsymbolised; a thread is named by its
// runtime tid, "T3") compared with the recorded run, thread by thread, over the witness's events
// and the two accesses: the same operation at the same location, on the same lock, and on the
// same variable where both name it by address (heap names count allocations, which another
// order may number differently). The first difference, earliest in the witness, as
// "diverged at event N (thread T did X where the witness has Y)" (X in the execution's names,
// `shown`: its symbolised trace, one numbering with `run`); "" when they agree.
class WitnessOrder;
std::string compare_with_witness(const WitnessPlan& plan, const WitnessOrder& order,
                                 const Trace& run, const Trace& shown);

// One execution steered by a plan (every hook a choice point).
class WitnessOrder {
 public:
  // `later_first`: an enabled witness's two accesses run in the reverse of their recorded
  // order (else in the recorded order); an adjacent witness's always in the witness's order.
  WitnessOrder(const WitnessPlan& plan, bool later_first);
  size_t choose(const ChoicePoint& point);

  // The two accesses were held together and ran back to back.
  bool raced() const { return raced_; }
  // The first of the two accesses was let run (the second was enabled then).
  bool first_ran() const { return phase_ == Phase::Second || raced_; }
  // Empty, or "diverged at event N (thread T did X where the witness has Y)".
  const std::string& divergence() const { return divergence_; }
  // Steps of the witness run so far (of plan.steps' ranked ones).
  uint64_t steps_run() const { return steps_run_; }
  // The execution's runtime tid of the recorded run's thread `t` (UINT32_MAX: not seen).
  uint32_t run_tid(ThreadId t) const {
    return t < threads_.size() ? threads_[t].run_tid : UINT32_MAX;
  }

 private:
  enum class Phase : uint8_t { Steer, Second, Free };
  struct ThreadState {
    uint32_t run_tid = UINT32_MAX;  // bound when the thread is created in the execution
    size_t steps = 0;               // steps done
    uint64_t arrivals = 0;          // access points passed since the last step
    uint64_t free_runs = 0;         // choices at non-step hooks since the last step
  };
  uint64_t free_key(ThreadId t) const;
  std::string event_text(size_t index) const;
  std::string thread_text(ThreadId t) const;
  std::string hook_text(const Candidate& c) const;
  size_t diverge(const ChoicePoint& point, std::string text);
  size_t fallback(const ChoicePoint& point);
  bool bind_lock(uint32_t lock, uint64_t address, bool commit);

  const WitnessPlan& plan_;
  bool later_first_;
  std::vector<ThreadState> threads_;     // by trace thread
  std::map<uint32_t, ThreadId> by_run_;  // run tid -> trace thread
  // Forked, not yet seen in the execution: the child, and the run tid of its creator (which
  // goes on until the child appears: the creation may pass other hooks, pthread_once, first).
  std::vector<std::pair<ThreadId, uint32_t>> pending_children_;
  std::map<uint32_t, uint64_t> lock_address_;
  std::map<uint64_t, uint32_t> address_lock_;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> depth_;  // (run tid, lock address) -> holds
  Phase phase_ = Phase::Steer;
  uint32_t second_tid_ = UINT32_MAX;
  bool raced_ = false;
  uint64_t steps_run_ = 0;
  std::string divergence_;
  Fairness fairness_;
};

}  // namespace racepred::explore
