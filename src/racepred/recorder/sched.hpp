// Scheduling hooks of the recording runtime (docs/RECORDER.md, "Scheduling hooks").
//
// Every interceptor of a visible operation calls sched_before() *before* the operation and
// sched_after() when it is done. When no scheduler is set (plain recording) each call is one
// predictable branch on g_scheduler and nothing else happens.
//
// With a scheduler set, the runtime keeps a blocking model (sched.cpp): the owner of every
// mutex, spin lock, rwlock (writer, reader count), FILE lock and initialiser in progress (once,
// function-local static), the state of every thread (created, running, finished), the waiters
// of every condition variable (signalled or not) and the arrivals at every barrier. A thread
// is *enabled* when the operation it waits at would not block: a mutex lock whose mutex is
// free (or held by the thread itself, recursively), a join of a finished thread, a condition
// wait that was signalled and whose mutex is free, a semaphore wait on a positive count, a
// barrier wait whose round is complete. Timed operations and sleeps are enabled as *timeouts*
// only: a scheduler chooses them when no thread is enabled otherwise.
//
// The scheduler is a table of functions (no virtual calls): pick() gets the enabled threads
// and chooses one; the runtime parks every other application thread, so exactly one runs at a
// time. Under a scheduler the blocking operations are not done by the real functions while
// they could block (the chosen thread's operation never blocks): a condition wait is a release,
// a wait until signalled, and a lock; a barrier wait returns when its round completes; timed
// operations that time out return ETIMEDOUT without waiting. The serial scheduler
// (RACEPRED_SCHEDULE=serial) picks round-robin; the controlled one (RACEPRED_SCHEDULE=controlled,
// controlled.cpp) asks `racepred explore` at every choice.
#pragma once

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

namespace racepred_rt {

// What a thread is about to do. obj is the object's address (for a join: the target's tid + 1).
enum VisibleOp : uint8_t {
  kOpNone,
  kOpThreadCreate,
  kOpThreadJoin,
  kOpThreadExit,
  kOpMutexLock,  // obj2: 1 for a recursive mutex, 2 for an error-checking one
  kOpMutexTrylock,
  kOpMutexTimedlock,
  kOpMutexUnlock,
  kOpRdlock,
  kOpTryRdlock,
  kOpTimedRdlock,
  kOpWrlock,
  kOpTryWrlock,
  kOpTimedWrlock,
  kOpRwUnlockRead,
  kOpRwUnlockWrite,
  kOpCondWait,  // obj2: the mutex, released already
  kOpCondTimedWait,
  kOpCondSignal,
  kOpCondBroadcast,
  kOpSemWait,
  kOpSemTrywait,
  kOpSemTimedwait,
  kOpSemPost,
  kOpBarrierInit,  // obj2: the count (sched_after only)
  kOpBarrierWait,
  kOpOnce,     // pthread_once, __cxa_guard_acquire: waits while another thread initialises
  kOpOnceEnd,  // the initialiser is done (sched_after only)
  kOpAtomic,
  kOpSleep,  // sleep, nanosleep: a timeout only
  kOpYield,
  kOpFileLock,  // flockfile: a recursive lock on the FILE
  kOpFileUnlock,
  kOpAccess,  // a memory access: under RACEPRED_SCHEDULE_ACCESSES every one (obj2: 1 for a
              // write, + 2 x its size code); at a RACEPRED_SCHEDULE_ACCESS offset (obj2: its point,
              // 1-based), or the next access of a thread that passed one (obj2: 0; controlled.cpp)
  kOpCount
};

// sched_before's answers.
enum : int {
  kProceed = 0,
  kTimedOut = 1,       // a timed operation is chosen to time out
  kBarrierSerial = 2,  // the barrier wait completed the round
};

struct Scheduler {
  // Chooses the next thread among `n` enabled tids (ascending); `current` is the tid that is
  // at a hook now; `timeouts`: none is enabled and these are timed operations that would time
  // out. Returns an index into tids.
  uint32_t (*pick)(const uint32_t* tids, uint32_t n, uint32_t current, bool timeouts);
  // Called once no thread is enabled and none can time out, with the model's description (also
  // printed by the runtime); the scheduler may record the outcome. The process then ends.
  void (*all_blocked)(const char* text, size_t size);
};

// nullptr: recording only (every hook is one branch).
extern const Scheduler* g_scheduler;

int sched_before_slow(VisibleOp op, uintptr_t obj, uintptr_t obj2);
void sched_after_slow(VisibleOp op, uintptr_t obj, uintptr_t obj2, int rc);
void sched_thread_created(uint32_t child);
void sched_thread_started(uint32_t tid);
void sched_thread_exited(uint32_t tid);
void sched_after_fork(uint32_t tid);
void sched_init();  // reads RACEPRED_SCHEDULE (settings); needs the calling thread's context
// What thread `tid` waits at (a VisibleOp, kOpNone while it runs) and its object; for a
// scheduler's pick(), which runs under the model's lock.
uint8_t sched_thread_op(uint32_t tid, uintptr_t* obj);
// For a kOpAccess: the point (obj2); and whether the scheduler is offered the thread's timed
// operation as a timeout beside enabled threads (see choose() in sched.cpp).
uint32_t sched_thread_point(uint32_t tid);
bool sched_thread_offered_timeout(uint32_t tid);

// controlled.cpp: the scheduler of RACEPRED_SCHEDULE=controlled, or nullptr when the channel
// (RACEPRED_SCHEDULE_FD) is not set; and what a forked child does (it runs unscheduled).
const Scheduler* controlled_scheduler();
void controlled_after_fork();
// Once the scheduler is set (sched_init): under RACEPRED_SCHEDULE_SERVER the process becomes a
// fork server here and returns only in its children, one per execution.
struct Ctx;
void controlled_start(Ctx* c);
// In an execution of the fork server: the server's /proc/self/maps while the loaded objects and
// the main thread's stack are as they were (the recording's module map without reading it
// again), else nullptr.
const char* server_maps(size_t* len);

// Before a visible operation: returns when the calling thread may do it.
inline int sched_before(VisibleOp op, uintptr_t obj, uintptr_t obj2 = 0) {
  if (__builtin_expect(g_scheduler == nullptr, 1)) return kProceed;
  return sched_before_slow(op, obj, obj2);
}
// After it (rc: the real function's result, 0 for success), so the model follows.
inline void sched_after(VisibleOp op, uintptr_t obj, uintptr_t obj2 = 0, int rc = 0) {
  if (__builtin_expect(g_scheduler == nullptr, 1)) return;
  sched_after_slow(op, obj, obj2, rc);
}
// Memory accesses as scheduling points (RACEPRED_SCHEDULE_ACCESS, controlled.cpp): 0 unless
// set, so the access entry points pay one predictable branch.
extern uint32_t g_access_points;
void access_point(uintptr_t addr, uint64_t pc);
inline void sched_access(const void* addr, uint64_t pc) {
  if (__builtin_expect(g_access_points != 0, 0))
    access_point(reinterpret_cast<uintptr_t>(addr), pc);
}

inline bool scheduling() {
  return __builtin_expect(g_scheduler != nullptr, 0);
}

// RACEPRED_SCHEDULE_ACCESSES under the controlled scheduler: every memory access is a
// scheduling point (the search decides where it branches: docs/EXPLORE.md, "Goldilocks
// reduction"). Set once before the first thread is created.
extern bool g_schedule_accesses;
// RACEPRED_SCHEDULE_SPURIOUS under the controlled scheduler: unsignalled condition waits are
// offered beside the enabled threads (choose() in sched.cpp) and wake spuriously when chosen.
extern bool g_schedule_spurious;
// obj2 (the candidate's `point` on the channel): 1 for a write, plus the access's size code
// (format/trace_format.hpp: kSize1 .. kSize16, kSizeRange for a range, whose length the
// scheduler is not told) times 2.
inline void sched_every_access(const void* addr, bool write, uint8_t size_code) {
  if (__builtin_expect(g_scheduler == nullptr, 1) || !g_schedule_accesses) return;
  sched_before_slow(kOpAccess, reinterpret_cast<uintptr_t>(addr),
                    (write ? 1u : 0u) | (uintptr_t{size_code} << 1));
}

}  // namespace racepred_rt

#pragma GCC visibility pop
