// Interceptors of condition variables, semaphores, barriers, once and the C++ ABI's guards of
// function-local statics (docs/RECORDER.md).
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
  sync_pair(o, 0);  // the initialiser's events happen before every caller returns
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
  lock_event(fmt::kAcquire, m, pc);
  return r == kTimedOut ? ETIMEDOUT : 0;
}
}  // namespace racepred_rt

using namespace racepred_rt;

RP_EXPORT int pthread_cond_wait(pthread_cond_t* cv, pthread_mutex_t* m) {
  if (scheduling()) return scheduled_cond_wait(cv, m, false, RP_PC());
  lock_event(fmt::kRelease, m, RP_PC());
  const int rc = REAL(pthread_cond_wait, "GLIBC_2.3.2")(cv, m);
  lock_event(fmt::kAcquire, m, RP_PC());  // the mutex is held again, also on errors
  return rc;
}
RP_EXPORT int pthread_cond_timedwait(pthread_cond_t* cv, pthread_mutex_t* m,
                                     const struct timespec* t) {
  if (scheduling()) return scheduled_cond_wait(cv, m, true, RP_PC());
  lock_event(fmt::kRelease, m, RP_PC());
  const int rc = REAL(pthread_cond_timedwait, "GLIBC_2.3.2")(cv, m, t);
  lock_event(fmt::kAcquire, m, RP_PC());
  return rc;
}
RP_EXPORT int pthread_cond_clockwait(pthread_cond_t* cv, pthread_mutex_t* m, clockid_t clock,
                                     const struct timespec* t) {
  if (scheduling()) return scheduled_cond_wait(cv, m, true, RP_PC());
  lock_event(fmt::kRelease, m, RP_PC());
  const int rc = REAL(pthread_cond_clockwait)(cv, m, clock, t);
  lock_event(fmt::kAcquire, m, RP_PC());
  return rc;
}
// Signal and broadcast: visible operations (a scheduler learns which waiters may go on).
RP_EXPORT int pthread_cond_signal(pthread_cond_t* cv) {
  sched_before(kOpCondSignal, obj(cv));
  const int rc = REAL(pthread_cond_signal, "GLIBC_2.3.2")(cv);
  sched_after(kOpCondSignal, obj(cv), 0, rc);
  return rc;
}
RP_EXPORT int pthread_cond_broadcast(pthread_cond_t* cv) {
  sched_before(kOpCondBroadcast, obj(cv));
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
  sync_pair(b, RP_PC());  // release side: before the wait
  int rc;
  if (scheduling()) {
    // Modelled: returns when the round is complete (the real wait would block the one running
    // thread); the thread that completes it is the serial thread.
    rc = sched_before(kOpBarrierWait, obj(b)) == kBarrierSerial ? PTHREAD_BARRIER_SERIAL_THREAD : 0;
  } else {
    rc = REAL(pthread_barrier_wait)(b);
  }
  sync_pair(b, RP_PC());  // acquire side: after it
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
  sync_pair(o, RP_PC());
  return rc;
}

RP_EXPORT int sem_post(sem_t* s) {
  sched_before(kOpSemPost, obj(s));
  sync_pair(s, RP_PC());
  return REAL(sem_post)(s);
}
RP_EXPORT int sem_wait(sem_t* s) {
  sched_before(kOpSemWait, obj(s));  // enabled when the count is positive
  const int rc = REAL(sem_wait)(s);
  if (rc == 0) sync_pair(s, RP_PC());
  return rc;
}
RP_EXPORT int sem_trywait(sem_t* s) {
  sched_before(kOpSemTrywait, obj(s));
  const int rc = REAL(sem_trywait)(s);
  if (rc == 0) sync_pair(s, RP_PC());
  return rc;
}
RP_EXPORT int sem_timedwait(sem_t* s, const struct timespec* t) {
  if (sched_before(kOpSemTimedwait, obj(s)) == kTimedOut) {
    errno = ETIMEDOUT;
    return -1;
  }
  const int rc = REAL(sem_timedwait)(s, t);
  if (rc == 0) sync_pair(s, RP_PC());
  return rc;
}

RP_EXPORT int sem_clockwait(sem_t* s, clockid_t clock, const struct timespec* t) {
  if (sched_before(kOpSemTimedwait, obj(s)) == kTimedOut) {
    errno = ETIMEDOUT;
    return -1;
  }
  const int rc = REAL(sem_clockwait)(s, clock, t);
  if (rc == 0) sync_pair(s, RP_PC());
  return rc;
}

// Function-local statics: the guard is an atomic variable (the compiler's inline fast path
// loads its first byte through __tsan_atomic8_load).
RP_EXPORT int __cxa_guard_acquire(uint64_t* g) {
  sched_before(kOpOnce, obj(g));  // waits while another thread initialises
  const int rc = REAL(__cxa_guard_acquire)(g);
  if (rc == 0) {
    Ctx* c = enter();
    if (c) {
      int* s = stripe(g);
      spin_lock(s);
      atomic_events(c, g, true, false, RP_PC());
      spin_unlock(s);
      leave(c);
    }
  }
  sched_after(kOpOnce, obj(g), 0, rc);  // rc 1: this thread initialises
  return rc;
}
RP_EXPORT void __cxa_guard_release(uint64_t* g) {
  Ctx* c = enter();
  if (c) {
    int* s = stripe(g);
    spin_lock(s);
    atomic_events(c, g, false, true, RP_PC());
    spin_unlock(s);
    leave(c);
  }
  REAL(__cxa_guard_release)(g);
  sched_after(kOpOnceEnd, obj(g));
}
RP_EXPORT void __cxa_guard_abort(uint64_t* g) {
  REAL(__cxa_guard_abort)(g);
  sched_after(kOpOnceEnd, obj(g));
}
