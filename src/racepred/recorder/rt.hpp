// Internals of the recording runtime shared by its files (docs/RECORDER.md): the per-thread
// contexts, the event path (inline: the __tsan_* entry points and interceptors of every file
// compile it into themselves), the writer's and the fork handling's entry points, and the
// lookup of the real functions. Everything here is hidden: only RP_EXPORT symbols leave the
// library.
#pragma once

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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "racepred/format/trace_format.hpp"
#include "racepred/recorder/racepred_rt.h"
#include "racepred/recorder/sched.hpp"

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

#pragma GCC visibility push(hidden)

namespace racepred_rt {

// ---- configuration and global state (zero-initialised: no static constructors) ----
constexpr uint32_t kBufferRecords = 1u << 15;  // 768 KiB per thread
constexpr uint32_t kMaxThreads = 1u << 14;     // contexts registered for the exit flush
constexpr uint32_t kStripes = 1024;            // address-striped locks of the atomics model
constexpr uint32_t kTidSlots = 1u << 15;       // pthread_t -> tid table
constexpr uint32_t kFenceLoads = 8;            // relaxed loads an acquire fence turns into recvs

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
  // The fences of the atomics model (atomics.cpp): after a release fence every later relaxed
  // store is a release; an acquire fence is a recv on the last kFenceLoads addresses loaded
  // relaxed since the previous one.
  int release_fenced;
  uint32_t relaxed_loads;
  uint64_t load_addrs[kFenceLoads];
};

// ---- global state (zero-initialised: no static constructors); defined in buffers.cpp ----
extern int g_state;  // 0 = not initialised, 1 = recording, 2 = stopped
extern int g_fd;
extern int g_write_lock;
struct alignas(64) Counter {
  uint64_t value;
};
// The global event counter, on a cache line of its own (buffers.cpp says why).
extern Counter g_seq_line;
extern uint32_t g_next_tid;
extern uint64_t g_bytes;
extern uint64_t g_max_bytes;
extern uint64_t g_dropped;
extern int g_capped;
extern int g_nowrite;  // record into memory only (overhead measurements)
// The atomics model's stripe locks (stripe()), each on a cache line of its own: packed as ints,
// the stripes of neighbouring atomics (a per-thread array of flags) shared one line, and every
// acquire or release of one thread's slot invalidated the line of the others'.
struct alignas(64) Stripe {
  int lock;
};
extern Stripe g_stripes[kStripes];
extern Ctx* g_ctxs[kMaxThreads];
extern uint32_t g_ctx_count;
extern pthread_key_t g_key;
extern int g_finished;
extern pid_t g_pid;  // the process whose recording g_fd is
// RACEPRED_RECORD as the process found it (%p not yet replaced): fork children name their
// recordings after it.
extern char g_template[4096];
// __thread, not thread_local: no TLS wrapper call for a variable of another file.
extern __thread Ctx* t_ctx RP_TLS;
extern __thread int t_no_ctx RP_TLS;  // the thread has ended (its key destructor ran)
// Inside the runtime's own work (writing blocks, reading maps): the mem* and allocator
// interceptors this work reaches record nothing.
extern __thread int t_in_rt RP_TLS;
struct InRuntime {
  InRuntime() { ++t_in_rt; }
  ~InRuntime() { --t_in_rt; }
};

// ---- tiny spin lock (never a pthread mutex: those are intercepted) ----
// After a short spin the waiter gives up its processor: with more threads than cores, the
// holder may have been preempted, and spinning for the rest of a time slice delays it more.
inline void spin_lock(int* l) {
  for (unsigned spins = 0; __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE);) {
    while (__atomic_load_n(l, __ATOMIC_RELAXED)) {
      if (++spins < 128)
        __builtin_ia32_pause();
      else
        syscall(SYS_sched_yield);  // (not through an interposed sched_yield)
    }
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

extern void* (*volatile g_memcpy_chk)(void*, const void*, size_t, size_t);
extern void* (*volatile g_memmove_chk)(void*, const void*, size_t, size_t);
extern void* (*volatile g_memset_chk)(void*, int, size_t, size_t);

inline void copy_bytes(void* d, const void* s, size_t n) {
  g_memcpy_chk(d, s, n, static_cast<size_t>(-1));
}

inline size_t str_len(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}

// One per file other than buffers.cpp, which references them all (linked_parts).
extern const char kPart_fork, kPart_threads, kPart_locks, kPart_sync, kPart_atomics, kPart_memory,
    kPart_settings, kPart_sched, kPart_crash, kPart_libc;

// ---- settings (settings.cpp; the table is format/recorder_settings.inc) ----
using setting_path = const char*;
using setting_string = const char*;
using setting_uint = uint64_t;
using setting_bool = bool;
struct Settings {
#define RP_SETTING(member, env, type, def, help) setting_##type member;
#include "racepred/format/recorder_settings.inc"
#undef RP_SETTING
};
extern Settings g_settings;
// Reads every setting from the environment (an unset or empty variable: the default).
void read_settings();

// ---- the writer (buffers.cpp) ----
bool write_fully(int fd, const void* data, size_t size);
// Writes one block (header + payload) under the output lock. Returns false when the cap was
// reached (recording stops) or the write failed. `force` writes even after the cap.
bool write_block(uint8_t kind, const void* payload, size_t size, bool force = false);
void write_start(uint32_t tid);
Ctx* new_ctx(uint32_t tid);
void flush_locked(Ctx* c, bool last, bool force = false);
void flush_ctx(Ctx* c, bool last, bool force = false);
void write_maps();
// /proc/self/maps in an anonymous mapping of `*cap` bytes (munmap it), its length in `*len`;
// nullptr when it cannot be read.
char* read_maps(size_t* len, size_t* cap);
void write_note(const char* key, uint64_t value);
// Flushes every thread (the process ends or execs): a thread still running loses what it
// records after this.
void finish_all(bool ended);
void thread_key_destructor(void* p);
bool open_output(bool fork_child);
// Records into `fd` (opened by the caller) from here on: writes the file header.
bool start_output(int fd);
void init();
// The calling thread's context when it has none yet (ctx()'s slow path).
Ctx* ctx_create();

// ---- threads (threads.cpp) ----
void tid_insert(pthread_t th, uint32_t tid);
// The tid of a pthread_t, or UINT32_MAX; `remove` forgets it (join, detach).
uint32_t tid_find(pthread_t th, bool remove);

// ---- fatal signals (crash.cpp) ----
void install_crash_handlers();

// ---- fork handling (fork.cpp) ----
void on_fork_child();

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
#define DECLARE_REAL(ret, name, ...) static ret (*real_##name)(__VA_ARGS__)

// A context's mapping: the Ctx in the first page, then the buffer (kept until the thread ends).
constexpr size_t kPage = 4096;
// The record buffer, then the scratch space its records are packed into when flushed.
constexpr size_t kBufferBytes =
    ((kBufferRecords + 1) * sizeof(fmt::RawRecord) + kPage - 1) / kPage * kPage +
    ((fmt::kRawHeader + kBufferRecords * fmt::kMaxPackedRecord + kPage - 1) / kPage * kPage);
static_assert(sizeof(Ctx) <= kPage, "Ctx fits its page");

// Gives the deferred reads (the last c->pending records) their sequence numbers, and
// `extra` more numbers after them: one atomic operation for all. Returns the first extra one.
__attribute__((always_inline)) inline uint64_t number_pending(Ctx* c, uint32_t extra) {
  const uint32_t k = c->pending;
  if (k + extra == 0) return 0;
  uint64_t s = __atomic_fetch_add(&g_seq_line.value, k + extra, __ATOMIC_RELAXED);
  for (fmt::RawRecord* r = c->buf + (c->n - k); k && r != c->buf + c->n; ++r) r->seq = s++;
  c->pending = 0;
  return s;
}

// Writes the context's records as one raw block. `last` marks the thread's final block.

// The calling thread's context; created lazily for threads the runtime did not start (they
// get a fresh tid and no fork event). nullptr when not recording.
inline Ctx* ctx() {
  Ctx* c = t_ctx;
  if (RP_LIKELY(c)) return c;
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != 1 || t_no_ctx) return nullptr;
  return ctx_create();
}

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
    r.seq = c->pending ? number_pending(c, 1)
                       : __atomic_fetch_add(&g_seq_line.value, 1, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&c->n, n + 1, __ATOMIC_RELEASE);
}

// Several records of one operation (an access and its length, an atomic's recv, read and
// send): room for all of them with one test of the buffer, and their numbers (with the deferred
// reads before them) from one increment of the global counter. reserve() gives the first
// record to fill; commit() numbers the `k` filled ones from there and appends them.
__attribute__((always_inline)) inline fmt::RawRecord* reserve(Ctx* c, uint32_t k) {
  if (RP_UNLIKELY(c->n + k > kBufferRecords)) flush_ctx(c, false);
  return c->buf + c->n;
}
__attribute__((always_inline)) inline void fill(fmt::RawRecord* r, uint8_t op, uint64_t addr,
                                                uint64_t pc) {
  r->addr = addr;
  r->op_pc = (uint64_t{op} << 56) | (pc & 0x00ffffffffffffffULL);
}
__attribute__((always_inline)) inline void commit(Ctx* c, fmt::RawRecord* first, uint32_t k) {
  const uint32_t n = static_cast<uint32_t>(first - c->buf);  // as put(): the index reserved
  uint64_t s = number_pending(c, k);
  for (fmt::RawRecord *r = first, *end = r + k; r != end; ++r) r->seq = s++;
  __atomic_store_n(&c->n, n + k, __ATOMIC_RELEASE);
}
// A record followed by its kRawSize record (`size`), numbered together.
__attribute__((always_inline)) inline void put_sized(Ctx* c, uint8_t op, uint64_t addr,
                                                     uint64_t size, uint64_t pc) {
  fmt::RawRecord* r = reserve(c, 2);
  fill(r, op, addr, pc);
  fill(r + 1, fmt::kRawSize, size, pc);
  commit(c, r, 2);
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

// Synchronisation orders (docs/FORMATS.md "Synchronisation orders"): a send is numbered before
// the operation that publishes it (sem_post, a signal, a barrier arrival, the end of a once),
// a recv after the operation that observed it (the wait's return): so every recv follows in
// the trace the sends it saw. The object is the plain address, shared by every mechanism at it
// (ThreadSanitizer's one SyncVar per address: atomics, annotations, guards).
inline void sync_event(uint8_t op, const volatile void* o, uint64_t pc) {
  event(op, reinterpret_cast<uintptr_t>(o), pc);
}

// The atomics model (atomics.cpp): a stripe lock per address, held while an atomic operation
// that synchronises is done and its events numbered, so that they are in the trace in the
// operations' real order.
inline int* stripe(const volatile void* a) {
  return &g_stripes[(reinterpret_cast<uintptr_t>(a) >> 3) % kStripes].lock;
}

// A recv that must follow the sends of atomic operations at `o` it saw (those are numbered
// after their operation, under the stripe): annotations and fences take the stripe too.
inline void recv_after_atomics(Ctx* c, const volatile void* o, uint64_t pc) {
  int* s = stripe(o);
  spin_lock(s);
  put(c, fmt::kRecv, reinterpret_cast<uintptr_t>(o), pc, false);
  spin_unlock(s);
}

// A range access of `n` bytes at `a` (memory.cpp): one record, its length in the next.
void range(uint8_t op, const void* a, size_t n, uint64_t pc);
// A synchronisation object of `size` bytes at `o` is initialised or destroyed (libc.cpp): a
// write of its bytes, and its uses become reads of them (docs/RECORDER.md).
void sync_object(const void* o, size_t size, uint64_t pc);

inline bool is_recursive_depth(pthread_mutex_t* m) {
  // glibc: __kind & 3 == PTHREAD_MUTEX_RECURSIVE_NP; __count is the recursion depth.
  return (m->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP && m->__data.__count > 1;
}

inline void lock_event(uint8_t op, const void* l, uint64_t pc) {
  event(op, reinterpret_cast<uintptr_t>(l), pc);
}

}  // namespace racepred_rt

#pragma GCC visibility pop
