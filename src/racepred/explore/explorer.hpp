// The exploration loop of `racepred explore` (docs/EXPLORE.md): runs the program again and
// again under the controlled scheduler, the strategy choosing at every choice point; analyses
// each new execution's trace with an engine; collects each distinct finding once (a race by its
// two locations, a deadlock by its blocked threads, a failure by its kind and message) with the
// number of executions that hit it and a replay file of the first one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "racepred/explore/execution.hpp"
#include "racepred/explore/strategy.hpp"
#include "racepred/recording/raw_recording.hpp"
#include "racepred/recording/symbolizer.hpp"
#include "racepred/report/finding.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred::explore {

struct ExploreOptions {
  ProgramSpec program;
  std::string strategy = "portfolio";  // portfolio | dfs | random | pct
  uint32_t preemptions = 2;            // dfs, portfolio: the largest preemption bound
  // dfs: where it branches (strategy.hpp); Goldilocks and All run the program with access
  // points. The portfolio's dfs always uses the reduction.
  DfsPoints dfs_points = DfsPoints::Goldilocks;
  uint32_t depth = 3;       // pct: the bug depth d
  uint64_t seed = 1;        // random, pct
  uint64_t executions = 0;  // budget (0: none)
  double seconds = 0;       // budget (0: none)
  std::string engine = "fasttrack";
  std::string replay_dir = "racepred-replays";  // replay files of the findings go here
  // Replay mode: one execution following `replay_choices`; `record` names its trace file.
  bool replay = false;
  std::vector<uint32_t> replay_choices;  // with program.access_points as the file says
  std::string record;
  // Run the executions as forks of the program started once (ForkServer), falling back to a
  // fresh process each when the program cannot be a fork server.
  bool fork_server = true;
  // Ask racepred at every choice point over the channel instead of letting the runtime make
  // the strategy's choices in-process (the same executions, slower; docs/EXPLORE.md, "The plan").
  bool round_trip = false;
  // dfs, portfolio: condition waits may wake spuriously (ProgramSpec::spurious_wakeups).
  bool spurious_wakeups = true;
  // This run's share of the search (strategy.hpp); the budget counts every execution run.
  Shard shard;
  // Executions run at once (each worker a fork server of its own; docs/EXPLORE.md, "Jobs").
  uint32_t jobs = 1;
};

struct ExploreFinding {
  Finding finding;               // names in trace->symbols
  std::shared_ptr<Trace> trace;  // the first execution that hit it, symbolised (names only)
  uint64_t executions = 0;       // executions that hit it
  uint64_t first_execution = 0;  // 1-based
  std::string replay_file;
  std::string key;  // what makes it distinct
};

struct ExploreResult {
  std::vector<ExploreFinding> findings;
  uint64_t executions = 0;        // sharded: this shard's
  uint64_t scout_executions = 0;  // sharded: other shards' executions run to learn the tree
  uint64_t analysed = 0;          // executions whose trace was analysed (new ones)
  uint64_t choice_points = 0;
  uint64_t potential_races = 0;  // accesses whose lock set check failed (the reduction's work)
  bool complete = false;
  std::string coverage;
  double seconds = 0;
  double run_seconds = 0;    // of `seconds`: running the executions (the rest: their analysis)
  bool fork_server = false;  // the executions were forks of a fork server
  std::vector<std::string> notes;
};

// Throws InputError when the program cannot be run (or records nothing), UsageError for an
// unknown strategy or engine.
ExploreResult explore(const ExploreOptions& options);

// A replay file: {"schema": "racepred-replay/1", "version", "program", "arguments",
// "max_steps", "access_points", "finding", "choices"} ("access_points" absent: false).
struct ReplayFile {
  std::string program;
  std::vector<std::string> arguments;
  uint64_t max_steps = 0;
  bool access_points = false;     // "access_points": the choices include memory access points
  bool spurious_wakeups = false;  // "spurious_wakeups": condition waits were offered to wake
  std::string access_offsets;     // ProgramSpec::access_offsets of the execution (racepred confirm)
  std::vector<uint32_t> choices;
};
// Writes the replay file of an execution (`what`: the finding it shows) for o.program.
void write_replay_file(const std::string& path, const ExploreOptions& o, const std::string& what,
                       const std::vector<ChoicePoint>& points);
// The failure of an execution (assertion, crash, deadlock, hang) with the key that makes it
// distinct; false when it exited.
bool failure_of(const ExecutionResult& r, Failure& f, std::string& key);

// An execution's trace without names (code as module+offset), validated as load_checked_trace
// validates a trace file: the trace that finish_recording (symbolize = false) writes and the
// reader reads back, assembled in memory (no trace file written and parsed per execution).
// Throws InputError when the recording is corrupt or the trace is not well-formed; `name`
// stands for the recording in messages.
// `symbolizer`, when given, is reused while the recording's module map is the same text (an
// exploration's executions: their modules' headers are then read once).
struct UnnamedTraceCache {
  std::string maps;
  std::unique_ptr<recording::Symbolizer> symbolizer;
};
Trace unnamed_trace(const recording::RawRecording& recording, const std::string& name,
                    UnnamedTraceCache* cache = nullptr);

// Throws InputError when the file cannot be read or is not a replay file.
ReplayFile read_replay_file(const std::string& path);

}  // namespace racepred::explore
