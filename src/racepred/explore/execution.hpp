// One execution of a program under the controlled scheduler (docs/EXPLORE.md): a fresh process
// started with RACEPRED_SCHEDULE=controlled and a channel (a SOCK_SEQPACKET socket); at every
// point where two or more threads may run, the runtime asks and a Chooser answers. The runtime
// records the run (RACEPRED_RECORD) so that the caller can analyse its trace.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "racepred/format/explore_plan.hpp"

namespace racepred::explore {

// A thread that may run at a choice point and the visible operation it is about to do
// (the runtime's operation codes, format/explore_channel.hpp).
struct Candidate {
  uint32_t tid = 0;
  uint8_t op = 0;
  uint64_t obj = 0;
  uint8_t point = 0;       // an access (kOpAccess): its RACEPRED_SCHEDULE_ACCESS offset (from 1)
  bool times_out = false;  // offered as a timeout beside enabled threads (a sleep, a timed wait)
};

// A scheduling point with two or more candidates.
struct ChoicePoint {
  uint32_t current = 0;   // the thread at the hook
  bool timeouts = false;  // no thread is enabled; the candidates' timed operations time out
  // When `current` is not among the candidates: the operation it is blocked at, or 0 (kOpNone)
  // when it has ended; its object folded to 32 bits (format::explore::fold_object).
  uint8_t current_op = 0;
  uint32_t current_obj = 0;
  std::vector<Candidate> candidates;  // ascending tid
  uint32_t chosen = 0;                // the tid that ran (set by run_execution)
  // The recording's sequence counter at the point: events recorded before it have smaller
  // sequence numbers.
  uint64_t seq = 0;
  // A memory access point (the current thread is about to access memory) that the Goldilocks
  // lock sets make a full branching point (set after the execution: goldilocks.hpp).
  bool racy = false;
  // The current thread is at a memory access (ProgramSpec::access_points).
  bool is_access() const;
};

// Returns an index into point.candidates.
using Chooser = std::function<size_t(const ChoicePoint& point, size_t index)>;

// What a strategy tells an execution before it starts so that the runtime can make its
// choices in-process (format/explore_plan.hpp, docs/EXPLORE.md "The plan"): the kind, and the
// prefix (dfs, replay) or the engine's seed and PCT's parameters. The chooser is still asked at
// every choice point, in order, once the execution has ended, and must choose what the runtime
// chose (run_execution checks it).
struct ExecutionPlan {
  uint32_t kind = format::explore::kPlanNone;
  uint64_t seed = 0;
  uint64_t points = 0;  // pct: k
  uint32_t depth = 0;   // pct: d
  std::vector<format::explore::PlanEntry> prefix;
};

// The shared memory region of the plans (a memfd mapped here and in the program).
class PlanRegion {
 public:
  PlanRegion() = default;
  ~PlanRegion();
  PlanRegion(const PlanRegion&) = delete;
  PlanRegion& operator=(const PlanRegion&) = delete;
  // Makes it (false when the system cannot); its descriptor stays open until close_fd().
  bool create();
  bool ready() const { return header_ != nullptr; }
  int fd() const { return fd_; }
  void close_fd();
  // Writes the plan for the next execution (none: kPlanNone, every point asked); false when
  // it does not fit (then none is written).
  bool write(const ExecutionPlan* plan);
  format::explore::PlanHeader* header() const { return header_; }
  // As written here (the program could overwrite the header's copies).
  size_t size() const { return size_; }
  size_t records_offset() const { return records_offset_; }

 private:
  int fd_ = -1;
  format::explore::PlanHeader* header_ = nullptr;
  size_t size_ = 0;
  size_t records_offset_ = 0;
};

struct ProgramSpec {
  std::vector<std::string> command;  // the program and its arguments
  uint64_t max_steps = 1000000;      // RACEPRED_SCHEDULE_STEPS
  double timeout_seconds = 60;       // a process that stops answering is killed (a hang)
  // Every memory access is a scheduling point too (RACEPRED_SCHEDULE_ACCESSES): the choice
  // points then include the accesses where another thread could run.
  bool access_points = false;
  // RACEPRED_SCHEDULE_SPURIOUS: a thread in an unsignalled condition wait is offered beside
  // the enabled threads (Candidate::times_out), to wake without a signal (POSIX allows it).
  bool spurious_wakeups = false;
  // RACEPRED_SCHEDULE_ACCESS: code offsets whose memory accesses are choice points too
  // ("0x1a2b,0x1a40"; empty: none), for racepred confirm and its replays.
  std::string access_offsets;
  // RACEPRED_SCHEDULE_EVERY: every scheduling hook is a choice point, also where one thread can
  // run (racepred confirm follows a witness by every thread's visible operations).
  bool every_point = false;
  // RACEPRED_STACK_DEPTH: frames recorded per event (0: none).
  uint32_t stack_depth = 0;
};

enum class Ending : uint8_t {
  Exited,    // exit status in `status`
  Signaled,  // killed by `signal`
  Deadlock,  // no thread enabled and none can time out (`blocked` describes each thread)
  Hang,      // the step bound was reached, or the process stopped answering within the timeout
};

// A thread that waits at a deadlock, and at what (from the runtime's description): a join
// (op kOpThreadJoin, obj: the joined thread's tid), a mutex or spin lock (kOpMutexLock, obj: its
// address, as recorded), or another operation (op kOpNone: anything may be next for it; a
// condition wait's return that waits for its mutex is one).
struct BlockedThread {
  uint32_t tid = 0;
  uint8_t op = 0;
  uint64_t obj = 0;
};
// The threads of a deadlock description (ExecutionResult::blocked), in its order; lines that
// are not a blocked thread are skipped.
std::vector<BlockedThread> parse_blocked(const std::string& text);

struct ExecutionResult {
  Ending ending = Ending::Exited;
  int status = 0;  // the wait status
  int exit_code = 0;
  int signal = 0;
  std::string blocked;                         // Deadlock: the runtime's description
  std::vector<BlockedThread> blocked_threads;  // Deadlock: every thread still there
  std::string stderr_tail;                     // the program's standard error (its last 4 KiB)
  std::vector<ChoicePoint> points;             // in order
  bool timed_out = false;  // Hang by the wall-clock timeout rather than the step bound
  bool recorded = false;   // the raw recording exists
  // It is in the caller's file (run_execution's raw_fd: a fork of the server), not at `raw`.
  bool recorded_in_fd = false;
};

// The program started once as a fork server (RACEPRED_SCHEDULE_SERVER, docs/EXPLORE.md "Fork
// server"): it stops in the runtime's start-up, before main, and each execution is a fork of it,
// so the exec, the dynamic loader and the runtime's start are paid once. The program's settings
// (ProgramSpec) are fixed when it starts.
class ForkServer {
 public:
  ForkServer() = default;
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;
  // Starts it (its own recording goes into `dir`); false, with the reason, when the program
  // cannot be one: more than one thread runs before main (a library's constructor started one),
  // or it does not answer as a server (a runtime without it). Executions are then re-execs.
  bool start(const ProgramSpec& program, const std::string& dir, std::string& reason);
  bool running() const { return pid_ > 0; }
  // Asks for one execution (docs/EXPLORE.md "Fork server"): it records into `raw_fd` when that
  // is a file (else at `raw`), asks over `channel`, writes its standard error to `err`; when it
  // has ended the server sends its wait status over `channel` (kServerWaited). False when the
  // server is gone (it is stopped then).
  bool send_execution(const std::string& raw, int channel, int err, int raw_fd);
  // The pid of the execution asked for last (the server's kServerForked), or -1 when the fork
  // failed or the server does not answer within `timeout_ms`. Read once per execution.
  int execution_pid(int timeout_ms);
  // Its plan region (mapped in the server before it forks), or nullptr.
  PlanRegion* plan_region() { return plan_.ready() ? &plan_ : nullptr; }
  void stop();

 private:
  int pid_ = -1;
  int control_ = -1;
  int forked_ = 0;  // 1: the last execution's kServerForked is not read yet; else its pid
  PlanRegion plan_;
};

// Runs the program once, writing its raw recording to `raw`: a fork of `server` when one runs
// (into `raw_fd` instead when it is a file of the caller's, a memfd: emptied first), else a
// fresh process. Throws InputError when it cannot be started. With a plan the runtime
// makes the choices itself and `choose` is asked about each point once the program has ended
// (a choice that differs from the runtime's is an internal error: std::logic_error); without
// one, `choose` answers each point while the program waits.
ExecutionResult run_execution(const ProgramSpec& program, const std::string& raw,
                              const Chooser& choose, ForkServer* server = nullptr,
                              const ExecutionPlan* plan = nullptr, int raw_fd = -1);

// A private directory for the executions' raw recordings and traces, removed at the end.
struct WorkDir {
  std::string path;
  WorkDir();  // throws InputError when it cannot be made
  ~WorkDir();
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
};

// "lock", "join", "atomic", … : a short name of a runtime operation code, for messages.
const char* operation_name(uint8_t op);

}  // namespace racepred::explore
