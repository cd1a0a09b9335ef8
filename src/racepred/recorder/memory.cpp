// Memory accesses (the __tsan_read*/write* entry points and ranges), the allocator and mem*
// (docs/RECORDER.md). The access entry points are the hot path: enter/put/leave are inline.
#include "racepred/recorder/rt.hpp"

namespace racepred_rt {

// Pulled into every link by buffers.cpp (linked_parts): a static archive's member is linked
// only for symbols the program's objects reference, never for libraries' references.
extern const char kPart_memory = 0;
DECLARE_REAL(void*, _Znwm, size_t);
DECLARE_REAL(void*, _Znam, size_t);
DECLARE_REAL(void, _ZdlPv, void*);
DECLARE_REAL(void, _ZdaPv, void*);
DECLARE_REAL(void, _ZdlPvm, void*, size_t);
DECLARE_REAL(void, _ZdaPvm, void*, size_t);

// A range access: one event per 8-byte granule from the start address (at most
// kRangeGranules: a longer range records its first granules only; docs/RECORDER.md).
static void range(uint8_t op, const void* a, size_t n, uint64_t pc) {
  if (n == 0 || t_in_rt) return;
  Ctx* c = enter();
  if (!c) return;
  const uint64_t start = reinterpret_cast<uintptr_t>(a);
  uint64_t granules = (n + 7) / 8;
  if (granules > kRangeGranules) granules = kRangeGranules;
  for (uint64_t i = 0; i < granules; ++i) put(c, op, start + 8 * i, pc, false);
  leave(c);
}

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
}  // namespace racepred_rt

using namespace racepred_rt;

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

RP_EXPORT void __tsan_read_range(void* a, unsigned long n) {
  range(fmt::kRead, a, n, RP_PC());
}
RP_EXPORT void __tsan_write_range(void* a, unsigned long n) {
  range(fmt::kWrite, a, n, RP_PC());
}

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
