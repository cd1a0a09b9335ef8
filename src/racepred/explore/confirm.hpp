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
};

struct ConfirmedRace {
  std::string variable;  // symbolised names (the recorded run's)
  std::string first_location, second_location;
  std::string first_op, second_op;                          // "read", "write"
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
