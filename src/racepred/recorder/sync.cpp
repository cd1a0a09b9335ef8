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
DECLARE_REAL(int, pthread_barrier_wait, pthread_barrier_t*);
DECLARE_REAL(int, pthread_once, pthread_once_t*, void (*)(void));
DECLARE_REAL(int, sem_wait, sem_t*);
DECLARE_REAL(int, sem_trywait, sem_t*);
DECLARE_REAL(int, sem_timedwait, sem_t*, const struct timespec*);
DECLARE_REAL(int, sem_post, sem_t*);
DECLARE_REAL(int, __cxa_guard_acquire, uint64_t*);
DECLARE_REAL(void, __cxa_guard_release, uint64_t*);
DECLARE_REAL(void, __cxa_guard_abort, uint64_t*);

static thread_local pthread_once_t* t_once RP_TLS;
static thread_local void (*t_once_fn)(void) RP_TLS;
static void once_trampoline() {
  pthread_once_t* o = t_once;
  void (*fn)(void) = t_once_fn;
  fn();
  sync_pair(o, 0);  // the initialiser's events happen before every caller returns
}
}  // namespace racepred_rt

using namespace racepred_rt;

RP_EXPORT int pthread_cond_wait(pthread_cond_t* cv, pthread_mutex_t* m) {
  lock_event(fmt::kRelease, m, RP_PC());
  const int rc = REAL(pthread_cond_wait, "GLIBC_2.3.2")(cv, m);
  lock_event(fmt::kAcquire, m, RP_PC());  // the mutex is held again, also on errors
  return rc;
}
RP_EXPORT int pthread_cond_timedwait(pthread_cond_t* cv, pthread_mutex_t* m,
                                     const struct timespec* t) {
  lock_event(fmt::kRelease, m, RP_PC());
  const int rc = REAL(pthread_cond_timedwait, "GLIBC_2.3.2")(cv, m, t);
  lock_event(fmt::kAcquire, m, RP_PC());
  return rc;
}
RP_EXPORT int pthread_cond_clockwait(pthread_cond_t* cv, pthread_mutex_t* m, clockid_t clock,
                                     const struct timespec* t) {
  lock_event(fmt::kRelease, m, RP_PC());
  const int rc = REAL(pthread_cond_clockwait)(cv, m, clock, t);
  lock_event(fmt::kAcquire, m, RP_PC());
  return rc;
}

RP_EXPORT int pthread_barrier_wait(pthread_barrier_t* b) {
  sync_pair(b, RP_PC());  // release side: before the wait
  const int rc = REAL(pthread_barrier_wait)(b);
  sync_pair(b, RP_PC());  // acquire side: after it
  return rc;
}

RP_EXPORT int pthread_once(pthread_once_t* o, void (*fn)(void)) {
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
  sync_pair(s, RP_PC());
  return REAL(sem_post)(s);
}
RP_EXPORT int sem_wait(sem_t* s) {
  const int rc = REAL(sem_wait)(s);
  if (rc == 0) sync_pair(s, RP_PC());
  return rc;
}
RP_EXPORT int sem_trywait(sem_t* s) {
  const int rc = REAL(sem_trywait)(s);
  if (rc == 0) sync_pair(s, RP_PC());
  return rc;
}
RP_EXPORT int sem_timedwait(sem_t* s, const struct timespec* t) {
  const int rc = REAL(sem_timedwait)(s, t);
  if (rc == 0) sync_pair(s, RP_PC());
  return rc;
}

// Function-local statics: the guard is an atomic variable (the compiler's inline fast path
// loads its first byte through __tsan_atomic8_load).
RP_EXPORT int __cxa_guard_acquire(uint64_t* g) {
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
}
RP_EXPORT void __cxa_guard_abort(uint64_t* g) {
  REAL(__cxa_guard_abort)(g);
}
