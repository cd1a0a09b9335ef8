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
  // The thread's Lamport clock: the timestamp of its last numbered record (docs/RECORDER.md,
  // "How records are ordered"; unused when g_lamport is 0).
  uint64_t clock;
};

// ---- global state (zero-initialised: no static constructors); defined in buffers.cpp ----
extern int g_state;  // 0 = not initialised, 1 = recording, 2 = stopped
extern int g_fd;
extern int g_write_lock;
struct alignas(64) Counter {
  uint64_t value;
};
// The global event counter, on a cache line of its own (buffers.cpp says why): the records'
// numbers under a scheduler (g_lamport == 0), where one thread runs at a time and explore
// relates the numbers to its choice points.
extern Counter g_seq_line;
// 1: records are numbered by Lamport timestamps (no scheduler: the threads run freely); 0: by
// the global counter. Set once at start-up, before any thread but the first records.
extern int g_lamport;
// Lamport mode: a hashed shadow word per 8 bytes of memory holding the timestamp of the last
// access to it (of any address that hashes there: a collision only adds order).
constexpr uint32_t kAccessStampBits = 20;  // 8 MiB of zero pages, touched where accessed
extern uint64_t g_access_stamps[1u << kAccessStampBits];
// Lamport mode: the largest timestamp of a free (free, delete, realloc's old block): every
// allocation is numbered after it, so memory that is freed and allocated again is allocated
// again after the free in the trace, as `racepred record` needs to name it (each allocation is
// its own variables).
extern Counter g_free_stamp;
// Lamport mode: the largest clock any thread has published (at its flushes and its end): the
// start of a thread the runtime did not start itself.
extern uint64_t g_clock_hint;
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
  // Lamport mode: the timestamp of the last synchronisation record of an object of this
  // stripe (a lock, a sync object, an atomic that synchronises, a thread's end): every such
  // record takes max(its thread's clock, this) + 1 and stores it, under the stripe's lock, so
  // the records of one object are in the real order of their operations (an atomic's: done
  // under the same lock).
  uint64_t stamp;
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
// `lower`: a lower bound of the thread's record numbers (UINT64_MAX: the global counter's).
void write_start(uint32_t tid, uint64_t lower = UINT64_MAX);
// `clock`: the thread's starting Lamport clock (its fork's timestamp).
Ctx* new_ctx(uint32_t tid, uint64_t clock);
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

// ---- Lamport timestamps (g_lamport; docs/RECORDER.md, "How records are ordered") ----
// The stripe of a synchronisation object (the same as stripe()'s).
inline Stripe& stripe_of(uint64_t addr) {
  return g_stripes[(addr >> 3) % kStripes];
}
// The stripe whose timestamp holds the end of thread `tid`, which its join receives.
inline Stripe& thread_end_stripe(uint64_t tid) {
  return g_stripes[tid % kStripes];
}
// max(t, the stripe's timestamp) + 1, which becomes the stripe's timestamp: the records that
// chain through one stripe are numbered in the real order of their chain steps. The caller
// holds the stripe's lock (chain_held) or chain() takes it.
inline uint64_t chain_held(Stripe& s, uint64_t t) {
  const uint64_t v = __atomic_load_n(&s.stamp, __ATOMIC_RELAXED);
  t = (v > t ? v : t) + 1;
  __atomic_store_n(&s.stamp, t, __ATOMIC_RELAXED);
  return t;
}
inline uint64_t chain(Stripe& s, uint64_t t) {
  spin_lock(&s.lock);
  t = chain_held(s, t);
  spin_unlock(&s.lock);
  return t;
}
// Raises *slot to at least t (the clock hint, the free stamp).
inline void raise_to(uint64_t* slot, uint64_t t) {
  uint64_t s = __atomic_load_n(slot, __ATOMIC_RELAXED);
  while (s < t &&
         !__atomic_compare_exchange_n(slot, &s, t, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}
inline uint64_t* access_stamp(uint64_t addr) {
  return &g_access_stamps[(addr >> 3) & ((1u << kAccessStampBits) - 1)];
}
// The shadow words of an access of `bytes` bytes at `addr`: its first word and, for an access
// that spans more, the words after it up to kStampWords in all (a longer range: its first
// kStampWords - 1 words and its last).
constexpr uint64_t kStampWords = 64;
// The timestamp of a read or write whose thread's clock is `t`: after the last access of its
// words (max + 1), which it then becomes. A read is stamped after its load (it is deferred),
// a write before its store, so a read follows the write it saw, and a write follows the reads
// stamped before it. Plain loads and stores: two threads that access a word at once may both
// miss the other's stamp, as their accesses race (docs/RECORDER.md, "How records are ordered").
inline uint64_t access_after(uint64_t addr, uint64_t bytes, uint64_t t) {
  __atomic_thread_fence(__ATOMIC_ACQUIRE);  // a read's data load before the stamp loads
  uint64_t* first = access_stamp(addr);
  uint64_t s = __atomic_load_n(first, __ATOMIC_RELAXED);
  if (RP_LIKELY((addr & 7) + bytes <= 8)) {
    t = (s > t ? s : t) + 1;
    __atomic_store_n(first, t, __ATOMIC_RELAXED);
  } else {
    const uint64_t last = (addr + bytes - 1) >> 3;
    uint64_t word = (addr >> 3) + 1;
    for (uint64_t i = 1; word <= last; ++i, ++word) {
      if (i == kStampWords - 1) word = last;
      const uint64_t v = __atomic_load_n(access_stamp(word << 3), __ATOMIC_RELAXED);
      if (v > s) s = v;
    }
    t = (s > t ? s : t) + 1;
    __atomic_store_n(first, t, __ATOMIC_RELAXED);
    word = (addr >> 3) + 1;
    for (uint64_t i = 1; word <= last; ++i, ++word) {
      if (i == kStampWords - 1) word = last;
      __atomic_store_n(access_stamp(word << 3), t, __ATOMIC_RELAXED);
    }
  }
  __atomic_thread_fence(__ATOMIC_RELEASE);  // a write's stamp stores before its data store
  return t;
}
// The timestamp of the thread's next record `op` at `addr` (`bytes`: an access's size or a
// range's length): an access follows the last access of its words, a synchronisation record
// chains through its object's stripe, a join follows the joined thread's end, an allocation the
// last free; call and return records share the previous number.
__attribute__((always_inline)) inline uint64_t lamport(Ctx* c, uint8_t op, uint64_t addr,
                                                       uint64_t bytes) {
  uint64_t t = c->clock;
  switch (op & fmt::kRawOpMask) {
    case fmt::kRead:
    case fmt::kWrite:
      // An atomic's access (no size) only races with plain writes: no shadow word (its order
      // among atomics is its synchronisation records', on the stripe).
      if (op >> fmt::kRawSizeShift)
        t = access_after(addr, bytes, t);
      else
        ++t;
      break;
    case fmt::kAcquire:
    case fmt::kRelease:
    case fmt::kReadAcquire:
    case fmt::kReadRelease:
    case fmt::kSend:
    case fmt::kRecv:
    case fmt::kRequest:
    case fmt::kReadRequest:
      t = chain(stripe_of(addr), t);
      break;
    case fmt::kJoin:
      t = chain(thread_end_stripe(addr), t);
      break;
    case fmt::kRawFree:  // before the real free
      raise_to(&g_free_stamp.value, ++t);
      break;
    case fmt::kRawAlloc: {  // after the real allocation
      const uint64_t f = __atomic_load_n(&g_free_stamp.value, __ATOMIC_RELAXED);
      t = (f > t ? f : t) + 1;
      break;
    }
    case fmt::kRawFuncEntry:
    case fmt::kRawFuncExit:
      break;
    default:
      ++t;
  }
  c->clock = t;
  return t;
}
// The bytes of a raw access op with a fixed size (1 for others).
inline uint64_t op_bytes(uint8_t op) {
  return fmt::size_bytes(static_cast<uint8_t>(op >> fmt::kRawSizeShift));
}
// Lamport mode: gives the deferred reads (the last c->pending records) their timestamps, now
// that their loads have happened.
__attribute__((always_inline)) inline void stamp_pending(Ctx* c) {
  const uint32_t k = c->pending;
  if (!k) return;
  uint64_t t = c->clock;
  for (fmt::RawRecord *r = c->buf + (c->n - k), *end = c->buf + c->n; r != end; ++r) {
    // Only plain reads (a fixed size: ranges are not deferred), an atomic's relaxed access (no
    // size) and call and return records wait here: lamport() without its dispatch.
    const uint8_t op = static_cast<uint8_t>(r->op_pc >> 56);
    const uint8_t size = static_cast<uint8_t>(op >> fmt::kRawSizeShift);
    if (RP_LIKELY(size != 0))
      t = access_after(r->addr, uint64_t{1} << (size - 1), t);
    else if (op == fmt::kRead)
      ++t;
    r->seq = t;
  }
  c->clock = t;
  c->pending = 0;
}

// Gives the deferred reads (the last c->pending records) their sequence numbers, and
// `extra` more numbers after them: one atomic operation for all. Returns the first extra one.
// (Lamport mode: only the reads; `extra` is not asked for there.)
__attribute__((always_inline)) inline uint64_t number_pending(Ctx* c, uint32_t extra) {
  if (g_lamport) {
    stamp_pending(c);
    return 0;
  }
  const uint32_t k = c->pending;
  if (k + extra == 0) return 0;
  uint64_t s = __atomic_fetch_add(&g_seq_line.value, k + extra, __ATOMIC_RELAXED);
  for (fmt::RawRecord* r = c->buf + (c->n - k); k && r != c->buf + c->n; ++r) r->seq = s++;
  c->pending = 0;
  return s;
}

// Out of line (buffers.cpp), for the rare cases of the access path, which would otherwise
// inline their loops into every entry point: the deferred reads numbered when kMaxPendingReads
// wait, and a record numbered by the global counter (under a scheduler).
__attribute__((noinline, cold)) void number_waiting_reads(Ctx* c);
__attribute__((noinline)) uint64_t number_by_counter(Ctx* c);

// The calling thread's context; created lazily for threads the runtime did not start (they
// get a fresh tid and no fork event). nullptr when not recording.
inline Ctx* ctx() {
  Ctx* c = t_ctx;
  if (RP_LIKELY(c)) return c;
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != 1 || t_no_ctx) return nullptr;
  return ctx_create();
}

// A read is numbered at the thread's next numbered record, after its load has happened, so a
// read that saw another thread's write is placed after that write (docs/RECORDER.md, "How
// records are ordered"; tests/recorder/spin_flag.c). With the global counter, one atomic
// increment numbers the waiting reads and the next non-read event together (the counter is the
// contended part of the access path: a read-modify-write costs one increment, not two); at most
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
    if (RP_UNLIKELY(c->pending == kMaxPendingReads)) number_waiting_reads(c);  // earlier reads
    ++c->pending;
  } else if (RP_LIKELY(g_lamport)) {
    stamp_pending(c);
    r.seq = lamport(c, op, addr, op_bytes(op));
  } else {
    r.seq = number_by_counter(c);
  }
  __atomic_store_n(&c->n, n + 1, __ATOMIC_RELEASE);
}

// Several records of one operation (an access and its length, an atomic's recv, read and
// send): room for all of them with one test of the buffer, and their numbers (with the deferred
// reads before them) together (under a scheduler, from one increment of the global counter).
// reserve() gives the first record to fill; commit() numbers the `k` filled ones from there and
// appends them.
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
  if (g_lamport) {
    stamp_pending(c);
    for (fmt::RawRecord *r = first, *end = r + k; r != end; ++r) {
      const uint8_t op = static_cast<uint8_t>(r->op_pc >> 56);
      uint64_t bytes = op_bytes(op);
      if ((op >> fmt::kRawSizeShift) == fmt::kSizeRange && r + 1 != end) bytes = r[1].addr;
      r->seq = lamport(c, op, r->addr, bytes);
    }
    __atomic_store_n(&c->n, n + k, __ATOMIC_RELEASE);
    return;
  }
  uint64_t s = number_pending(c, k);
  for (fmt::RawRecord *r = first, *end = r + k; r != end; ++r) r->seq = s++;
  __atomic_store_n(&c->n, n + k, __ATOMIC_RELEASE);
}
// commit() for the records of an atomic operation on an address of stripe `s`, whose lock the
// caller holds: their synchronisation records chain through it without taking it again.
__attribute__((always_inline)) inline void commit_held(Ctx* c, fmt::RawRecord* first, uint32_t k,
                                                       Stripe& s) {
  if (!g_lamport) return commit(c, first, k);
  const uint32_t n = static_cast<uint32_t>(first - c->buf);
  stamp_pending(c);
  uint64_t t = c->clock;
  for (fmt::RawRecord *r = first, *end = r + k; r != end; ++r) {
    const uint8_t op = static_cast<uint8_t>(r->op_pc >> 56) & fmt::kRawOpMask;
    if (op == fmt::kRecv || op == fmt::kSend || op == fmt::kAcquire || op == fmt::kRelease)
      t = chain_held(s, t);
    else
      ++t;  // the access of an atomic (no shadow word, see lamport())
    r->seq = t;
  }
  c->clock = t;
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
  return &stripe_of(reinterpret_cast<uintptr_t>(a)).lock;
}

// A recv that must follow the sends of atomic operations at `o` it saw (those are numbered
// after their operation, under the stripe): annotations and fences take the stripe too.
inline void recv_after_atomics(Ctx* c, const volatile void* o, uint64_t pc) {
  if (g_lamport) {  // its chain step takes the stripe's lock
    put(c, fmt::kRecv, reinterpret_cast<uintptr_t>(o), pc, false);
    return;
  }
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
