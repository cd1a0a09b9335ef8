// The __tsan_atomic* entry points (docs/RECORDER.md, "Atomics: memory orders").
#include "racepred/recorder/rt.hpp"

namespace racepred_rt {

// Pulled into every link by buffers.cpp (linked_parts): a static archive's member is linked
// only for symbols the program's objects reference, never for libraries' references.
extern const char kPart_atomics = 0;

// Memory orders as the instrumentation passes them (ThreadSanitizer's __tsan_memory_order:
// relaxed 0, consume 1, acquire 2, release 3, acq_rel 4, seq_cst 5; gcc's __sync builtins add
// flag bits above 0x7fff). Anything else is taken as seq_cst: more order, never less.
inline int base_order(int mo) {
  const int m = mo & 0x7fff;
  return m > 5 ? 5 : m;
}
inline bool acquires(int mo) {
  const int m = base_order(mo);
  return m == 1 || m == 2 || m >= 4;
}
inline bool releases(int mo) {
  return base_order(mo) >= 3;
}

// The events of one atomic access at `addr`: [recv(A)] r(A) [send(A)]. The access is a read
// whatever the operation: atomics never race with each other, and a plain write of A still
// races with it (docs/RECORDER.md says what this cannot express).
// Numbered together, with the thread's deferred reads (docs/RECORDER.md, "How records are
// ordered").
inline void atomic_events(Ctx* c, uint64_t addr, bool acq, bool rel, uint64_t pc) {
  fmt::RawRecord* const first = reserve(c, 3);
  fmt::RawRecord* r = first;
  if (acq) fill(r++, fmt::kRecv, addr, pc);
  fill(r++, fmt::kRead, addr, pc);
  if (rel) fill(r, fmt::kSend, addr, pc);
  commit_held(c, first, 1u + acq + rel, stripe_of(addr));
}
// A relaxed access: no order and no stripe; a load is remembered for a later acquire fence.
inline void relaxed_event(Ctx* c, uint64_t addr, bool load, uint64_t pc) {
  if (load) c->load_addrs[c->relaxed_loads++ % kFenceLoads] = addr;
  put(c, fmt::kRead, addr, pc, true);  // deferred like a plain read: one number with the next
}

// A store that releases, done under its stripe lock: on x86-64 a plain store (mov), which cost
// a quarter of an xchg's time in atomics_bench.c. With the global counter (under a scheduler)
// the counter's locked increment follows it, a full barrier: as sequentially consistent as the
// xchg. With Lamport timestamps nothing locked follows, so a seq_cst store stays an xchg and a
// release store is a release store. Elsewhere the store stays seq_cst.
#if defined(__x86_64__)
constexpr int kNumberedStore = __ATOMIC_RELEASE;
#else
constexpr int kNumberedStore = __ATOMIC_SEQ_CST;
#endif

// The older, plain model, kept only to measure what the memory orders cost (a runtime built
// with RACEPRED_RT_LOCK_ATOMICS: bench/recorder/overhead.sh, docs/RECORDER.md "Overhead"):
// every atomic operation on A, whatever its order, is a section of a lock of its own for A
// (the address with fmt::kAtomicLockBit), acq(A') [r(A)] [w(A)] rel(A'), done and numbered
// under A's stripe lock; fences are nothing. Relaxed atomics then synchronise, and atomic
// writes race with plain reads, so recordings made with it are for speed measurements only.
#ifdef RACEPRED_RT_LOCK_ATOMICS
constexpr bool kLockModel = true;
#else
constexpr bool kLockModel = false;
#endif
inline void lock_section_events(Ctx* c, uint64_t addr, bool read, bool write, uint64_t pc) {
  fmt::RawRecord* const first = reserve(c, 4);
  fmt::RawRecord* r = first;
  fill(r++, fmt::kAcquire, addr | fmt::kAtomicLockBit, pc);
  if (read) fill(r++, fmt::kRead, addr, pc);
  if (write) fill(r++, fmt::kWrite, addr, pc);
  fill(r, fmt::kRelease, addr | fmt::kAtomicLockBit, pc);
  commit_held(c, first, 2u + read + write, stripe_of(addr));
}

// `op(plain_store)` does the operation (sequentially consistent: the strongest, whatever the
// order asked; `plain_store`: a store may be kNumberedStore, see there); load/store:
// what it does (a read-modify-write both).
template <typename T, typename Op>
inline T atomic_op(volatile T* a, int mo, bool load, bool store, uint64_t pc, Op op) {
  const uint64_t addr = reinterpret_cast<uintptr_t>(a);
  sched_before(kOpAtomic, addr);
  // confirm may hold a thread at an atomic access that races with a plain one.
  sched_access(const_cast<const T*>(a), pc);
  Ctx* c = enter();
  if (!c) return op(false);
  if constexpr (kLockModel) {
    int* s = stripe(a);
    spin_lock(s);
    const T result = op(false);
    lock_section_events(c, addr, load, store, pc);
    spin_unlock(s);
    leave(c);
    return result;
  }
  const bool acq = load && acquires(mo);
  const bool rel = store && (releases(mo) || c->release_fenced);
  T result;
  if (acq || rel) {
    int* s = stripe(a);
    spin_lock(s);
    // A store that releases may be a plain store when a locked instruction follows it (the
    // counter's increment) or when it need not be sequentially consistent (Lamport mode: the
    // stripe lock keeps it in its real order among the operations on its address).
    result = op(!g_lamport || base_order(mo) != 5);
    atomic_events(c, addr, acq, rel, pc);
    spin_unlock(s);
  } else {
    result = op(false);
    relaxed_event(c, addr, load, pc);
  }
  leave(c);
  return result;
}

// A compare-exchange: on success a read-modify-write with order `mo`, on failure a load with
// order `fail_mo`.
template <typename T>
inline bool atomic_cas(volatile T* a, T* expected, T v, int mo, int fail_mo, uint64_t pc) {
  const uint64_t addr = reinterpret_cast<uintptr_t>(a);
  sched_before(kOpAtomic, addr);
  sched_access(const_cast<const T*>(a), pc);
  Ctx* c = enter();
  if (!c)
    return __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  if constexpr (kLockModel) {
    int* s = stripe(a);
    spin_lock(s);
    const bool ok =
        __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    lock_section_events(c, addr, true, ok, pc);
    spin_unlock(s);
    leave(c);
    return ok;
  }
  const bool orders = acquires(mo) || releases(mo) || acquires(fail_mo) || c->release_fenced;
  int* s = stripe(a);
  if (orders) spin_lock(s);
  const bool ok =
      __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  const bool acq = acquires(ok ? mo : fail_mo);
  const bool rel = ok && (releases(mo) || c->release_fenced);
  if (orders) {
    atomic_events(c, addr, acq, rel, pc);
    if (!acq) c->load_addrs[c->relaxed_loads++ % kFenceLoads] = addr;
    spin_unlock(s);
  } else {
    relaxed_event(c, addr, true, pc);
  }
  leave(c);
  return ok;
}
}  // namespace racepred_rt

using namespace racepred_rt;

#define RP_ATOMIC_OPS(bits, T)                                                                   \
  RP_EXPORT T __tsan_atomic##bits##_load(const volatile T* a, int mo) {                          \
    return atomic_op<T>(const_cast<volatile T*>(a), mo, true, false, RP_PC(),                    \
                        [&](bool) { return __atomic_load_n(a, __ATOMIC_SEQ_CST); });             \
  }                                                                                              \
  RP_EXPORT void __tsan_atomic##bits##_store(volatile T* a, T v, int mo) {                       \
    atomic_op<T>(a, mo, false, true, RP_PC(), [&](bool plain_store) {                            \
      if (plain_store)                                                                           \
        __atomic_store_n(a, v, kNumberedStore);                                                  \
      else                                                                                       \
        __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                \
      return T{};                                                                                \
    });                                                                                          \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_exchange(volatile T* a, T v, int mo) {                       \
    return atomic_op<T>(a, mo, true, true, RP_PC(),                                              \
                        [&](bool) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); });      \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_add(volatile T* a, T v, int mo) {                      \
    return atomic_op<T>(a, mo, true, true, RP_PC(),                                              \
                        [&](bool) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); });       \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_sub(volatile T* a, T v, int mo) {                      \
    return atomic_op<T>(a, mo, true, true, RP_PC(),                                              \
                        [&](bool) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); });       \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_and(volatile T* a, T v, int mo) {                      \
    return atomic_op<T>(a, mo, true, true, RP_PC(),                                              \
                        [&](bool) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); });       \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_or(volatile T* a, T v, int mo) {                       \
    return atomic_op<T>(a, mo, true, true, RP_PC(),                                              \
                        [&](bool) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); });        \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_xor(volatile T* a, T v, int mo) {                      \
    return atomic_op<T>(a, mo, true, true, RP_PC(),                                              \
                        [&](bool) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); });       \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_fetch_nand(volatile T* a, T v, int mo) {                     \
    return atomic_op<T>(a, mo, true, true, RP_PC(),                                              \
                        [&](bool) { return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST); });      \
  }                                                                                              \
  RP_EXPORT int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* expected, T v,   \
                                                              int mo, int fmo) {                 \
    return atomic_cas<T>(a, expected, v, mo, fmo, RP_PC());                                      \
  }                                                                                              \
  RP_EXPORT int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* expected, T v,     \
                                                            int mo, int fmo) {                   \
    return atomic_cas<T>(a, expected, v, mo, fmo, RP_PC());                                      \
  }                                                                                              \
  RP_EXPORT T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T expected, T v, int mo, \
                                                         int fmo) {                              \
    atomic_cas<T>(a, &expected, v, mo, fmo, RP_PC());                                            \
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

// Fences: a release fence makes every later relaxed store of the thread a release (a fence
// before a store synchronises with an acquire that reads it, or any later store); an acquire
// fence receives on the addresses the thread loaded relaxed since its previous acquire fence
// (the last kFenceLoads of them). seq_cst fences are both.
RP_EXPORT void __tsan_atomic_thread_fence(int mo) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if constexpr (kLockModel) return;
  Ctx* c = enter();
  if (!c) return;
  if (releases(mo)) c->release_fenced = 1;
  if (acquires(mo)) {
    const uint32_t n = c->relaxed_loads < kFenceLoads ? c->relaxed_loads : kFenceLoads;
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t a = c->load_addrs[i];
      bool seen = false;
      for (uint32_t j = 0; j < i; ++j) seen |= c->load_addrs[j] == a;
      if (!seen) recv_after_atomics(c, reinterpret_cast<const volatile void*>(a), RP_PC());
    }
    c->relaxed_loads = 0;
  }
  leave(c);
}
RP_EXPORT void __tsan_atomic_signal_fence(int) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
