// racepred confirm (docs/WITNESSES.md, "Confirming on the program"): records a run of a program
// under the controlled scheduler, predicts its races with the selected engines (witnesses built
// and checked where an engine's guarantee covers them), then drives new controlled executions
// toward each race, as active testing does (Sen, "Race directed random testing of concurrent
// programs", PLDI 2008): the two accesses' code offsets become scheduling points; a thread that
// reaches one is held while the others run, until another thread is about to access the same
// address at the other; then the two accesses run back to back. A race is reproduced when an
// execution's trace shows the two accesses adjacent, on one variable, by two threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "racepred/explore/execution.hpp"
#include "racepred/report/finding.hpp"

namespace racepred::explore {

struct ConfirmOptions {
  ProgramSpec program;
  std::vector<std::string> engines = {"shb", "syncp"};
  uint64_t executions = 100;  // at most this many executions per race
  std::string replay_dir = "racepred-replays";
  // How a race is driven toward: "auto" follows its witness's order first (when an engine built
  // one) and holds one thread at an access when that does not reproduce it; "witness" only
  // follows the witness; "hold" only holds.
  std::string method = "auto";
  uint32_t stack_depth = 16;  // frames of the reproducing execution's two accesses
};

// What following a race's witness gave.
struct WitnessAttempt {
  std::string engine;       // whose witness
  std::string notion;       // "adjacent", "enabled"
  uint64_t events = 0;      // |T'|
  uint64_t steps = 0;       // of T': the lock operations, creations and joins to order
  uint64_t steps_run = 0;   // of those, run in the witness's order
  bool reproduced = false;  // the two accesses met, back to back
  std::string divergence;   // "diverged at event N (thread T did X where the witness has Y)"
};

struct ConfirmedRace {
  std::string variable;  // symbolised names (the recorded run's)
  std::string first_location, second_location;
  std::string first_op, second_op;  // "read", "write"
  // The two accesses' call stacks in the reproducing execution (innermost first; the location
  // alone when the program was not built to record stacks) and their threads there.
  std::vector<std::string> first_stack, second_stack;
  std::string first_thread, second_thread;
  std::string method;  // how it was reproduced: "witness" or "hold" ("" when it was not)
  bool has_witness = false;
  WitnessAttempt witness;  // when has_witness and the method allows it
  std::vector<std::pair<std::string, Confidence>> engines;  // each engine's label
  Confidence status = Confidence::Possible;  // Reproduced, or the most certain engine label
  uint64_t executions = 0;                   // executions driven toward it
  uint64_t reproduced_in =
      0;                    // the execution (1-based, of this race's) that reproduced it; 0: none
  std::string replay_file;  // of that execution
  std::string failure;      // how that execution failed ("" when it exited as the recorded run)
  bool diverged = false;    // the program did not follow the recorded run (own nondeterminism)
  std::string note;         // why it was not tried or not reproduced, or how it diverged
};

struct ConfirmResult {
  std::vector<ConfirmedRace> races;
  uint64_t events = 0;      // of the recorded run
  uint64_t executions = 0;  // in all, the recording included
  double seconds = 0;
  std::vector<std::string> notes;
};

// Throws InputError when the program cannot be run or records nothing, UsageError for an unknown
// engine.
ConfirmResult confirm(const ConfirmOptions& options);

}  // namespace racepred::explore
