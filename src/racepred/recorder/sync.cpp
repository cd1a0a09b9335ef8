// Interceptors of condition variables, semaphores, barriers, once and the C++ ABI's guards of
// function-local statics, and ThreadSanitizer's annotations (docs/RECORDER.md). Each records
// the order it gives as send/recv on the object (docs/FORMATS.md "Synchronisation orders").
#include "racepred/recorder/rt.hpp"

namespace racepred_rt {

// Pulled into every link by buffers.cpp (linked_parts): a static archive's member is linked
// only for symbols the program's objects reference, never for libraries' references.
extern const char kPart_sync = 0;
DECLARE_REAL(int, pthread_cond_wait, pthread_cond_t*, pthread_mutex_t*);
DECLARE_REAL(int, pthread_cond_timedwait, pthread_cond_t*, pthread_mutex_t*,
             const struct timespec*);
DECLARE_REAL(int, pthread_cond_clockwait, pthread_cond_t*, pthread_mutex_t*, clockid_t,
             const struct timespec*);
DECLARE_REAL(int, pthread_cond_signal, pthread_cond_t*);
DECLARE_REAL(int, pthread_cond_broadcast, pthread_cond_t*);
DECLARE_REAL(int, pthread_mutex_lock, pthread_mutex_t*);
DECLARE_REAL(int, pthread_mutex_unlock, pthread_mutex_t*);
DECLARE_REAL(int, pthread_barrier_init, pthread_barrier_t*, const pthread_barrierattr_t*, unsigned);
DECLARE_REAL(int, pthread_barrier_wait, pthread_barrier_t*);
DECLARE_REAL(int, pthread_once, pthread_once_t*, void (*)(void));
DECLARE_REAL(int, sem_wait, sem_t*);
DECLARE_REAL(int, sem_trywait, sem_t*);
DECLARE_REAL(int, sem_timedwait, sem_t*, const struct timespec*);
DECLARE_REAL(int, sem_clockwait, sem_t*, clockid_t, const struct timespec*);
DECLARE_REAL(int, sem_post, sem_t*);
DECLARE_REAL(int, __cxa_guard_acquire, uint64_t*);
DECLARE_REAL(void, __cxa_guard_release, uint64_t*);
DECLARE_REAL(void, __cxa_guard_abort, uint64_t*);

static uintptr_t obj(const volatile void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

static thread_local pthread_once_t* t_once RP_TLS;
static thread_local void (*t_once_fn)(void) RP_TLS;
static void once_trampoline() {
  pthread_once_t* o = t_once;
  void (*fn)(void) = t_once_fn;
  sched_after(kOpOnce, obj(o), 0, 1);  // this thread initialises: others wait
  fn();
  sync_event(fmt::kSend, o, 0);  // the initialiser's events happen before every caller returns
  sched_after(kOpOnceEnd, obj(o));
}

// A condition wait under a scheduler: the real wait could block the one running thread, so it
// is modelled (POSIX allows the spurious wake-ups this may add): release the mutex, wait until
// signalled (or chosen to time out), take the mutex again.
static int scheduled_cond_wait(pthread_cond_t* cv, pthread_mutex_t* m, bool timed, uint64_t pc) {
  lock_event(fmt::kRelease, m, pc);
  REAL(pthread_mutex_unlock)(m);
  sched_after(kOpMutexUnlock, obj(m));
  const int r = sched_before(timed ? kOpCondTimedWait : kOpCondWait, obj(cv), obj(m));
  const int rc = REAL(pthread_mutex_lock)(m);
  sched_after(kOpMutexLock, obj(m), 0, rc);
  sync_event(fmt::kRecv, cv, pc);
  lock_event(fmt::kAcquire, m, pc);
  return r == kTimedOut ? ETIMEDOUT : 0;
}
}  // namespace racepred_rt

using namespace racepred_rt;

RP_EXPORT int pthread_cond_wait(pthread_cond_t* cv, pthread_mutex_t* m) {
  if (scheduling()) return scheduled_cond_wait(cv, m, false, RP_PC());
  lock_event(fmt::kRelease, m, RP_PC());
  const int rc = REAL(pthread_cond_wait, "GLIBC_2.3.2")(cv, m);
  // After every earlier signal (conservatively also on errors and spurious wake-ups), and the
  // mutex is held again.
  sync_event(fmt::kRecv, cv, RP_PC());
  lock_event(fmt::kAcquire, m, RP_PC());
  return rc;
}
RP_EXPORT int pthread_cond_timedwait(pthread_cond_t* cv, pthread_mutex_t* m,
                                     const struct timespec* t) {
  if (scheduling()) return scheduled_cond_wait(cv, m, true, RP_PC());
  lock_event(fmt::kRelease, m, RP_PC());
  const int rc = REAL(pthread_cond_timedwait, "GLIBC_2.3.2")(cv, m, t);
  sync_event(fmt::kRecv, cv, RP_PC());  // also on a timeout: more order, never less
  lock_event(fmt::kAcquire, m, RP_PC());
  return rc;
}
RP_EXPORT int pthread_cond_clockwait(pthread_cond_t* cv, pthread_mutex_t* m, clockid_t clock,
                                     const struct timespec* t) {
  if (scheduling()) return scheduled_cond_wait(cv, m, true, RP_PC());
  lock_event(fmt::kRelease, m, RP_PC());
  const int rc = REAL(pthread_cond_clockwait)(cv, m, clock, t);
  sync_event(fmt::kRecv, cv, RP_PC());
  lock_event(fmt::kAcquire, m, RP_PC());
  return rc;
}
// Signal and broadcast: send(cv) before the real call, which may wake a waiter; visible
// operations (a scheduler learns which waiters may go on).
RP_EXPORT int pthread_cond_signal(pthread_cond_t* cv) {
  sched_before(kOpCondSignal, obj(cv));
  sync_event(fmt::kSend, cv, RP_PC());
  const int rc = REAL(pthread_cond_signal, "GLIBC_2.3.2")(cv);
  sched_after(kOpCondSignal, obj(cv), 0, rc);
  return rc;
}
RP_EXPORT int pthread_cond_broadcast(pthread_cond_t* cv) {
  sched_before(kOpCondBroadcast, obj(cv));
  sync_event(fmt::kSend, cv, RP_PC());
  const int rc = REAL(pthread_cond_broadcast, "GLIBC_2.3.2")(cv);
  sched_after(kOpCondBroadcast, obj(cv), 0, rc);
  return rc;
}

RP_EXPORT int pthread_barrier_init(pthread_barrier_t* b, const pthread_barrierattr_t* a,
                                   unsigned count) {
  const int rc = REAL(pthread_barrier_init)(b, a, count);
  if (rc == 0) sync_object(b, sizeof *b, RP_PC());
  sched_after(kOpBarrierInit, obj(b), count, rc);  // the model needs the count
  return rc;
}
RP_EXPORT int pthread_barrier_wait(pthread_barrier_t* b) {
  sync_event(fmt::kSend, b, RP_PC());  // the arrival: before the wait
  int rc;
  if (scheduling()) {
    // Modelled: returns when the round is complete (the real wait would block the one running
    // thread); the thread that completes it is the serial thread.
    rc = sched_before(kOpBarrierWait, obj(b)) == kBarrierSerial ? PTHREAD_BARRIER_SERIAL_THREAD : 0;
  } else {
    rc = REAL(pthread_barrier_wait)(b);
  }
  sync_event(fmt::kRecv, b, RP_PC());  // the departure: after every arrival of the round
  return rc;
}

RP_EXPORT int pthread_once(pthread_once_t* o, void (*fn)(void)) {
  sched_before(kOpOnce, obj(o));  // waits while another thread runs the initialiser
  pthread_once_t* saved_o = t_once;
  void (*saved_fn)(void) = t_once_fn;
  t_once = o;
  t_once_fn = fn;
  const int rc = REAL(pthread_once)(o, once_trampoline);
  t_once = saved_o;
  t_once_fn = saved_fn;
  sync_event(fmt::kRecv, o, RP_PC());  // after the initialiser's send
  return rc;
}

RP_EXPORT int sem_post(sem_t* s) {
  sched_before(kOpSemPost, obj(s));
  sync_event(fmt::kSend, s, RP_PC());
  return REAL(sem_post)(s);
}
RP_EXPORT int sem_wait(sem_t* s) {
  sched_before(kOpSemWait, obj(s));  // enabled when the count is positive
  const int rc = REAL(sem_wait)(s);
  if (rc == 0) sync_event(fmt::kRecv, s, RP_PC());
  return rc;
}
RP_EXPORT int sem_trywait(sem_t* s) {
  sched_before(kOpSemTrywait, obj(s));
  const int rc = REAL(sem_trywait)(s);
  if (rc == 0) sync_event(fmt::kRecv, s, RP_PC());
  return rc;
}
RP_EXPORT int sem_timedwait(sem_t* s, const struct timespec* t) {
  if (sched_before(kOpSemTimedwait, obj(s)) == kTimedOut) {
    errno = ETIMEDOUT;
    return -1;
  }
  const int rc = REAL(sem_timedwait)(s, t);
  if (rc == 0) sync_event(fmt::kRecv, s, RP_PC());
  return rc;
}

RP_EXPORT int sem_clockwait(sem_t* s, clockid_t clock, const struct timespec* t) {
  if (sched_before(kOpSemTimedwait, obj(s)) == kTimedOut) {
    errno = ETIMEDOUT;
    return -1;
  }
  const int rc = REAL(sem_clockwait)(s, clock, t);
  if (rc == 0) sync_event(fmt::kRecv, s, RP_PC());
  return rc;
}

// Function-local statics: the guard is an atomic variable; the compiler's inline fast path
// loads its first byte through __tsan_atomic8_load with acquire order, a recv(g) (atomics.cpp).
// The release is send(g); a caller that finds the static initialised receives it.
RP_EXPORT int __cxa_guard_acquire(uint64_t* g) {
  sched_before(kOpOnce, obj(g));  // waits while another thread initialises
  const int rc = REAL(__cxa_guard_acquire)(g);
  if (rc == 0) sync_event(fmt::kRecv, g, RP_PC());
  sched_after(kOpOnce, obj(g), 0, rc);  // rc 1: this thread initialises
  return rc;
}
RP_EXPORT void __cxa_guard_release(uint64_t* g) {
  sync_event(fmt::kSend, g, RP_PC());  // before the real release publishes the static
  REAL(__cxa_guard_release)(g);
  sched_after(kOpOnceEnd, obj(g));
}
RP_EXPORT void __cxa_guard_abort(uint64_t* g) {
  REAL(__cxa_guard_abort)(g);
  sched_after(kOpOnceEnd, obj(g));
}

// ---- ThreadSanitizer's annotations (its meaning: tsan_interface_ann.cpp, tsan_interface.h) ----
RP_EXPORT void AnnotateHappensBefore(const char*, int, const volatile void* addr) {
  sync_event(fmt::kSend, addr, RP_PC());
}
RP_EXPORT void AnnotateHappensAfter(const char*, int, const volatile void* addr) {
  Ctx* c = enter();
  if (!c) return;
  recv_after_atomics(c, addr, RP_PC());
  leave(c);
}
RP_EXPORT void __tsan_release(void* addr) {
  sync_event(fmt::kSend, addr, RP_PC());
}
RP_EXPORT void __tsan_acquire(void* addr) {
  Ctx* c = enter();
  if (!c) return;
  recv_after_atomics(c, addr, RP_PC());
  leave(c);
}
// Races on the range are not reported: a record of the range (then its size), and `racepred
// record` drops every access to it from the trace.
RP_EXPORT void AnnotateBenignRaceSized(const char*, int, const volatile void* addr, size_t size,
                                       const char*) {
  Ctx* c = enter();
  if (!c) return;
  put_sized(c, fmt::kRawBenign, obj(addr), size, RP_PC());
  leave(c);
}
RP_EXPORT void AnnotateBenignRace(const char* file, int line, const volatile void* addr,
                                  const char* desc) {
  AnnotateBenignRaceSized(file, line, addr, 1, desc);
}

// ThreadSanitizer's test-only barrier (its tests' "invisible barrier"): it makes threads wait
// for each other but orders nothing, so that a race behind it is still a race. The count is in
// the low byte of the first word, the arrivals above it; epoch = arrivals / count.
static uint32_t barrier_epoch(uint32_t v) {
  return (v >> 8) / (v & 0xff);
}
RP_EXPORT void __tsan_testonly_barrier_init(unsigned long long* barrier, unsigned count) {
  if (count == 0 || count >= 256) {
    static const char kMsg[] = "racepred: __tsan_testonly_barrier_init: count must be 1..255\n";
    write_fully(2, kMsg, sizeof kMsg - 1);
    abort();
  }
  __atomic_store_n(reinterpret_cast<uint32_t*>(barrier), count, __ATOMIC_RELAXED);
  sched_after(kOpBarrierInit, obj(barrier), count, 0);
}
RP_EXPORT void __tsan_testonly_barrier_wait(unsigned long long* barrier) {
  if (scheduling()) {  // the model waits for the round (a real wait would block the one thread)
    sched_before(kOpBarrierWait, obj(barrier));
    return;
  }
  uint32_t* w = reinterpret_cast<uint32_t*>(barrier);
  const uint32_t old = __atomic_fetch_add(w, 1u << 8, __ATOMIC_RELAXED);
  const uint32_t epoch = barrier_epoch(old);
  if (barrier_epoch(old + (1u << 8)) != epoch) {
    syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1 << 30, nullptr, nullptr, 0);
    return;
  }
  for (;;) {
    const uint32_t cur = __atomic_load_n(w, __ATOMIC_RELAXED);
    if (barrier_epoch(cur) != epoch) return;
    syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, cur, nullptr, nullptr, 0);
  }
}
