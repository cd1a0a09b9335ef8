// The __tsan_atomic* entry points (docs/RECORDER.md, "Atomics: the lock-per-address model").
#include "racepred/recorder/rt.hpp"

namespace racepred_rt {

// Pulled into every link by buffers.cpp (linked_parts): a static archive's member is linked
// only for symbols the program's objects reference, never for libraries' references.
extern const char kPart_atomics = 0;
template <typename T, typename Op>
inline T atomic_op(volatile T* a, bool read, bool write, uint64_t pc, Op op) {
  sched_before(kOpAtomic, reinterpret_cast<uintptr_t>(a));
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
}  // namespace racepred_rt

using namespace racepred_rt;

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
    sched_before(kOpAtomic, reinterpret_cast<uintptr_t>(a));                                     \
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
