// racepred recording runtime (docs/RECORDER.md): the __tsan_* entry points that gcc and clang
// emit under -fsanitize=thread, and interceptors for pthread, semaphores, the C++ ABI guards,
// the allocator and mem*. Each thread appends 24-byte records to its own buffer; full buffers
// are written as checksummed raw blocks (format/) to one output file; `racepred record`
// merges them by sequence number into a trace.
//
// Built without instrumentation, exceptions or RTTI, and without the C++ library (only
// compiler builtins): it is linked into C programs too. Nothing here allocates on the access
// path; per-thread buffers are mmap'ed once per thread and unmapped when the thread ends.
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "racepred/format/trace_format.hpp"
#include "racepred/recorder/racepred_rt.h"

namespace fmt = racepred::format;

#define RP_EXPORT extern "C" __attribute__((visibility("default")))
#define RP_TLS __attribute__((tls_model("initial-exec")))
#define RP_LIKELY(x) __builtin_expect(!!(x), 1)
#define RP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RP_PC() reinterpret_cast<uint64_t>(__builtin_return_address(0))

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
void* __memcpy_chk(void*, const void*, size_t, size_t);
void* __memmove_chk(void*, const void*, size_t, size_t);
void* __memset_chk(void*, int, size_t, size_t);
}

namespace {

// ---- configuration and global state (zero-initialised: no static constructors) ----
constexpr uint32_t kBufferRecords = 1u << 15;  // 768 KiB per thread
constexpr uint32_t kMaxThreads = 1u << 14;     // contexts registered for the exit flush
constexpr uint32_t kRangeGranules = 256;       // most 8-byte granules one range access records
constexpr uint32_t kStripes = 1024;            // address-striped locks of the atomics model
constexpr uint32_t kTidSlots = 1u << 15;       // pthread_t -> tid table

struct Ctx {
  fmt::RawRecord* buf;
  uint32_t n;
  uint32_t tid;
  // The last `pending` records are reads whose sequence numbers are deferred (see put).
  uint32_t pending;
  // 1: inside the runtime (events raised now by signal handlers are dropped and counted);
  // 2: inside a libc call the runtime makes for the program (dropped silently).
  volatile int busy;
  int flush_lock;  // taken by the owner's flush and by the exit flush
  int ended;       // the thread's last block has been written
  uint64_t dropped;
  void* read_locks[16];  // rwlocks this thread holds in read mode
};

int g_state;  // 0 = not initialised, 1 = recording, 2 = stopped
int g_fd = -1;
int g_write_lock;
// The global event counter, incremented by every thread at (almost) every event, has a cache
// line of its own: next to g_state (read at every event) it made every event's state test miss
// (perf: 17% of the racy benchmark on that load).
struct alignas(64) Counter {
  uint64_t value;
};
Counter g_seq_line;
uint64_t& g_seq = g_seq_line.value;
uint32_t g_next_tid;
uint64_t g_bytes;
uint64_t g_max_bytes;
uint64_t g_dropped;
int g_capped;
int g_nowrite;  // RACEPRED_NOWRITE=1: record into memory only (overhead measurements)
int g_stripes[kStripes];
Ctx* g_ctxs[kMaxThreads];
uint32_t g_ctx_count;
pthread_key_t g_key;
struct TidSlot {
  uint64_t thread;  // pthread_t; 0 empty, 1 deleted
  uint32_t tid;
};
TidSlot g_tids[kTidSlots];
thread_local Ctx* t_ctx RP_TLS;
thread_local int t_no_ctx RP_TLS;  // the thread has ended (its key destructor ran)
// Inside the runtime's own work (writing blocks, reading maps): the mem* and allocator
// interceptors this work reaches record nothing.
thread_local int t_in_rt RP_TLS;
struct InRuntime {
  InRuntime() { ++t_in_rt; }
  ~InRuntime() { --t_in_rt; }
};

// ---- tiny spin lock (never a pthread mutex: those are intercepted) ----
inline void spin_lock(int* l) {
  while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
    while (__atomic_load_n(l, __ATOMIC_RELAXED)) __builtin_ia32_pause();
  }
}
inline void spin_unlock(int* l) {
  __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}
// A lock whose waiters sleep (futex; 0 free, 1 taken, 2 taken with waiters): for the file
// writes, which hold it for a write() of a whole block. Spinning there cost a third of the
// CPU of a 4-thread recording on 2 cores (threads spun while another was in the kernel).
inline void sleep_lock(int* l) {
  int c = 0;
  if (__atomic_compare_exchange_n(l, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
  if (c != 2) c = __atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE);
  while (c != 0) {
    syscall(SYS_futex, l, FUTEX_WAIT_PRIVATE, 2, nullptr, nullptr, 0);
    c = __atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE);
  }
}
inline void sleep_unlock(int* l) {
  if (__atomic_exchange_n(l, 0, __ATOMIC_RELEASE) == 2)
    syscall(SYS_futex, l, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

// ---- libc without re-entering our interceptors ----
void* (*volatile g_memcpy_chk)(void*, const void*, size_t, size_t) = __memcpy_chk;
void* (*volatile g_memmove_chk)(void*, const void*, size_t, size_t) = __memmove_chk;
void* (*volatile g_memset_chk)(void*, int, size_t, size_t) = __memset_chk;

void copy_bytes(void* d, const void* s, size_t n) {
  g_memcpy_chk(d, s, n, static_cast<size_t>(-1));
}

size_t str_len(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}

bool write_fully(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t w = ::write(fd, p, size);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    size -= static_cast<size_t>(w);
  }
  return true;
}

// Writes one block (header + payload) under the output lock. Returns false when the cap was
// reached (recording stops) or the write failed.
// `force` writes even after the cap (small bookkeeping blocks, and the final flush of what
// the threads had buffered when recording stopped: the overshoot is bounded by one buffer per
// thread).
bool write_block(uint8_t kind, const void* payload, size_t size, bool force = false) {
  if (g_fd < 0) return false;
  InRuntime in_runtime;
  fmt::BlockHeader h{
      kind, fmt::kCodecNone, 0, static_cast<uint32_t>(size), static_cast<uint32_t>(size), 0};
  h.checksum = fmt::block_checksum(h, static_cast<const uint8_t*>(payload));
  sleep_lock(&g_write_lock);
  bool ok = false;
  if (!g_capped || force) {
    ok = write_fully(g_fd, &h, sizeof h) && write_fully(g_fd, payload, size);
    g_bytes += sizeof h + size;
    if (g_max_bytes && g_bytes > g_max_bytes && !g_capped) {
      // Stop cleanly: no new events; what the threads buffered is written at exit.
      g_capped = 1;
      __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
    }
  }
  sleep_unlock(&g_write_lock);
  return ok;
}

// ---- real functions ----
template <typename F>
F real(F& slot, const char* name, const char* version = nullptr) {
  F f = __atomic_load_n(&slot, __ATOMIC_RELAXED);
  if (RP_UNLIKELY(!f)) {
    void* p = version ? dlvsym(RTLD_NEXT, name, version) : nullptr;
    if (!p) p = dlsym(RTLD_NEXT, name);
    f = reinterpret_cast<F>(p);
    __atomic_store_n(&slot, f, __ATOMIC_RELAXED);
  }
  return f;
}
#define REAL(name, ...) real(real_##name, #name, ##__VA_ARGS__)
#define DECLARE_REAL(ret, name, ...) ret (*real_##name)(__VA_ARGS__)

DECLARE_REAL(int, pthread_create, pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
DECLARE_REAL(int, pthread_join, pthread_t, void**);
DECLARE_REAL(int, pthread_detach, pthread_t);
DECLARE_REAL(int, pthread_mutex_lock, pthread_mutex_t*);
DECLARE_REAL(int, pthread_mutex_trylock, pthread_mutex_t*);
DECLARE_REAL(int, pthread_mutex_timedlock, pthread_mutex_t*, const struct timespec*);
DECLARE_REAL(int, pthread_mutex_unlock, pthread_mutex_t*);
DECLARE_REAL(int, pthread_cond_wait, pthread_cond_t*, pthread_mutex_t*);
DECLARE_REAL(int, pthread_cond_timedwait, pthread_cond_t*, pthread_mutex_t*,
             const struct timespec*);
DECLARE_REAL(int, pthread_cond_clockwait, pthread_cond_t*, pthread_mutex_t*, clockid_t,
             const struct timespec*);
DECLARE_REAL(int, pthread_rwlock_rdlock, pthread_rwlock_t*);
DECLARE_REAL(int, pthread_rwlock_tryrdlock, pthread_rwlock_t*);
DECLARE_REAL(int, pthread_rwlock_timedrdlock, pthread_rwlock_t*, const struct timespec*);
DECLARE_REAL(int, pthread_rwlock_wrlock, pthread_rwlock_t*);
DECLARE_REAL(int, pthread_rwlock_trywrlock, pthread_rwlock_t*);
DECLARE_REAL(int, pthread_rwlock_timedwrlock, pthread_rwlock_t*, const struct timespec*);
DECLARE_REAL(int, pthread_rwlock_unlock, pthread_rwlock_t*);
DECLARE_REAL(int, pthread_spin_lock, pthread_spinlock_t*);
DECLARE_REAL(int, pthread_spin_trylock, pthread_spinlock_t*);
DECLARE_REAL(int, pthread_spin_unlock, pthread_spinlock_t*);
DECLARE_REAL(int, pthread_barrier_wait, pthread_barrier_t*);
DECLARE_REAL(int, pthread_once, pthread_once_t*, void (*)(void));
DECLARE_REAL(int, sem_wait, sem_t*);
DECLARE_REAL(int, sem_trywait, sem_t*);
DECLARE_REAL(int, sem_timedwait, sem_t*, const struct timespec*);
DECLARE_REAL(int, sem_post, sem_t*);
DECLARE_REAL(int, __cxa_guard_acquire, uint64_t*);
DECLARE_REAL(void, __cxa_guard_release, uint64_t*);
DECLARE_REAL(void, __cxa_guard_abort, uint64_t*);
DECLARE_REAL(int, execve, const char*, char* const*, char* const*);
DECLARE_REAL(int, execv, const char*, char* const*);
DECLARE_REAL(int, execvp, const char*, char* const*);
DECLARE_REAL(void, _exit, int);
DECLARE_REAL(void, _Exit, int);
DECLARE_REAL(void*, _Znwm, size_t);
DECLARE_REAL(void*, _Znam, size_t);
DECLARE_REAL(void, _ZdlPv, void*);
DECLARE_REAL(void, _ZdaPv, void*);
DECLARE_REAL(void, _ZdlPvm, void*, size_t);
DECLARE_REAL(void, _ZdaPvm, void*, size_t);

// ---- per-thread contexts ----
// A new thread's first block: no records, flag kRawStart, and in the 8 bytes after the prefix
// a lower bound of the sequence numbers of its events. `racepred record` needs it to cut a
// recording that ended early: a thread that never flushed may have lost everything after it.
void write_start(uint32_t tid) {
  InRuntime in_runtime;
  uint8_t block[fmt::kRawPrefix + 8];
  fmt::put_u32(block, tid);
  fmt::put_u32(block + 4, fmt::kRawStart);
  fmt::put_u64(block + fmt::kRawPrefix, __atomic_load_n(&g_seq, __ATOMIC_RELAXED));
  write_block(fmt::kBlockRaw, block, sizeof block, true);
}

// A context's mapping: the Ctx in the first page, then the buffer (kept until the thread ends).
constexpr size_t kPage = 4096;
// The record buffer, then the scratch space its records are packed into when flushed.
constexpr size_t kBufferBytes =
    ((kBufferRecords + 1) * sizeof(fmt::RawRecord) + kPage - 1) / kPage * kPage +
    ((fmt::kRawHeader + kBufferRecords * fmt::kMaxPackedRecord + kPage - 1) / kPage * kPage);
static_assert(sizeof(Ctx) <= kPage, "Ctx fits its page");

Ctx* new_ctx(uint32_t tid) {
  InRuntime in_runtime;
  void* mem = mmap(nullptr, kPage + kBufferBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return nullptr;
  Ctx* c = static_cast<Ctx*>(mem);
  c->buf = reinterpret_cast<fmt::RawRecord*>(static_cast<char*>(mem) + kPage) + 1;
  c->tid = tid;
  const uint32_t slot = __atomic_fetch_add(&g_ctx_count, 1, __ATOMIC_RELAXED);
  if (slot < kMaxThreads) __atomic_store_n(&g_ctxs[slot], c, __ATOMIC_RELEASE);
  write_start(tid);
  return c;
}

// Gives the deferred reads (the last c->pending records) their sequence numbers, and
// `extra` more numbers after them: one atomic operation for all. Returns the first extra one.
__attribute__((always_inline)) inline uint64_t number_pending(Ctx* c, uint32_t extra) {
  const uint32_t k = c->pending;
  if (k + extra == 0) return 0;
  uint64_t s = __atomic_fetch_add(&g_seq, k + extra, __ATOMIC_RELAXED);
  for (fmt::RawRecord* r = c->buf + (c->n - k); k && r != c->buf + c->n; ++r) r->seq = s++;
  c->pending = 0;
  return s;
}

// Writes the context's records as one raw block. `last` marks the thread's final block.
// Caller holds c->flush_lock.
void flush_locked(Ctx* c, bool last, bool force = false) {
  if (c->ended || !c->buf) return;
  InRuntime in_runtime;
  number_pending(c, 0);
  const uint32_t n = __atomic_load_n(&c->n, __ATOMIC_ACQUIRE);
  if ((n > 0 || last) && !g_nowrite) {
    uint8_t* block = reinterpret_cast<uint8_t*>(c->buf + kBufferRecords);
    fmt::put_u32(block, c->tid);
    fmt::put_u32(block + 4, last ? fmt::kRawEnd : 0);
    fmt::put_u32(block + 8, n);
    uint8_t* end = fmt::pack_raw(c->buf, n, block + fmt::kRawHeader);
    write_block(fmt::kBlockRaw, block, static_cast<size_t>(end - block), force);
  }
  __atomic_store_n(&c->n, 0, __ATOMIC_RELEASE);
  if (last) c->ended = 1;
}

void flush_ctx(Ctx* c, bool last, bool force = false) {
  spin_lock(&c->flush_lock);
  flush_locked(c, last, force);
  spin_unlock(&c->flush_lock);
}

void tid_insert(pthread_t th, uint32_t tid) {
  const uint64_t key = static_cast<uint64_t>(th);
  for (uint32_t i = 0; i < kTidSlots; ++i) {
    TidSlot& s = g_tids[((key * 0x9E3779B97F4A7C15ULL >> 49) + i) & (kTidSlots - 1)];
    uint64_t cur = __atomic_load_n(&s.thread, __ATOMIC_ACQUIRE);
    if (cur == key) {
      __atomic_store_n(&s.tid, tid, __ATOMIC_RELEASE);
      return;
    }
    if ((cur == 0 || cur == 1) && __atomic_compare_exchange_n(&s.thread, &cur, key, false,
                                                              __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      __atomic_store_n(&s.tid, tid, __ATOMIC_RELEASE);
      return;
    }
  }
}

// The tid of a pthread_t, or UINT32_MAX; `remove` forgets it (join, detach).
uint32_t tid_find(pthread_t th, bool remove) {
  const uint64_t key = static_cast<uint64_t>(th);
  for (uint32_t i = 0; i < kTidSlots; ++i) {
    TidSlot& s = g_tids[((key * 0x9E3779B97F4A7C15ULL >> 49) + i) & (kTidSlots - 1)];
    const uint64_t cur = __atomic_load_n(&s.thread, __ATOMIC_ACQUIRE);
    if (cur == 0) return UINT32_MAX;
    if (cur == key) {
      const uint32_t tid = __atomic_load_n(&s.tid, __ATOMIC_ACQUIRE);
      if (remove) __atomic_store_n(&s.thread, uint64_t{1}, __ATOMIC_RELEASE);
      return tid;
    }
  }
  return UINT32_MAX;
}

// The calling thread's context; created lazily for threads the runtime did not start (they
// get a fresh tid and no fork event). nullptr when not recording.
inline Ctx* ctx() {
  Ctx* c = t_ctx;
  if (RP_LIKELY(c)) return c;
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != 1 || t_no_ctx) return nullptr;
  c = new_ctx(__atomic_fetch_add(&g_next_tid, 1, __ATOMIC_RELAXED));
  if (!c) return nullptr;
  t_ctx = c;
  pthread_setspecific(g_key, c);
  tid_insert(pthread_self(), c->tid);
  return c;
}

// Appends one record. A read's sequence number is deferred until the thread's next event:
// the load has happened by then, so a read that saw another thread's write is placed after
// that write (RECORDER.md §4; tests/recorder/spin_flag.c). One atomic increment numbers the
// waiting reads and the next non-read event together (the global counter is the contended part
// of the access path: a read-modify-write costs one increment, not two); at most
// kMaxPendingReads reads wait, and a read is never numbered by its own record (its load has
// not happened yet): a full buffer is written when the next record comes.
constexpr uint32_t kMaxPendingReads = 32;
__attribute__((always_inline)) inline void put(Ctx* c, uint8_t op, uint64_t addr, uint64_t pc,
                                               bool defer) {
  if (RP_UNLIKELY(c->n == kBufferRecords)) flush_ctx(c, false);
  const uint32_t n = c->n;
  fmt::RawRecord& r = c->buf[n];
  r.addr = addr;
  r.op_pc = (uint64_t{op} << 56) | (pc & 0x00ffffffffffffffULL);
  if (defer) {
    if (c->pending == kMaxPendingReads) number_pending(c, 0);  // the earlier reads only
    ++c->pending;
  } else {
    r.seq = c->pending ? number_pending(c, 1) : __atomic_fetch_add(&g_seq, 1, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&c->n, n + 1, __ATOMIC_RELEASE);
}

// Enters the runtime for an event: nullptr when the event must be dropped.
inline Ctx* enter() {
  if (RP_UNLIKELY(__atomic_load_n(&g_state, __ATOMIC_RELAXED) != 1)) return nullptr;
  Ctx* c = ctx();
  if (RP_UNLIKELY(!c)) return nullptr;
  if (RP_UNLIKELY(c->busy || c->ended)) {
    if (c->busy == 1 || c->ended) ++c->dropped;  // busy == 2: the runtime's own calls
    return nullptr;
  }
  c->busy = 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  return c;
}
inline void leave(Ctx* c) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  c->busy = 0;
}

inline void event(uint8_t op, uint64_t addr, uint64_t pc) {
  Ctx* c = enter();
  if (!c) return;
  put(c, op, addr, pc, op == fmt::kRead);
  leave(c);
}

// Marks "busy" around calls into libc that may come back into interceptors (allocation in
// pthread_create, dlsym): their events are dropped and counted.
struct Busy {
  Ctx* c;
  int saved;
  Busy() : c(__atomic_load_n(&g_state, __ATOMIC_RELAXED) == 1 ? ctx() : nullptr), saved(0) {
    if (c) {
      saved = c->busy;
      c->busy = 2;
    }
  }
  ~Busy() {
    if (c) c->busy = saved;
  }
};

// The atomics model: a stripe lock per address, held while the events of one atomic operation
// are emitted and the operation is done, so atomics on one address are ordered like in the run.
inline int* stripe(const volatile void* a) {
  return &g_stripes[(reinterpret_cast<uintptr_t>(a) >> 3) % kStripes];
}

// acq(A') [r(A)] [w(A)] rel(A') for an atomic access at `a` (A' = the atomic lock of a).
inline void atomic_events(Ctx* c, const volatile void* a, bool read, bool write, uint64_t pc) {
  const uint64_t addr = reinterpret_cast<uintptr_t>(a);
  put(c, fmt::kAcquire, addr | fmt::kAtomicLockBit, pc, false);
  if (read) put(c, fmt::kRead, addr, pc, false);
  if (write) put(c, fmt::kWrite, addr, pc, false);
  put(c, fmt::kRelease, addr | fmt::kAtomicLockBit, pc, false);
}

// A synchronisation object without a lock event of its own (semaphore, barrier, once, guard):
// the same acq/rel pair on its atomic lock, under its stripe.
inline void sync_pair(const volatile void* o, uint64_t pc) {
  Ctx* c = enter();
  if (!c) return;
  int* s = stripe(o);
  spin_lock(s);
  const uint64_t addr = reinterpret_cast<uintptr_t>(o) | fmt::kAtomicLockBit;
  put(c, fmt::kAcquire, addr, pc, false);
  put(c, fmt::kRelease, addr, pc, false);
  spin_unlock(s);
  leave(c);
}

void write_maps() {
  InRuntime in_runtime;
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  size_t cap = 1 << 16, len = 0;
  char* buf = static_cast<char*>(__libc_malloc(cap));
  while (buf) {
    if (len == cap) {
      char* bigger = static_cast<char*>(__libc_realloc(buf, cap * 2));
      if (!bigger) break;
      buf = bigger;
      cap *= 2;
    }
    const ssize_t r = read(fd, buf + len, cap - len);
    if (r <= 0) break;
    len += static_cast<size_t>(r);
  }
  close(fd);
  if (buf) {
    write_block(fmt::kBlockMaps, buf, len, true);
    __libc_free(buf);
  }
}

void write_note(const char* key, uint64_t value) {
  char text[96];
  size_t n = str_len(key);
  if (n > 60) n = 60;
  copy_bytes(text, key, n);
  text[n++] = '=';
  char digits[24];
  int d = 0;
  do {
    digits[d++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value);
  while (d) text[n++] = digits[--d];
  text[n++] = '\n';
  write_block(fmt::kBlockNote, text, n, true);
}

// Flushes every thread (the process ends or execs): a thread still running loses what it
// records after this.
int g_finished;
pid_t g_pid;  // the process whose recording g_fd is

void finish_all(bool ended) {
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) == 0 || g_fd < 0) return;
  // A vfork() child shares this memory until it execs or exits: its exec/_exit must not end
  // the parent's recording.
  if (getpid() != g_pid) return;
  if (__atomic_exchange_n(&g_finished, 1, __ATOMIC_ACQ_REL)) return;
  __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
  const uint32_t n = __atomic_load_n(&g_ctx_count, __ATOMIC_ACQUIRE);
  uint64_t dropped = g_dropped;
  for (uint32_t i = 0; i < n && i < kMaxThreads; ++i) {
    Ctx* c = __atomic_load_n(&g_ctxs[i], __ATOMIC_ACQUIRE);
    if (!c) continue;
    dropped += c->dropped;
    flush_ctx(c, ended, true);
  }
  write_note("dropped", dropped);
  write_note("capped", static_cast<uint64_t>(g_capped));
  write_maps();
  write_note("complete", 1);
}

void at_exit() {
  finish_all(true);
}

void thread_key_destructor(void* p) {
  Ctx* c = static_cast<Ctx*>(p);
  if (!c) return;
  flush_ctx(c, true, true);
  __atomic_fetch_add(&g_dropped, c->dropped, __ATOMIC_RELAXED);
  c->dropped = 0;
  t_ctx = nullptr;
  t_no_ctx = 1;
  // The context stays registered for the exit flush (ended and empty: one page); its buffer
  // goes back to the system, so memory does not grow with the number of threads that ended.
  spin_lock(&c->flush_lock);
  c->buf = nullptr;
  munmap(reinterpret_cast<char*>(c) + kPage, kBufferBytes);
  spin_unlock(&c->flush_lock);
}

// RACEPRED_RECORD as the process found it (%p not yet replaced): fork children name their
// recordings after it.
char g_template[4096];

// The output path of this process: the template with %p replaced by the process id; a fork
// child whose template has no %p appends ".<pid>" (next to the parent's recording, where
// `racepred record` looks for it).
void output_path(char* path, size_t cap, bool fork_child) {
  char digits[16];
  int d = 0;
  for (unsigned v = static_cast<unsigned>(getpid()); v || !d; v /= 10)
    digits[d++] = static_cast<char>('0' + v % 10);
  size_t n = 0;
  bool had_pid = false;
  for (const char* p = g_template; *p && n + 24 < cap; ++p) {
    if (p[0] == '%' && p[1] == 'p') {
      for (int i = d; i;) path[n++] = digits[--i];
      had_pid = true;
      ++p;
    } else {
      path[n++] = *p;
    }
  }
  if (fork_child && !had_pid) {
    path[n++] = '.';
    for (int i = d; i;) path[n++] = digits[--i];
  }
  path[n] = 0;
}

// Opens this process's recording and writes its file header: false when it cannot.
bool open_output(bool fork_child) {
  char path[4096];
  output_path(path, sizeof path, fork_child);
  g_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (g_fd < 0) return false;
  g_pid = getpid();
  uint8_t header[fmt::kHeaderSize];
  fmt::write_file_header(header, fmt::kFileRecording);
  write_fully(g_fd, header, sizeof header);
  g_bytes = sizeof header;
  return true;
}

// A fork() child (RECORDER.md pitfall 5) records into a file of its own (RAW.<pid>): only the
// forking thread exists in it, with the parent's thread id. It inherited copies of the parent's
// buffers (events the parent writes itself: dropped here), of its output descriptor (shared
// file offset: never written) and of spin locks other threads may have held (released).
void on_fork_child() {
  const int state = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
  if (g_fd >= 0) close(g_fd);
  g_fd = -1;
  if (state != 1) {
    __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
    return;
  }
  InRuntime in_runtime;
  g_write_lock = 0;
  for (int& l : g_stripes) l = 0;
  Ctx* c = t_ctx;
  const uint32_t n = __atomic_load_n(&g_ctx_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < n && i < kMaxThreads; ++i) g_ctxs[i] = nullptr;
  g_ctx_count = 0;
  g_finished = 0;
  g_capped = 0;
  g_dropped = 0;
  if (!open_output(true)) {
    __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
    return;
  }
  write_note("fork_of", static_cast<uint64_t>(getppid()));
  if (c && c->buf && !c->ended) {
    c->flush_lock = 0;
    c->n = 0;
    c->pending = 0;
    c->dropped = 0;
    g_ctxs[0] = c;
    g_ctx_count = 1;
    write_start(c->tid);
  }
  write_maps();
}

void init() {
  InRuntime in_runtime;
  const char* out = getenv("RACEPRED_RECORD");
  if (!out || !*out || str_len(out) >= sizeof g_template) {
    g_state = 2;  // not recording: every hook stays passive
    return;
  }
  copy_bytes(g_template, out, str_len(out) + 1);
  if (!open_output(false)) {
    g_state = 2;
    return;
  }
  // Programs this one execs record into files of their own.
  char child[4200];
  copy_bytes(child, out, str_len(out));
  copy_bytes(child + str_len(out), ".%p", 4);
  if (!strstr(out, "%p")) setenv("RACEPRED_RECORD", child, 1);
  const char* nowrite = getenv("RACEPRED_NOWRITE");
  g_nowrite = nowrite && nowrite[0] == '1';
  const char* cap = getenv("RACEPRED_MAX_MB");
  g_max_bytes = (cap && *cap ? strtoull(cap, nullptr, 10) : 4096) << 20;
  pthread_key_create(&g_key, thread_key_destructor);
  pthread_atfork(nullptr, nullptr, on_fork_child);
  atexit(at_exit);
  __atomic_store_n(&g_state, 1, __ATOMIC_RELEASE);
  write_maps();
}

int g_init_lock;

// ---- thread creation ----
struct StartArg {
  void* (*fn)(void*);
  void* arg;
  uint32_t tid;
};

void* thread_start(void* p) {
  StartArg a = *static_cast<StartArg*>(p);
  __libc_free(p);
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) == 1) {
    Ctx* c = new_ctx(a.tid);
    if (c) {
      t_ctx = c;
      pthread_setspecific(g_key, c);
      tid_insert(pthread_self(), a.tid);
    }
  }
  return a.fn(a.arg);
}

inline bool is_recursive_depth(pthread_mutex_t* m) {
  // glibc: __kind & 3 == PTHREAD_MUTEX_RECURSIVE_NP; __count is the recursion depth.
  return (m->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP && m->__data.__count > 1;
}

inline void lock_event(uint8_t op, const void* l, uint64_t pc) {
  event(op, reinterpret_cast<uintptr_t>(l), pc);
}

bool read_held(Ctx* c, void* l, bool remove) {
  for (void*& s : c->read_locks)
    if (s == l) {
      if (remove) s = nullptr;
      return true;
    }
  return false;
}
void add_read_held(Ctx* c, void* l) {
  for (void*& s : c->read_locks)
    if (!s) {
      s = l;
      return;
    }
}

}  // namespace

// ======================= exported: control =======================
RP_EXPORT void racepred_rt_flush(void) {
  const uint32_t n = __atomic_load_n(&g_ctx_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < n && i < kMaxThreads; ++i)
    if (Ctx* c = __atomic_load_n(&g_ctxs[i], __ATOMIC_ACQUIRE)) flush_ctx(c, false);
}
RP_EXPORT void racepred_rt_stop(void) {
  __atomic_store_n(&g_capped, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
}
RP_EXPORT int racepred_rt_recording(void) {
  return __atomic_load_n(&g_state, __ATOMIC_ACQUIRE) == 1;
}

// ======================= exported: __tsan_* =======================
RP_EXPORT void __tsan_init(void) {
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != 0) return;
  spin_lock(&g_init_lock);
  if (g_state == 0) init();
  spin_unlock(&g_init_lock);
}
RP_EXPORT void __tsan_func_entry(void*) {}
RP_EXPORT void __tsan_func_exit(void) {}
RP_EXPORT void __tsan_ignore_thread_begin(void) {
  if (Ctx* c = t_ctx) c->busy = 1;
}
RP_EXPORT void __tsan_ignore_thread_end(void) {
  if (Ctx* c = t_ctx) c->busy = 0;
}

#define RP_ACCESS(name, op)                             \
  RP_EXPORT void name(void* a) {                        \
    event(op, reinterpret_cast<uintptr_t>(a), RP_PC()); \
  }
#define RP_ACCESS_SIZES(prefix, op) \
  RP_ACCESS(prefix##1, op)          \
  RP_ACCESS(prefix##2, op)          \
  RP_ACCESS(prefix##4, op) RP_ACCESS(prefix##8, op) RP_ACCESS(prefix##16, op)
RP_ACCESS_SIZES(__tsan_read, fmt::kRead)
RP_ACCESS_SIZES(__tsan_write, fmt::kWrite)
RP_ACCESS_SIZES(__tsan_volatile_read, fmt::kRead)
RP_ACCESS_SIZES(__tsan_volatile_write, fmt::kWrite)
RP_ACCESS(__tsan_unaligned_read2, fmt::kRead)
RP_ACCESS(__tsan_unaligned_read4, fmt::kRead)
RP_ACCESS(__tsan_unaligned_read8, fmt::kRead)
RP_ACCESS(__tsan_unaligned_read16, fmt::kRead)
RP_ACCESS(__tsan_unaligned_write2, fmt::kWrite)
RP_ACCESS(__tsan_unaligned_write4, fmt::kWrite)
RP_ACCESS(__tsan_unaligned_write8, fmt::kWrite)
RP_ACCESS(__tsan_unaligned_write16, fmt::kWrite)
RP_ACCESS(__tsan_unaligned_volatile_read2, fmt::kRead)
RP_ACCESS(__tsan_unaligned_volatile_read4, fmt::kRead)
RP_ACCESS(__tsan_unaligned_volatile_read8, fmt::kRead)
RP_ACCESS(__tsan_unaligned_volatile_read16, fmt::kRead)
RP_ACCESS(__tsan_unaligned_volatile_write2, fmt::kWrite)
RP_ACCESS(__tsan_unaligned_volatile_write4, fmt::kWrite)
RP_ACCESS(__tsan_unaligned_volatile_write8, fmt::kWrite)
RP_ACCESS(__tsan_unaligned_volatile_write16, fmt::kWrite)
RP_ACCESS(__tsan_vptr_read, fmt::kRead)

#define RP_READ_WRITE(name)                                              \
  RP_EXPORT void name(void* a) {                                         \
    Ctx* c = enter();                                                    \
    if (!c) return;                                                      \
    put(c, fmt::kRead, reinterpret_cast<uintptr_t>(a), RP_PC(), false);  \
    put(c, fmt::kWrite, reinterpret_cast<uintptr_t>(a), RP_PC(), false); \
    leave(c);                                                            \
  }
RP_READ_WRITE(__tsan_read_write1)
RP_READ_WRITE(__tsan_read_write2)
RP_READ_WRITE(__tsan_read_write4)
RP_READ_WRITE(__tsan_read_write8)
RP_READ_WRITE(__tsan_read_write16)
RP_READ_WRITE(__tsan_unaligned_read_write2)
RP_READ_WRITE(__tsan_unaligned_read_write4)
RP_READ_WRITE(__tsan_unaligned_read_write8)
RP_READ_WRITE(__tsan_unaligned_read_write16)

RP_EXPORT void __tsan_vptr_update(void** a, void*) {
  event(fmt::kWrite, reinterpret_cast<uintptr_t>(a), RP_PC());
}

namespace {
// A range access: one event per 8-byte granule from the start address (at most
// kRangeGranules: a longer range records its first granules only; docs/RECORDER.md).
void range(uint8_t op, const void* a, size_t n, uint64_t pc) {
  if (n == 0 || t_in_rt) return;
  Ctx* c = enter();
  if (!c) return;
  const uint64_t start = reinterpret_cast<uintptr_t>(a);
  uint64_t granules = (n + 7) / 8;
  if (granules > kRangeGranules) granules = kRangeGranules;
  for (uint64_t i = 0; i < granules; ++i) put(c, op, start + 8 * i, pc, false);
  leave(c);
}
}  // namespace

RP_EXPORT void __tsan_read_range(void* a, unsigned long n) {
  range(fmt::kRead, a, n, RP_PC());
}
RP_EXPORT void __tsan_write_range(void* a, unsigned long n) {
  range(fmt::kWrite, a, n, RP_PC());
}

// ---- atomics: acq(A') r(A) [w(A)] rel(A') around the real operation, done seq_cst ----
namespace {
template <typename T, typename Op>
inline T atomic_op(volatile T* a, bool read, bool write, uint64_t pc, Op op) {
  Ctx* c = enter();
  if (!c) return op();
  int* s = stripe(a);
  spin_lock(s);
  const T result = op();
  atomic_events(c, a, read, write, pc);
  spin_unlock(s);
  leave(c);
  return result;
}
}  // namespace

#define RP_ATOMIC_OPS(bits, T)                                                                   \
  RP_EXPORT T __tsan_atomic##bits##_load(const volatile T* a, int) {                             \
    return atomic_op<T>(const_cast<volatile T*>(a), true, false, RP_PC(),                        \
                        [&] { return __atomic_load_n(a, __ATOMIC_SEQ_CST); });                   \
  }                                                                                              \
  RP_EXPORT void __tsan_atomic##bits##_store(volatile T* a, T v, int) {                          \
    atomic_op<T>(a, false, true, RP_PC(), [&] {                                                  \
      __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                  \
      return T{};                                                                                \
    });                                                                                          \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_exchange(volatile T* a, T v, int) {                          \
    return atomic_op<T>(a, true, true, RP_PC(),                                                  \
                        [&] { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); });            \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_add(volatile T* a, T v, int) {                         \
    return atomic_op<T>(a, true, true, RP_PC(),                                                  \
                        [&] { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); });             \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_sub(volatile T* a, T v, int) {                         \
    return atomic_op<T>(a, true, true, RP_PC(),                                                  \
                        [&] { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); });             \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_and(volatile T* a, T v, int) {                         \
    return atomic_op<T>(a, true, true, RP_PC(),                                                  \
                        [&] { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); });             \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_or(volatile T* a, T v, int) {                          \
    return atomic_op<T>(a, true, true, RP_PC(),                                                  \
                        [&] { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); });              \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_xor(volatile T* a, T v, int) {                         \
    return atomic_op<T>(a, true, true, RP_PC(),                                                  \
                        [&] { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); });             \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_nand(volatile T* a, T v, int) {                        \
    return atomic_op<T>(a, true, true, RP_PC(),                                                  \
                        [&] { return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST); });            \
  }                                                                                              \
  RP_EXPORT int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* expected, T v,   \
                                                              int, int) {                        \
    bool ok = false;                                                                             \
    Ctx* c = enter();                                                                            \
    int* s = stripe(a);                                                                          \
    if (c) spin_lock(s);                                                                         \
    ok = __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    if (c) {                                                                                     \
      atomic_events(c, a, true, ok, RP_PC());                                                    \
      spin_unlock(s);                                                                            \
      leave(c);                                                                                  \
    }                                                                                            \
    return ok;                                                                                   \
  }                                                                                              \
  RP_EXPORT int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* expected, T v,     \
                                                            int mo, int fmo) {                   \
    return __tsan_atomic##bits##_compare_exchange_strong(a, expected, v, mo, fmo);               \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T expected, T v, int mo, \
                                                         int fmo) {                              \
    __tsan_atomic##bits##_compare_exchange_strong(a, &expected, v, mo, fmo);                     \
    return expected;                                                                             \
  }

typedef unsigned char rp_u8;
typedef unsigned short rp_u16;
typedef unsigned int rp_u32;
typedef unsigned long long rp_u64;
typedef unsigned __int128 rp_u128;
RP_ATOMIC_OPS(8, rp_u8)
RP_ATOMIC_OPS(16, rp_u16)
RP_ATOMIC_OPS(32, rp_u32)
RP_ATOMIC_OPS(64, rp_u64)
RP_ATOMIC_OPS(128, rp_u128)

RP_EXPORT void __tsan_atomic_thread_fence(int) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
RP_EXPORT void __tsan_atomic_signal_fence(int) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

// ======================= interceptors =======================

// True for a module of the system (under /usr/ or /lib, and not the executable, which holds
// the runtime): its code is not the user's.
bool system_module(const Dl_info& info) {
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&__tsan_init), &self) && info.dli_fbase == self.dli_fbase)
    return false;
  const char* f = info.dli_fname ? info.dli_fname : "";
  return strncmp(f, "/usr/", 5) == 0 || strncmp(f, "/lib", 4) == 0;
}

// The location of a fork or join that a system library made on the user's behalf (pitfall 16:
// std::thread calls pthread_create and pthread_join from libstdc++): the first return address
// on the stack past the library's frames, in the user's code, and the next user frame after it
// (recorded as a kRawCaller record: `racepred record` names it instead when the first is a
// system header's code, e.g. std::thread's constructor instantiated in the program). `pc`
// itself when the call came from the user's code. Only for these rare events: a walk of the
// stack (glibc's backtrace) and a few dladdr calls.
struct UserPc {
  uint64_t pc, caller;
};
UserPc user_pc(uint64_t pc) {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(pc), &info) || !system_module(info)) return {pc, 0};
  void* frames[32];
  int n;
  {
    Busy busy;  // the first backtrace loads libgcc_s (malloc): not the program's events
    n = backtrace(frames, 32);
  }
  bool in_library = false;
  UserPc found{pc, 0};
  for (int i = 0; i < n; ++i) {
    Dl_info f;
    if (!dladdr(frames[i], &f)) continue;
    const bool system = system_module(f);
    if (in_library && !system) {
      if (found.pc != pc) {
        found.caller = reinterpret_cast<uint64_t>(frames[i]);
        break;
      }
      found.pc = reinterpret_cast<uint64_t>(frames[i]);
    }
    in_library = in_library || system;
  }
  return found;
}

// A fork or join event at `where` (its caller record first).
void located_event(uint8_t op, uint64_t target, UserPc where) {
  if (where.caller) event(fmt::kRawCaller, where.caller, 0);
  event(op, target, where.pc);
}

RP_EXPORT int pthread_create(pthread_t* th, const pthread_attr_t* attr, void* (*fn)(void*),
                             void* arg) {
  auto real_create = REAL(pthread_create);
  Ctx* c = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE) == 1 ? ctx() : nullptr;
  if (!c) return real_create(th, attr, fn, arg);
  StartArg* a = static_cast<StartArg*>(__libc_malloc(sizeof(StartArg)));
  if (!a) return real_create(th, attr, fn, arg);
  a->fn = fn;
  a->arg = arg;
  a->tid = __atomic_fetch_add(&g_next_tid, 1, __ATOMIC_RELAXED);
  // fork takes its sequence number before the child can run.
  located_event(fmt::kFork, a->tid, user_pc(RP_PC()));
  int rc;
  {
    Busy busy;  // ld.so allocates the child's TLS through malloc: not the program's events
    rc = real_create(th, attr, thread_start, a);
  }
  if (rc != 0) {
    __libc_free(a);  // the fork event stays: a thread without events is harmless
  } else {
    tid_insert(*th, a->tid);
  }
  return rc;
}

RP_EXPORT int pthread_join(pthread_t th, void** ret) {
  const uint32_t tid = tid_find(th, false);
  const int rc = REAL(pthread_join)(th, ret);
  if (rc == 0 && tid != UINT32_MAX) {
    tid_find(th, true);
    located_event(fmt::kJoin, tid, user_pc(RP_PC()));
  }
  return rc;
}

RP_EXPORT int pthread_detach(pthread_t th) {
  tid_find(th, true);
  return REAL(pthread_detach)(th);
}

RP_EXPORT int pthread_mutex_lock(pthread_mutex_t* m) {
  const int rc = REAL(pthread_mutex_lock)(m);
  if (rc == 0 && !is_recursive_depth(m)) lock_event(fmt::kAcquire, m, RP_PC());
  return rc;
}
RP_EXPORT int pthread_mutex_trylock(pthread_mutex_t* m) {
  const int rc = REAL(pthread_mutex_trylock)(m);
  if (rc == 0 && !is_recursive_depth(m)) lock_event(fmt::kAcquire, m, RP_PC());
  return rc;
}
RP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t* m, const struct timespec* t) {
  const int rc = REAL(pthread_mutex_timedlock)(m, t);
  if (rc == 0 && !is_recursive_depth(m)) lock_event(fmt::kAcquire, m, RP_PC());
  return rc;
}
RP_EXPORT int pthread_mutex_unlock(pthread_mutex_t* m) {
  if (!is_recursive_depth(m)) lock_event(fmt::kRelease, m, RP_PC());
  return REAL(pthread_mutex_unlock)(m);
}

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

// Read-write locks: a write lock is acq/rel of the lock, a read lock racq/rrel (the trace's
// read-mode ops, docs/FORMATS.md). pthread_rwlock_unlock does not say which mode it ends: the
// thread's read_locks remember the locks it holds in read mode. std::shared_mutex is a
// pthread_rwlock_t in libstdc++, so lock_shared/unlock_shared arrive here too.
namespace {
void read_locked(pthread_rwlock_t* l, uint64_t pc) {
  lock_event(fmt::kReadAcquire, l, pc);
  if (Ctx* c = t_ctx) add_read_held(c, l);
}
}  // namespace

RP_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  const int rc = REAL(pthread_rwlock_rdlock)(l);
  if (rc == 0) read_locked(l, RP_PC());
  return rc;
}
RP_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) {
  const int rc = REAL(pthread_rwlock_tryrdlock)(l);
  if (rc == 0) read_locked(l, RP_PC());
  return rc;
}
RP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const struct timespec* t) {
  const int rc = REAL(pthread_rwlock_timedrdlock)(l, t);
  if (rc == 0) read_locked(l, RP_PC());
  return rc;
}
RP_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  const int rc = REAL(pthread_rwlock_wrlock)(l);
  if (rc == 0) lock_event(fmt::kAcquire, l, RP_PC());
  return rc;
}
RP_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t* l) {
  const int rc = REAL(pthread_rwlock_trywrlock)(l);
  if (rc == 0) lock_event(fmt::kAcquire, l, RP_PC());
  return rc;
}
RP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const struct timespec* t) {
  const int rc = REAL(pthread_rwlock_timedwrlock)(l, t);
  if (rc == 0) lock_event(fmt::kAcquire, l, RP_PC());
  return rc;
}
RP_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  Ctx* c = t_ctx;
  if (c && read_held(c, l, true))
    lock_event(fmt::kReadRelease, l, RP_PC());
  else
    lock_event(fmt::kRelease, l, RP_PC());
  return REAL(pthread_rwlock_unlock)(l);
}

RP_EXPORT int pthread_spin_lock(pthread_spinlock_t* l) {
  const int rc = REAL(pthread_spin_lock)(l);
  if (rc == 0) lock_event(fmt::kAcquire, const_cast<const int*>(l), RP_PC());
  return rc;
}
RP_EXPORT int pthread_spin_trylock(pthread_spinlock_t* l) {
  const int rc = REAL(pthread_spin_trylock)(l);
  if (rc == 0) lock_event(fmt::kAcquire, const_cast<const int*>(l), RP_PC());
  return rc;
}
RP_EXPORT int pthread_spin_unlock(pthread_spinlock_t* l) {
  lock_event(fmt::kRelease, const_cast<const int*>(l), RP_PC());
  return REAL(pthread_spin_unlock)(l);
}

RP_EXPORT int pthread_barrier_wait(pthread_barrier_t* b) {
  sync_pair(b, RP_PC());  // release side: before the wait
  const int rc = REAL(pthread_barrier_wait)(b);
  sync_pair(b, RP_PC());  // acquire side: after it
  return rc;
}

namespace {
thread_local pthread_once_t* t_once RP_TLS;
thread_local void (*t_once_fn)(void) RP_TLS;
void once_trampoline() {
  pthread_once_t* o = t_once;
  void (*fn)(void) = t_once_fn;
  fn();
  sync_pair(o, 0);  // the initialiser's events happen before every caller returns
}
}  // namespace

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

// ---- the allocator: allocation and free records name heap memory by allocation site, and
// make each allocation a fresh set of variables (address reuse creates no false races) ----
namespace {
inline void alloc_record(void* p, size_t size, uint64_t pc) {
  if (!p || t_in_rt) return;
  Ctx* c = enter();
  if (!c) return;
  put(c, fmt::kRawAlloc, reinterpret_cast<uintptr_t>(p), pc, false);
  put(c, fmt::kRawSize, size, pc, false);
  leave(c);
}
inline void free_record(void* p, uint64_t pc) {
  if (!p || t_in_rt) return;
  Ctx* c = enter();
  if (!c) return;
  put(c, fmt::kRawFree, reinterpret_cast<uintptr_t>(p), pc, false);
  leave(c);
}
}  // namespace

RP_EXPORT void* malloc(size_t n) {
  void* p = __libc_malloc(n);
  alloc_record(p, n, RP_PC());
  return p;
}
RP_EXPORT void* calloc(size_t k, size_t n) {
  void* p = __libc_calloc(k, n);
  alloc_record(p, k * n, RP_PC());
  return p;
}
RP_EXPORT void* realloc(void* old, size_t n) {
  free_record(old, RP_PC());
  void* p = __libc_realloc(old, n);
  alloc_record(p, n, RP_PC());
  return p;
}
RP_EXPORT void free(void* p) {
  free_record(p, RP_PC());
  __libc_free(p);
}
RP_EXPORT void* memalign(size_t align, size_t n) {
  void* p = __libc_memalign(align, n);
  alloc_record(p, n, RP_PC());
  return p;
}
RP_EXPORT void* aligned_alloc(size_t align, size_t n) {
  void* p = __libc_memalign(align, n);
  alloc_record(p, n, RP_PC());
  return p;
}
RP_EXPORT int posix_memalign(void** out, size_t align, size_t n) {
  if (align < sizeof(void*) || (align & (align - 1))) return EINVAL;
  void* p = __libc_memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  alloc_record(p, n, RP_PC());
  return 0;
}

// C++ operator new/delete: recorded with the caller's address as the allocation site (the
// malloc call inside libstdc++ would name every C++ object after libstdc++).
#define RP_NEW(name)               \
  RP_EXPORT void* name(size_t n) { \
    auto f = REAL(name);           \
    void* p;                       \
    {                              \
      Busy busy;                   \
      p = f(n);                    \
    }                              \
    alloc_record(p, n, RP_PC());   \
    return p;                      \
  }
RP_NEW(_Znwm)
RP_NEW(_Znam)
#define RP_DELETE(name, ...)                                \
  RP_EXPORT void name(void* p __VA_OPT__(, ) __VA_ARGS__) { \
    free_record(p, RP_PC());                                \
    Busy busy;                                              \
    REAL(name)(p __VA_OPT__(, n));                          \
  }
RP_DELETE(_ZdlPv)
RP_DELETE(_ZdaPv)
RP_DELETE(_ZdlPvm, size_t n)
RP_DELETE(_ZdaPvm, size_t n)

// ---- mem*: range accesses, then the real function through a pointer the compiler cannot
// fold back into a call to ourselves (RECORDER.md pitfall 1) ----
RP_EXPORT void* memcpy(void* d, const void* s, size_t n) {
  range(fmt::kRead, s, n, RP_PC());
  range(fmt::kWrite, d, n, RP_PC());
  return g_memcpy_chk(d, s, n, static_cast<size_t>(-1));
}
RP_EXPORT void* memmove(void* d, const void* s, size_t n) {
  range(fmt::kRead, s, n, RP_PC());
  range(fmt::kWrite, d, n, RP_PC());
  return g_memmove_chk(d, s, n, static_cast<size_t>(-1));
}
RP_EXPORT void* memset(void* d, int v, size_t n) {
  range(fmt::kWrite, d, n, RP_PC());
  return g_memset_chk(d, v, n, static_cast<size_t>(-1));
}

// ---- processes ----
RP_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  finish_all(true);  // what this process recorded is complete
  return REAL(execve)(path, argv, envp);
}
RP_EXPORT int execv(const char* path, char* const argv[]) {
  finish_all(true);
  return REAL(execv)(path, argv);
}
// _exit skips atexit handlers: flush here (lbzip2, for one, ends with _exit).
RP_EXPORT void _exit(int status) {
  finish_all(true);
  REAL(_exit)(status);
  __builtin_unreachable();
}
RP_EXPORT void _Exit(int status) {
  finish_all(true);
  REAL(_Exit)(status);
  __builtin_unreachable();
}
RP_EXPORT int execvp(const char* file, char* const argv[]) {
  finish_all(true);
  return REAL(execvp)(file, argv);
}
