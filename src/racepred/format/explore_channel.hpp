// The channel between the controlled scheduler of the recording runtime
// (recorder/controlled.cpp, RACEPRED_SCHEDULE=controlled) and `racepred explore`: a
// SOCK_SEQPACKET socket the program inherits, named by RACEPRED_SCHEDULE_FD. Each message is
// one of the structs below (native byte order: both ends run on one machine), the kind first.
// Plain structs, no C++ library: the runtime uses them too.
#pragma once

#include <stdint.h>

namespace racepred::format::explore {

enum MessageKind : uint8_t {
  kChoice = 'C',   // ChoiceMsg + n ChoiceThread; racepred answers with a uint32_t index
  kBlocked = 'D',  // BlockedMsg + the runtime's description of each blocked thread (text)
  kHang = 'H',     // HangMsg: the step bound was reached
};

inline constexpr uint32_t kMaxChoiceThreads = 1024;

// A scheduling point where two or more threads may run.
struct ChoiceMsg {
  uint8_t kind = kChoice;
  uint8_t timeouts = 0;  // none is enabled; these threads' timed operations would time out
  // What `current` is about to do (an operation code below) when it is not among the threads:
  // the operation it is blocked at, or kOpNone when it has ended. current_obj: that
  // operation's object folded to 32 bits (equal folds may be different objects).
  uint8_t current_op = 0;
  uint8_t reserved = 0;
  uint32_t current = 0;  // the thread at the hook now (it may be among the threads or not)
  uint32_t n = 0;        // threads that follow, by ascending tid
  uint32_t current_obj = 0;
  // The recording's sequence counter now: the events recorded before this point have smaller
  // sequence numbers, those after it larger (the explorer places the recorded accesses among
  // the choice points by it).
  uint64_t seq = 0;
};
struct ChoiceThread {
  uint32_t tid = 0;
  uint8_t op = 0;         // what it is about to do (the operation codes below)
  uint8_t point = 0;      // kOpAccess: the RACEPRED_SCHEDULE_ACCESS offset (1-based), 0: a step
  uint8_t times_out = 0;  // a timed operation offered as a timeout beside enabled threads
  uint8_t reserved = 0;
  uint64_t obj = 0;  // the object's address (a join: the target's tid + 1)
};
struct BlockedMsg {
  uint8_t kind = kBlocked;
  uint8_t reserved[7] = {};
};
struct HangMsg {
  uint8_t kind = kHang;
  uint8_t reserved[7] = {};
  uint64_t steps = 0;
};

// The fork server (RACEPRED_SCHEDULE_SERVER): the program stops in the runtime's start-up,
// before main, and RACEPRED_SCHEDULE_FD is its control socket. It sends ServerMsg kServerReady
// (ok = 0: it cannot fork safely, `value` threads run already; it then exits). racepred sends
// RunMsg + the path of the execution's raw recording, with two or three descriptors
// (SCM_RIGHTS): the execution's channel, its standard error and, when given, a file (a memfd)
// that the execution records into instead of the path (the path then only names the recordings
// of the processes the execution forks or execs: PATH.<pid>). The server forks; the child is the
// execution (it asks its choices over that channel); the server answers kServerForked on the
// control socket (value: the child's pid, or -errno) and keeps its copy of the channel open
// until the child has ended; then it sends kServerWaited (value: the wait status) over the
// execution's channel, not the control socket, closes it and waits for the next RunMsg: racepred
// waits on the channel alone and wakes once, when the execution is over (kServerForked is read
// afterwards, or at a timeout to kill the child). It exits when racepred closes the control
// socket.
enum ServerKind : uint8_t {
  kServerReady = 'R',
  kServerRun = 'X',
  kServerForked = 'F',
  kServerWaited = 'W',
};
struct ServerMsg {
  uint8_t kind = kServerReady;
  uint8_t ok = 0;
  uint8_t reserved[6] = {};
  int64_t value = 0;
};
struct RunMsg {
  uint8_t kind = kServerRun;
  uint8_t reserved[3] = {};
  uint32_t path_size = 0;  // the path follows (no terminating 0)
};
inline constexpr uint32_t kMaxServerPath = 4000;

// The operation codes racepred looks at (the runtime's VisibleOp, checked there).
inline constexpr uint8_t kOpNone = 0;
inline constexpr uint8_t kOpThreadCreate = 1;
inline constexpr uint8_t kOpThreadJoin = 2;
inline constexpr uint8_t kOpThreadExit = 3;
inline constexpr uint8_t kOpMutexLock = 4;
inline constexpr uint8_t kOpRwUnlockWrite = 15;  // 4 .. 15: mutex and rwlock operations
// A condition wait (obj: the condition variable). Offered with times_out set beside enabled
// threads while it is unsignalled, under RACEPRED_SCHEDULE_SPURIOUS: a spurious wake-up.
inline constexpr uint8_t kOpCondWait = 16;
inline constexpr uint8_t kOpCondTimedWait = 17;
inline constexpr uint8_t kOpCondSignal = 18;
inline constexpr uint8_t kOpCondBroadcast = 19;
inline constexpr uint8_t kOpSemWait = 20;  // 20 .. 23: semaphore operations
inline constexpr uint8_t kOpSemPost = 23;
inline constexpr uint8_t kOpBarrierWait = 25;
inline constexpr uint8_t kOpOnce = 26;
inline constexpr uint8_t kOpAtomic = 28;
inline constexpr uint8_t kOpSleep = 29;
inline constexpr uint8_t kOpYield = 30;
inline constexpr uint8_t kOpFileLock = 31;
inline constexpr uint8_t kOpFileUnlock = 32;
// A memory access (obj: the address): every access under RACEPRED_SCHEDULE_ACCESSES (explore's
// Goldilocks search; obj2, sent as ChoiceThread::point: 1 for a write, plus 2 x the access's
// size code of format/trace_format.hpp, kSizeRange for a range of unknown length), or one at a
// RACEPRED_SCHEDULE_ACCESS offset, or the next access of a thread that passed one (obj2: the
// point, 1-based, or 0): `racepred confirm` holds and releases threads there.
inline constexpr uint8_t kOpAccess = 33;
inline constexpr uint32_t kMaxAccessPoints = 8;

// ChoiceMsg::current_obj: a 64-bit object folded (both halves).
inline constexpr uint32_t fold_object(uint64_t obj) {
  return static_cast<uint32_t>(obj ^ (obj >> 32));
}

}  // namespace racepred::format::explore
