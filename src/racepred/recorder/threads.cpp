// Interceptors of thread creation, join and detach, and the pthread_t -> tid table
// (docs/RECORDER.md).
#include "racepred/recorder/rt.hpp"

extern "C" void __tsan_init(void);

namespace racepred_rt {

// Pulled into every link by buffers.cpp (linked_parts): a static archive's member is linked
// only for symbols the program's objects reference, never for libraries' references.
extern const char kPart_threads = 0;
namespace {
struct TidSlot {
  uint64_t thread;  // pthread_t; 0 empty, 1 deleted
  uint32_t tid;
};
TidSlot g_tids[kTidSlots];
}  // namespace

DECLARE_REAL(int, pthread_create, pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
DECLARE_REAL(int, pthread_join, pthread_t, void**);
DECLARE_REAL(int, pthread_detach, pthread_t);

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

// ---- thread creation ----
struct StartArg {
  void* (*fn)(void*);
  void* arg;
  uint32_t tid;
  uint64_t clock;  // Lamport mode: the fork's timestamp, the child's starting clock
};

DECLARE_REAL(int, sched_yield);
DECLARE_REAL(unsigned, sleep, unsigned);
DECLARE_REAL(int, usleep, useconds_t);
DECLARE_REAL(int, nanosleep, const struct timespec*, struct timespec*);
DECLARE_REAL(int, clock_nanosleep, clockid_t, int, const struct timespec*, struct timespec*);

// The thread's stack, for names ("stack of T2"; docs/RECORDER.md, "Names").
static void record_stack() {
  pthread_attr_t attr;
  void* low = nullptr;
  size_t size = 0;
  {
    Busy busy;  // pthread_getattr_np allocates
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    const int rc = pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
    if (rc != 0) return;
  }
  Ctx* c = enter();
  if (!c) return;
  put_sized(c, fmt::kRawStack, reinterpret_cast<uintptr_t>(low), size, 0);
  leave(c);
}

static void* thread_start(void* p) {
  StartArg a = *static_cast<StartArg*>(p);
  __libc_free(p);
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) == 1) {
    Ctx* c = new_ctx(a.tid, a.clock);
    if (c) {
      t_ctx = c;
      pthread_setspecific(g_key, c);
      tid_insert(pthread_self(), a.tid);
      sched_thread_started(a.tid);  // under a scheduler: runs when chosen
      record_stack();
    }
  }
  void* result = a.fn(a.arg);
  sched_thread_exited(a.tid);
  return result;
}

// True for a module of the system (under /usr/ or /lib, and not the executable, which holds
// the runtime): its code is not the user's.
static bool system_module(const Dl_info& info) {
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
static UserPc user_pc(uint64_t pc) {
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
static void located_event(uint8_t op, uint64_t target, UserPc where) {
  if (where.caller) event(fmt::kRawCaller, where.caller, 0);
  event(op, target, where.pc);
}
}  // namespace racepred_rt

using namespace racepred_rt;

RP_EXPORT int pthread_create(pthread_t* th, const pthread_attr_t* attr, void* (*fn)(void*),
                             void* arg) {
  auto real_create = REAL(pthread_create);
  Ctx* c = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE) == 1 ? ctx() : nullptr;
  if (!c) return real_create(th, attr, fn, arg);
  StartArg* a = static_cast<StartArg*>(__libc_malloc(sizeof(StartArg)));
  if (!a) return real_create(th, attr, fn, arg);
  sched_before(kOpThreadCreate, 0);
  a->fn = fn;
  a->arg = arg;
  a->tid = __atomic_fetch_add(&g_next_tid, 1, __ATOMIC_RELAXED);
  // fork takes its sequence number before the child can run.
  located_event(fmt::kFork, a->tid, user_pc(RP_PC()));
  a->clock = c->clock;
  sched_thread_created(a->tid);
  // The child frees `a` (thread_start) and may reuse its memory before real_create returns.
  const uint32_t tid = a->tid;
  int rc;
  {
    Busy busy;  // ld.so allocates the child's TLS through malloc: not the program's events
    rc = real_create(th, attr, thread_start, a);
  }
  sched_after(kOpThreadCreate, tid, 0, rc);
  if (rc != 0) {
    __libc_free(a);  // the fork event stays: a thread without events is harmless
  } else {
    tid_insert(*th, tid);
  }
  return rc;
}

RP_EXPORT int pthread_join(pthread_t th, void** ret) {
  const uint32_t tid = tid_find(th, false);
  sched_before(kOpThreadJoin, tid == UINT32_MAX ? 0 : tid + 1);  // not enabled until it ends
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

// Sleeps and yields: scheduling points. Under a scheduler a sleep is a choice, not real time:
// the sleeping thread runs again when no other thread is enabled, and the sleep returns at once.
RP_EXPORT int sched_yield(void) {
  if (scheduling()) return sched_before(kOpYield, 0), 0;
  return REAL(sched_yield)();
}
RP_EXPORT unsigned sleep(unsigned s) {
  if (scheduling()) return sched_before(kOpSleep, 0), 0u;
  return REAL(sleep)(s);
}
RP_EXPORT int usleep(useconds_t us) {
  if (scheduling()) return sched_before(kOpSleep, 0), 0;
  return REAL(usleep)(us);
}
RP_EXPORT int nanosleep(const struct timespec* t, struct timespec* rem) {
  if (scheduling()) return sched_before(kOpSleep, 0), 0;
  return REAL(nanosleep)(t, rem);
}
RP_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec* t,
                              struct timespec* rem) {
  if (scheduling()) return sched_before(kOpSleep, 0), 0;
  return REAL(clock_nanosleep)(clock, flags, t, rem);
}
