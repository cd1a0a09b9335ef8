// Accesses that libc makes on the program's behalf (read/write buffers, string and memory
// comparisons), and the initialisation and destruction of synchronisation objects
// (docs/RECORDER.md, "What is recorded").
#include "racepred/recorder/rt.hpp"

namespace racepred_rt {

// Pulled into every link by buffers.cpp (linked_parts): a static archive's member is linked
// only for symbols the program's objects reference, never for libraries' references.
extern const char kPart_libc = 0;
DECLARE_REAL(int, pthread_mutex_init, pthread_mutex_t*, const pthread_mutexattr_t*);
DECLARE_REAL(int, pthread_mutex_destroy, pthread_mutex_t*);
DECLARE_REAL(int, pthread_rwlock_init, pthread_rwlock_t*, const pthread_rwlockattr_t*);
DECLARE_REAL(int, pthread_rwlock_destroy, pthread_rwlock_t*);
DECLARE_REAL(int, pthread_spin_init, pthread_spinlock_t*, int);
DECLARE_REAL(int, pthread_spin_destroy, pthread_spinlock_t*);
DECLARE_REAL(int, pthread_cond_init, pthread_cond_t*, const pthread_condattr_t*);
DECLARE_REAL(int, pthread_cond_destroy, pthread_cond_t*);
DECLARE_REAL(int, pthread_barrier_destroy, pthread_barrier_t*);
DECLARE_REAL(int, sem_init, sem_t*, int, unsigned);
DECLARE_REAL(int, sem_destroy, sem_t*);

void sync_object(const void* o, size_t size, uint64_t pc) {
  if (t_in_rt) return;
  Ctx* c = enter();
  if (!c) return;
  put_sized(c, fmt::kRawSyncObject, reinterpret_cast<uintptr_t>(o), size, pc);
  leave(c);
}

}  // namespace racepred_rt

using namespace racepred_rt;

// ---- initialisation and destruction: a write of the object (before a destroy, after an
// init), which races with uses of the object that the program does not order with it ----
#define RP_INIT(name, type, ...) RP_EXPORT int name(type* o, ##__VA_ARGS__)
RP_INIT(pthread_mutex_init, pthread_mutex_t, const pthread_mutexattr_t* a) {
  const int rc = REAL(pthread_mutex_init)(o, a);
  if (rc == 0) sync_object(o, sizeof *o, RP_PC());
  return rc;
}
RP_INIT(pthread_mutex_destroy, pthread_mutex_t) {
  sync_object(o, sizeof *o, RP_PC());
  return REAL(pthread_mutex_destroy)(o);
}
RP_INIT(pthread_rwlock_init, pthread_rwlock_t, const pthread_rwlockattr_t* a) {
  const int rc = REAL(pthread_rwlock_init)(o, a);
  if (rc == 0) sync_object(o, sizeof *o, RP_PC());
  return rc;
}
RP_INIT(pthread_rwlock_destroy, pthread_rwlock_t) {
  sync_object(o, sizeof *o, RP_PC());
  return REAL(pthread_rwlock_destroy)(o);
}
RP_INIT(pthread_spin_init, pthread_spinlock_t, int shared) {
  const int rc = REAL(pthread_spin_init)(o, shared);
  if (rc == 0) sync_object(const_cast<const int*>(o), sizeof *o, RP_PC());
  return rc;
}
RP_INIT(pthread_spin_destroy, pthread_spinlock_t) {
  sync_object(const_cast<const int*>(o), sizeof *o, RP_PC());
  return REAL(pthread_spin_destroy)(o);
}
// Condition variables: only the init/destroy writes (waits and signals have no event of the
// condition variable to become a read).
RP_INIT(pthread_cond_init, pthread_cond_t, const pthread_condattr_t* a) {
  const int rc = REAL(pthread_cond_init, "GLIBC_2.3.2")(o, a);
  if (rc == 0) sync_object(o, sizeof *o, RP_PC());
  return rc;
}
RP_INIT(pthread_cond_destroy, pthread_cond_t) {
  sync_object(o, sizeof *o, RP_PC());
  return REAL(pthread_cond_destroy, "GLIBC_2.3.2")(o);
}
RP_INIT(pthread_barrier_destroy, pthread_barrier_t) {
  sync_object(o, sizeof *o, RP_PC());
  return REAL(pthread_barrier_destroy)(o);
}
RP_INIT(sem_init, sem_t, int shared, unsigned value) {
  const int rc = REAL(sem_init)(o, shared, value);
  if (rc == 0) sync_object(o, sizeof *o, RP_PC());
  return rc;
}
RP_INIT(sem_destroy, sem_t) {
  sync_object(o, sizeof *o, RP_PC());
  return REAL(sem_destroy)(o);
}

// ---- libc's accesses on the program's behalf: range accesses of the bytes libc reads or
// writes (ThreadSanitizer's interceptors do the same). The real work is done here or by the
// system call itself: these run inside the runtime's own writes (write_fully) and in the crash
// handler, where looking a function up with dlsym is not safe ----
RP_EXPORT ssize_t write(int fd, const void* buf, size_t n) {
  range(fmt::kRead, buf, n, RP_PC());
  return syscall(SYS_write, fd, buf, n);
}
RP_EXPORT ssize_t read(int fd, void* buf, size_t n) {
  const ssize_t rc = syscall(SYS_read, fd, buf, n);
  if (rc > 0) range(fmt::kWrite, buf, static_cast<size_t>(rc), RP_PC());
  return rc;
}
RP_EXPORT size_t strlen(const char* s) {
  const size_t n = str_len(s);
  range(fmt::kRead, s, n + 1, RP_PC());
  return n;
}
RP_EXPORT char* strcpy(char* d, const char* s) {
  const size_t n = str_len(s) + 1;
  range(fmt::kRead, s, n, RP_PC());
  range(fmt::kWrite, d, n, RP_PC());
  return static_cast<char*>(g_memmove_chk(d, s, n, static_cast<size_t>(-1)));
}
// Comparisons read up to the first difference (strcmp: and its terminator); memcmp reads all
// `n` bytes of both, as ThreadSanitizer's default (strict_memcmp) does.
RP_EXPORT int strcmp(const char* a, const char* b) {
  size_t i = 0;
  while (a[i] && a[i] == b[i]) ++i;
  range(fmt::kRead, a, i + 1, RP_PC());
  range(fmt::kRead, b, i + 1, RP_PC());
  return static_cast<unsigned char>(a[i]) - static_cast<unsigned char>(b[i]);
}
RP_EXPORT int memcmp(const void* a, const void* b, size_t n) {
  range(fmt::kRead, a, n, RP_PC());
  range(fmt::kRead, b, n, RP_PC());
  const unsigned char* p = static_cast<const unsigned char*>(a);
  const unsigned char* q = static_cast<const unsigned char*>(b);
  for (size_t i = 0; i < n; ++i)
    if (p[i] != q[i]) return p[i] - q[i];
  return 0;
}
