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

// A range access (mem*, libc's accesses, __tsan_*_range): one record with the length in the
// next record, whatever the length; `racepred record` turns it into the accesses of the
// variables the recording has inside the range (docs/RECORDER.md, "Access sizes").
void range(uint8_t op, const void* a, size_t n, uint64_t pc) {
  if (n == 0 || t_in_rt) return;
  if (scheduling()) sched_every_access(a, op == fmt::kWrite, fmt::kSizeRange);
  sched_access(a, pc);  // confirm may hold a thread at a memcpy as at a plain access
  Ctx* c = enter();
  if (!c) return;
  put_sized(c, fmt::raw_access(op, fmt::kSizeRange), reinterpret_cast<uintptr_t>(a), n, pc);
  leave(c);
}

// A sized access: the size code is a constant of each entry point (no cost on the hot path).
template <uint8_t kOp, uint8_t kSize>
__attribute__((always_inline)) inline void access(const void* a, uint64_t pc) {
  if (scheduling()) sched_every_access(a, kOp == fmt::kWrite, kSize);
  sched_access(a, pc);
  Ctx* c = enter();
  if (!c) return;
  put(c, fmt::raw_access(kOp, kSize), reinterpret_cast<uintptr_t>(a), pc, kOp == fmt::kRead);
  leave(c);
}

inline void alloc_record(void* p, size_t size, uint64_t pc) {
  if (!p || t_in_rt) return;
  Ctx* c = enter();
  if (!c) return;
  put_sized(c, fmt::kRawAlloc, reinterpret_cast<uintptr_t>(p), size, pc);
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

#define RP_ACCESS(name, op, size) \
  RP_EXPORT void name(void* a) {  \
    access<op, size>(a, RP_PC()); \
  }
#define RP_ACCESS_SIZES(prefix, op)     \
  RP_ACCESS(prefix##1, op, fmt::kSize1) \
  RP_ACCESS(prefix##2, op, fmt::kSize2) \
  RP_ACCESS(prefix##4, op, fmt::kSize4) \
  RP_ACCESS(prefix##8, op, fmt::kSize8) \
  RP_ACCESS(prefix##16, op, fmt::kSize16)
#define RP_UNALIGNED_SIZES(prefix, op)  \
  RP_ACCESS(prefix##2, op, fmt::kSize2) \
  RP_ACCESS(prefix##4, op, fmt::kSize4) \
  RP_ACCESS(prefix##8, op, fmt::kSize8) \
  RP_ACCESS(prefix##16, op, fmt::kSize16)
RP_ACCESS_SIZES(__tsan_read, fmt::kRead)
RP_ACCESS_SIZES(__tsan_write, fmt::kWrite)
RP_ACCESS_SIZES(__tsan_volatile_read, fmt::kRead)
RP_ACCESS_SIZES(__tsan_volatile_write, fmt::kWrite)
RP_UNALIGNED_SIZES(__tsan_unaligned_read, fmt::kRead)
RP_UNALIGNED_SIZES(__tsan_unaligned_write, fmt::kWrite)
RP_UNALIGNED_SIZES(__tsan_unaligned_volatile_read, fmt::kRead)
RP_UNALIGNED_SIZES(__tsan_unaligned_volatile_write, fmt::kWrite)
RP_ACCESS(__tsan_vptr_read, fmt::kRead, fmt::kSize8)

#define RP_READ_WRITE(name, size)                                                             \
  RP_EXPORT void name(void* a) {                                                              \
    Ctx* c = enter();                                                                         \
    if (!c) return;                                                                           \
    fmt::RawRecord* r = reserve(c, 2);                                                        \
    fill(r, fmt::raw_access(fmt::kRead, size), reinterpret_cast<uintptr_t>(a), RP_PC());      \
    fill(r + 1, fmt::raw_access(fmt::kWrite, size), reinterpret_cast<uintptr_t>(a), RP_PC()); \
    commit(c, r, 2);                                                                          \
    leave(c);                                                                                 \
  }
RP_READ_WRITE(__tsan_read_write1, fmt::kSize1)
RP_READ_WRITE(__tsan_read_write2, fmt::kSize2)
RP_READ_WRITE(__tsan_read_write4, fmt::kSize4)
RP_READ_WRITE(__tsan_read_write8, fmt::kSize8)
RP_READ_WRITE(__tsan_read_write16, fmt::kSize16)
RP_READ_WRITE(__tsan_unaligned_read_write2, fmt::kSize2)
RP_READ_WRITE(__tsan_unaligned_read_write4, fmt::kSize4)
RP_READ_WRITE(__tsan_unaligned_read_write8, fmt::kSize8)
RP_READ_WRITE(__tsan_unaligned_read_write16, fmt::kSize16)

RP_EXPORT void __tsan_vptr_update(void** a, void*) {
  access<fmt::kWrite, fmt::kSize8>(a, RP_PC());
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
