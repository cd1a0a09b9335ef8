// Interceptors of mutexes, read-write locks and spin locks (docs/RECORDER.md).
#include "racepred/recorder/rt.hpp"

namespace racepred_rt {

// Pulled into every link by buffers.cpp (linked_parts): a static archive's member is linked
// only for symbols the program's objects reference, never for libraries' references.
extern const char kPart_locks = 0;
DECLARE_REAL(int, pthread_mutex_lock, pthread_mutex_t*);
DECLARE_REAL(int, pthread_mutex_trylock, pthread_mutex_t*);
DECLARE_REAL(int, pthread_mutex_timedlock, pthread_mutex_t*, const struct timespec*);
DECLARE_REAL(int, pthread_mutex_clocklock, pthread_mutex_t*, clockid_t, const struct timespec*);
DECLARE_REAL(int, pthread_mutex_unlock, pthread_mutex_t*);
DECLARE_REAL(int, pthread_rwlock_rdlock, pthread_rwlock_t*);
DECLARE_REAL(int, pthread_rwlock_tryrdlock, pthread_rwlock_t*);
DECLARE_REAL(int, pthread_rwlock_timedrdlock, pthread_rwlock_t*, const struct timespec*);
DECLARE_REAL(int, pthread_rwlock_wrlock, pthread_rwlock_t*);
DECLARE_REAL(int, pthread_rwlock_trywrlock, pthread_rwlock_t*);
DECLARE_REAL(int, pthread_rwlock_timedwrlock, pthread_rwlock_t*, const struct timespec*);
DECLARE_REAL(int, pthread_rwlock_clockrdlock, pthread_rwlock_t*, clockid_t, const struct timespec*);
DECLARE_REAL(int, pthread_rwlock_clockwrlock, pthread_rwlock_t*, clockid_t, const struct timespec*);
DECLARE_REAL(int, pthread_rwlock_unlock, pthread_rwlock_t*);
DECLARE_REAL(void, flockfile, FILE*);
DECLARE_REAL(int, ftrylockfile, FILE*);
DECLARE_REAL(void, funlockfile, FILE*);
DECLARE_REAL(int, pthread_spin_lock, pthread_spinlock_t*);
DECLARE_REAL(int, pthread_spin_trylock, pthread_spinlock_t*);
DECLARE_REAL(int, pthread_spin_unlock, pthread_spinlock_t*);

static bool read_held(Ctx* c, void* l, bool remove) {
  for (void*& s : c->read_locks)
    if (s == l) {
      if (remove) s = nullptr;
      return true;
    }
  return false;
}
static void add_read_held(Ctx* c, void* l) {
  for (void*& s : c->read_locks)
    if (!s) {
      s = l;
      return;
    }
}

// Read-write locks: a write lock is acq/rel of the lock, a read lock racq/rrel (the trace's
// read-mode ops, docs/FORMATS.md). pthread_rwlock_unlock does not say which mode it ends: the
// thread's read_locks remember the locks it holds in read mode. std::shared_mutex is a
// pthread_rwlock_t in libstdc++, so lock_shared/unlock_shared arrive here too.
// The blocking model's kind of a mutex (sched.hpp): a recursive or error-checking mutex does
// not block its owner.
static uintptr_t mutex_kind(const pthread_mutex_t* m) {
  const int k = m->__data.__kind & 3;
  return k == PTHREAD_MUTEX_RECURSIVE_NP ? 1 : k == PTHREAD_MUTEX_ERRORCHECK_NP ? 2 : 0;
}
static uintptr_t obj(const volatile void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

static void read_locked(pthread_rwlock_t* l, uint64_t pc) {
  lock_event(fmt::kReadAcquire, l, pc);
  if (Ctx* c = t_ctx) add_read_held(c, l);
}
}  // namespace racepred_rt

using namespace racepred_rt;

// Each: the hook before (under a scheduler it returns when the lock is free, or chooses a
// timeout for a timed lock), the real call, the event, and the hook after (the model's owner).
// A mutex another thread holds: the lock first leaves a req, so that a thread still blocked
// here when the program exits (or deadlocks) ends its trace with what it waited for (the req of
// a lock that is then granted is followed by its acq, and changes nothing). Not for an
// error-checking mutex: its owner's trylock is busy too, but its lock fails at once. The same for
// write locks of read-write locks and spin locks. A read lock that finds the lock busy leaves
// an `rreq`, a request in read mode (only a write hold blocks it). A timed lock writes its req only
// once it got the lock (req, then the acquire): a timed lock gives up, so a thread waiting in one
// is never a deadlock step, and one that timed out writes nothing (a req must be followed by its
// acquire or end its thread).
RP_EXPORT int pthread_mutex_lock(pthread_mutex_t* m) {
  sched_before(kOpMutexLock, obj(m), mutex_kind(m));
  int rc = REAL(pthread_mutex_trylock)(m);
  if (rc == EBUSY) {
    if (mutex_kind(m) != 2) lock_event(fmt::kRequest, m, RP_PC());
    rc = REAL(pthread_mutex_lock)(m);
  }
  if (rc == 0 && !is_recursive_depth(m)) lock_event(fmt::kAcquire, m, RP_PC());
  sched_after(kOpMutexLock, obj(m), 0, rc);
  return rc;
}
RP_EXPORT int pthread_mutex_trylock(pthread_mutex_t* m) {
  sched_before(kOpMutexTrylock, obj(m));
  const int rc = REAL(pthread_mutex_trylock)(m);
  if (rc == 0 && !is_recursive_depth(m)) lock_event(fmt::kAcquire, m, RP_PC());
  sched_after(kOpMutexTrylock, obj(m), 0, rc);
  return rc;
}
RP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t* m, const struct timespec* t) {
  if (sched_before(kOpMutexTimedlock, obj(m), mutex_kind(m)) == kTimedOut) return ETIMEDOUT;
  int rc = REAL(pthread_mutex_trylock)(m);
  const bool waited = rc == EBUSY && mutex_kind(m) != 2;
  if (rc == EBUSY) rc = REAL(pthread_mutex_timedlock)(m, t);
  if (rc == 0 && waited) lock_event(fmt::kRequest, m, RP_PC());
  if (rc == 0 && !is_recursive_depth(m)) lock_event(fmt::kAcquire, m, RP_PC());
  sched_after(kOpMutexTimedlock, obj(m), 0, rc);
  return rc;
}
// The clock variants (libstdc++ 12's std::timed_mutex::try_lock_for/until): like the timed
// forms, an acquire when they succeed, nothing when they time out.
RP_EXPORT int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t clock,
                                      const struct timespec* t) {
  if (sched_before(kOpMutexTimedlock, obj(m), mutex_kind(m)) == kTimedOut) return ETIMEDOUT;
  int rc = REAL(pthread_mutex_trylock)(m);
  const bool waited = rc == EBUSY && mutex_kind(m) != 2;
  if (rc == EBUSY) rc = REAL(pthread_mutex_clocklock)(m, clock, t);
  if (rc == 0 && waited) lock_event(fmt::kRequest, m, RP_PC());
  if (rc == 0 && !is_recursive_depth(m)) lock_event(fmt::kAcquire, m, RP_PC());
  sched_after(kOpMutexTimedlock, obj(m), 0, rc);
  return rc;
}
RP_EXPORT int pthread_mutex_unlock(pthread_mutex_t* m) {
  sched_before(kOpMutexUnlock, obj(m));
  if (!is_recursive_depth(m)) lock_event(fmt::kRelease, m, RP_PC());
  const int rc = REAL(pthread_mutex_unlock)(m);
  sched_after(kOpMutexUnlock, obj(m), 0, rc);
  return rc;
}

RP_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  sched_before(kOpRdlock, obj(l));
  int rc = REAL(pthread_rwlock_tryrdlock)(l);
  if (rc == EBUSY) {
    lock_event(fmt::kReadRequest, l, RP_PC());
    rc = REAL(pthread_rwlock_rdlock)(l);
  }
  if (rc == 0) read_locked(l, RP_PC());
  sched_after(kOpRdlock, obj(l), 0, rc);
  return rc;
}
RP_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) {
  sched_before(kOpTryRdlock, obj(l));
  const int rc = REAL(pthread_rwlock_tryrdlock)(l);
  if (rc == 0) read_locked(l, RP_PC());
  sched_after(kOpTryRdlock, obj(l), 0, rc);
  return rc;
}
RP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const struct timespec* t) {
  if (sched_before(kOpTimedRdlock, obj(l)) == kTimedOut) return ETIMEDOUT;
  const int rc = REAL(pthread_rwlock_timedrdlock)(l, t);
  if (rc == 0) read_locked(l, RP_PC());
  sched_after(kOpTimedRdlock, obj(l), 0, rc);
  return rc;
}
RP_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  sched_before(kOpWrlock, obj(l));
  int rc = REAL(pthread_rwlock_trywrlock)(l);
  if (rc == EBUSY) {
    lock_event(fmt::kRequest, l, RP_PC());
    rc = REAL(pthread_rwlock_wrlock)(l);
  }
  if (rc == 0) lock_event(fmt::kAcquire, l, RP_PC());
  sched_after(kOpWrlock, obj(l), 0, rc);
  return rc;
}
RP_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t* l) {
  sched_before(kOpTryWrlock, obj(l));
  const int rc = REAL(pthread_rwlock_trywrlock)(l);
  if (rc == 0) lock_event(fmt::kAcquire, l, RP_PC());
  sched_after(kOpTryWrlock, obj(l), 0, rc);
  return rc;
}
RP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const struct timespec* t) {
  if (sched_before(kOpTimedWrlock, obj(l)) == kTimedOut) return ETIMEDOUT;
  int rc = REAL(pthread_rwlock_trywrlock)(l);
  const bool waited = rc == EBUSY;
  if (waited) rc = REAL(pthread_rwlock_timedwrlock)(l, t);
  if (rc == 0 && waited) lock_event(fmt::kRequest, l, RP_PC());
  if (rc == 0) lock_event(fmt::kAcquire, l, RP_PC());
  sched_after(kOpTimedWrlock, obj(l), 0, rc);
  return rc;
}
// std::shared_timed_mutex's try_lock_for/try_lock_shared_for (libstdc++ 12).
RP_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t* l, clockid_t clock,
                                         const struct timespec* t) {
  if (sched_before(kOpTimedRdlock, obj(l)) == kTimedOut) return ETIMEDOUT;
  const int rc = REAL(pthread_rwlock_clockrdlock)(l, clock, t);
  if (rc == 0) read_locked(l, RP_PC());
  sched_after(kOpTimedRdlock, obj(l), 0, rc);
  return rc;
}
RP_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t* l, clockid_t clock,
                                         const struct timespec* t) {
  if (sched_before(kOpTimedWrlock, obj(l)) == kTimedOut) return ETIMEDOUT;
  int rc = REAL(pthread_rwlock_trywrlock)(l);
  const bool waited = rc == EBUSY;
  if (waited) rc = REAL(pthread_rwlock_clockwrlock)(l, clock, t);
  if (rc == 0 && waited) lock_event(fmt::kRequest, l, RP_PC());
  if (rc == 0) lock_event(fmt::kAcquire, l, RP_PC());
  sched_after(kOpTimedWrlock, obj(l), 0, rc);
  return rc;
}
RP_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  Ctx* c = t_ctx;
  const bool read = c && read_held(c, l, true);
  const VisibleOp op = read ? kOpRwUnlockRead : kOpRwUnlockWrite;
  sched_before(op, obj(l));
  lock_event(read ? fmt::kReadRelease : fmt::kRelease, l, RP_PC());
  const int rc = REAL(pthread_rwlock_unlock)(l);
  sched_after(op, obj(l), 0, rc);
  return rc;
}

// Spin locks: like non-recursive mutexes.
RP_EXPORT int pthread_spin_lock(pthread_spinlock_t* l) {
  sched_before(kOpMutexLock, obj(l));
  int rc = REAL(pthread_spin_trylock)(l);
  if (rc == EBUSY) {
    lock_event(fmt::kRequest, const_cast<const int*>(l), RP_PC());
    rc = REAL(pthread_spin_lock)(l);
  }
  if (rc == 0) lock_event(fmt::kAcquire, const_cast<const int*>(l), RP_PC());
  sched_after(kOpMutexLock, obj(l), 0, rc);
  return rc;
}
RP_EXPORT int pthread_spin_trylock(pthread_spinlock_t* l) {
  sched_before(kOpMutexTrylock, obj(l));
  const int rc = REAL(pthread_spin_trylock)(l);
  if (rc == 0) lock_event(fmt::kAcquire, const_cast<const int*>(l), RP_PC());
  sched_after(kOpMutexTrylock, obj(l), 0, rc);
  return rc;
}
RP_EXPORT int pthread_spin_unlock(pthread_spinlock_t* l) {
  sched_before(kOpMutexUnlock, obj(l));
  lock_event(fmt::kRelease, const_cast<const int*>(l), RP_PC());
  const int rc = REAL(pthread_spin_unlock)(l);
  sched_after(kOpMutexUnlock, obj(l), 0, rc);
  return rc;
}

// flockfile/funlockfile: a recursive lock on the FILE (its address is the lock), recorded at the
// outermost level only, like a recursive mutex: glibc's lock is {int lock; int cnt; void*
// owner;} and cnt is the depth. stdio's own internal locking is not seen.
static int file_lock_depth(FILE* f) {
  const int* lock = reinterpret_cast<const int*>(f->_lock);
  return lock ? lock[1] : 1;
}
RP_EXPORT void flockfile(FILE* f) {
  sched_before(kOpFileLock, obj(f));
  REAL(flockfile)(f);
  if (file_lock_depth(f) == 1) lock_event(fmt::kAcquire, f, RP_PC());
  sched_after(kOpFileLock, obj(f));
}
RP_EXPORT int ftrylockfile(FILE* f) {
  sched_before(kOpMutexTrylock, obj(f));
  const int rc = REAL(ftrylockfile)(f);
  if (rc == 0 && file_lock_depth(f) == 1) lock_event(fmt::kAcquire, f, RP_PC());
  sched_after(kOpFileLock, obj(f), 0, rc);
  return rc;
}
RP_EXPORT void funlockfile(FILE* f) {
  sched_before(kOpFileUnlock, obj(f));
  if (file_lock_depth(f) == 1) lock_event(fmt::kRelease, f, RP_PC());
  REAL(funlockfile)(f);
  sched_after(kOpFileUnlock, obj(f));
}
