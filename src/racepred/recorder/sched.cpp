// The blocking model behind the scheduling hooks (sched.hpp) and the serial scheduler
// (RACEPRED_SCHEDULE=serial): one application thread runs at a time, and at every hook the
// next one is chosen round-robin among the enabled threads; when none is enabled and none can
// time out, the run ends with a message naming each thread and what it waits for.
// Nothing here runs unless a scheduler is set: the model is kept only then.
#include "racepred/recorder/sched.hpp"

#include "racepred/recorder/rt.hpp"

namespace racepred_rt {

extern const char kPart_sched = 0;

const Scheduler* g_scheduler;
bool g_schedule_accesses;
bool g_schedule_spurious;

namespace {

enum ThreadState : uint8_t { kUnknown, kAlive, kFinished, kGone };

struct Thread {
  uint8_t state;
  uint8_t op;  // what it waits at; kOpNone while it runs or before it starts
  uint8_t signalled;
  uint8_t timed_out;  // chosen to time out
  uint8_t serial;     // its barrier wait completed the round
  uint8_t offered;    // offered beside enabled threads: a timeout, or a spurious wake-up
  int go;             // futex word: 1 = its turn
  uintptr_t obj, obj2;
  uint64_t ticket;  // condition wait: arrival order; barrier wait: the round it waits in
};

// An object of the model: a mutex, spin lock, rwlock, FILE, barrier or initialiser.
struct Object {
  uintptr_t addr;
  uint32_t owner;  // tid + 1 of the holder (writer), 0: free
  uint32_t depth;  // recursive holds
  uint32_t readers;
  uint32_t count;  // barrier: threads per round
  uint32_t arrivals;
  uint64_t round;
};

constexpr uint32_t kObjects = 1u << 14;

Thread g_threads[kMaxThreads];
Object g_objects[kObjects];
uint32_t g_thread_end;  // tids below it may be scheduled
uint64_t g_tickets;
int g_lock;

Object* object(uintptr_t addr, bool insert) {
  if (!addr) return nullptr;
  for (uint32_t i = 0; i < kObjects; ++i) {
    Object& o = g_objects[(((addr >> 3) * 0x9E3779B97F4A7C15ULL >> 50) + i) & (kObjects - 1)];
    if (o.addr == addr) return &o;
    if (o.addr == 0) {
      if (!insert) return nullptr;
      o.addr = addr;
      return &o;
    }
  }
  return nullptr;  // full: the object is not modelled (its operations are always enabled)
}

bool lock_free_for(const Object* o, uint32_t tid, bool reentrant) {
  return !o || o->owner == 0 || (reentrant && o->owner == tid + 1);
}

// Would the thread's operation proceed without blocking?
bool enabled(uint32_t tid) {
  const Thread& t = g_threads[tid];
  switch (t.op) {
    case kOpMutexLock:
    case kOpMutexTimedlock:
      return lock_free_for(object(t.obj, false), tid, t.obj2 != 0);
    case kOpFileLock:
    case kOpOnce:
      return lock_free_for(object(t.obj, false), tid, true);
    case kOpRdlock:
    case kOpTimedRdlock:
      return lock_free_for(object(t.obj, false), tid, false);
    case kOpWrlock:
    case kOpTimedWrlock: {
      const Object* o = object(t.obj, false);
      return !o || (o->owner == 0 && o->readers == 0);
    }
    case kOpThreadJoin: {
      const uint32_t target = static_cast<uint32_t>(t.obj - 1);
      return t.obj == 0 || target >= g_thread_end || g_threads[target].state != kAlive;
    }
    case kOpCondWait:
    case kOpCondTimedWait:
      return t.signalled && lock_free_for(object(t.obj2, false), tid, false);
    case kOpSemWait:
    case kOpSemTimedwait: {
      int v = 0;
      sem_getvalue(reinterpret_cast<sem_t*>(t.obj), &v);
      return v > 0;
    }
    case kOpBarrierWait: {
      const Object* o = object(t.obj, false);
      return !o || o->round != t.ticket;
    }
    case kOpSleep:
      return false;
    default:
      return true;
  }
}

// May the thread's operation end as a timeout (when no thread is enabled)?
bool can_time_out(uint32_t tid) {
  const Thread& t = g_threads[tid];
  switch (t.op) {
    case kOpMutexTimedlock:
    case kOpTimedRdlock:
    case kOpTimedWrlock:
    case kOpSemTimedwait:
    case kOpSleep:
      return true;
    case kOpCondTimedWait:
      return lock_free_for(object(t.obj2, false), tid, false);
    default:
      return false;
  }
}

// ---- the serial scheduler: round-robin from the thread after the current one ----
uint32_t serial_pick(const uint32_t* tids, uint32_t n, uint32_t current, bool) {
  for (uint32_t i = 0; i < n; ++i)
    if (tids[i] > current) return i;
  return 0;
}
const Scheduler kSerial = {serial_pick, nullptr};

// ---- the message when every thread is blocked ----
struct Text {
  char buf[8192];
  size_t n = 0;
  void add(const char* s) {
    while (*s && n + 1 < sizeof buf) buf[n++] = *s++;
  }
  void num(uint64_t v) {
    char d[24];
    int k = 0;
    do {
      d[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    while (k && n + 1 < sizeof buf) buf[n++] = d[--k];
  }
  void hex(uint64_t v) {
    add("0x");
    char d[16];
    int k = 0;
    do {
      d[k++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    while (k && n + 1 < sizeof buf) buf[n++] = d[--k];
  }
  void holder(const Object* o) {
    if (o && o->owner) {
      add(" held by T");
      num(o->owner - 1);
    } else if (o && o->readers) {
      add(" held by ");
      num(o->readers);
      add(" reader(s)");
    }
  }
};

void describe(Text& s, uint32_t tid) {
  const Thread& t = g_threads[tid];
  s.add("  T");
  s.num(tid);
  s.add(" waits for ");
  const Object* o = object(t.obj, false);
  switch (t.op) {
    case kOpMutexLock:
      s.add("mutex ");
      s.hex(t.obj);
      s.holder(o);
      if (o && o->owner == tid + 1) s.add(" (itself: a relock of a non-recursive mutex)");
      break;
    case kOpFileLock:
      s.add("FILE lock ");
      s.hex(t.obj);
      s.holder(o);
      break;
    case kOpOnce:
      s.add("the initialiser at ");
      s.hex(t.obj);
      s.add(" run by T");
      s.num(o && o->owner ? o->owner - 1 : 0);
      break;
    case kOpRdlock:
    case kOpWrlock:
      s.add(t.op == kOpRdlock ? "read lock of rwlock " : "write lock of rwlock ");
      s.hex(t.obj);
      s.holder(o);
      break;
    case kOpThreadJoin:
      s.add("join of T");
      s.num(t.obj - 1);
      s.add(t.obj - 1 == tid ? " (itself)" : " (still running)");
      break;
    case kOpCondWait:
      if (!t.signalled) {
        s.add("a signal of condition variable ");
        s.hex(t.obj);
      } else {
        s.add("mutex ");
        s.hex(t.obj2);
        s.add(" after a signal");
        s.holder(object(t.obj2, false));
      }
      break;
    case kOpSemWait:
      s.add("semaphore ");
      s.hex(t.obj);
      s.add(" (count 0)");
      break;
    case kOpBarrierWait:
      s.add("barrier ");
      s.hex(t.obj);
      if (o) {
        s.add(" (");
        s.num(o->arrivals);
        s.add(" of ");
        s.num(o->count);
        s.add(" arrived)");
      }
      break;
    default:
      s.add("operation ");
      s.num(t.op);
      break;
  }
  s.add("\n");
}

[[noreturn]] void report_all_blocked() {
  Text s;
  s.add(g_scheduler == &kSerial
            ? "racepred: serial schedule: all threads blocked (deadlock):\n"
            : "racepred: controlled schedule: all threads blocked (deadlock):\n");
  for (uint32_t t = 0; t < g_thread_end; ++t)
    if (g_threads[t].state == kAlive) describe(s, t);
  s.add("racepred: the recording ends here (exit status 125)\n");
  write_fully(2, s.buf, s.n);
  if (g_scheduler->all_blocked) g_scheduler->all_blocked(s.buf, s.n);
  finish_all(true);
  syscall(SYS_exit_group, 125);
  __builtin_unreachable();
}

// Chooses the next thread (caller holds g_lock): an enabled one, else one that times out.
uint32_t choose(uint32_t current) {
  // Static (the caller holds g_lock), not 16 KiB of each thread's stack: a new thread would
  // fault in those stack pages (probed page by page) at its first hook.
  static uint32_t tids[kMaxThreads > 4096 ? 4096 : kMaxThreads];
  const uint32_t cap = sizeof tids / sizeof tids[0];
  for (int pass = 0; pass < 2; ++pass) {
    uint32_t n = 0;
    bool at_access = false;
    for (uint32_t t = 0; t < g_thread_end && n < cap; ++t) {
      g_threads[t].offered = 0;
      if (g_threads[t].state == kAlive && (pass == 0 ? enabled(t) : can_time_out(t))) {
        tids[n++] = t;
        at_access |= g_threads[t].op == kOpAccess;
      }
    }
    // A thread held at a memory access point (racepred confirm) may wait for a sleeping one:
    // timed operations are offered beside the enabled threads then, flagged, in tid order.
    if (pass == 0 && at_access) {
      for (uint32_t t = 0; t < g_thread_end && n < cap; ++t)
        if (g_threads[t].state == kAlive && !enabled(t) && can_time_out(t)) {
          uint32_t at = n++;
          while (at > 0 && tids[at - 1] > t) {
            tids[at] = tids[at - 1];
            --at;
          }
          tids[at] = t;
          g_threads[t].offered = 1;
        }
    }
    // Spurious wake-ups (RACEPRED_SCHEDULE_SPURIOUS): an untimed condition wait that no signal
    // woke (a timed one can time out already), whose mutex is free, is offered beside the
    // enabled threads (never alone: when no thread is enabled the run is blocked, not woken).
    if (pass == 0 && n && g_schedule_spurious) {
      for (uint32_t t = 0; t < g_thread_end && n < cap; ++t) {
        const Thread& w = g_threads[t];
        if (w.state != kAlive || w.offered || w.signalled || w.op != kOpCondWait ||
            !lock_free_for(object(w.obj2, false), t, false))
          continue;
        uint32_t at = n++;
        while (at > 0 && tids[at - 1] > t) {
          tids[at] = tids[at - 1];
          --at;
        }
        tids[at] = t;
        g_threads[t].offered = 1;
      }
    }
    if (n) {
      const uint32_t next = tids[g_scheduler->pick(tids, n, current, pass == 1)];
      if (pass == 1 || g_threads[next].offered) g_threads[next].timed_out = 1;
      return next;
    }
  }
  for (uint32_t t = 0; t < g_thread_end; ++t)
    if (g_threads[t].state == kAlive) report_all_blocked();
  return UINT32_MAX;  // no thread is left
}

// Thread::go: 1 its turn, 0 not, 2 not and it sleeps (or is about to) in the futex: only then
// does the hand-over pay the wake-up system call.
void wake(uint32_t tid) {
  if (__atomic_exchange_n(&g_threads[tid].go, 1, __ATOMIC_RELEASE) == 2)
    syscall(SYS_futex, &g_threads[tid].go, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void wait_turn(uint32_t tid) {
  int* go = &g_threads[tid].go;
  for (;;) {
    int v = __atomic_load_n(go, __ATOMIC_ACQUIRE);
    if (v == 1) return;
    if (v == 0 &&
        !__atomic_compare_exchange_n(go, &v, 2, false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
      continue;  // woken meanwhile
    syscall(SYS_futex, go, FUTEX_WAIT_PRIVATE, 2, nullptr, nullptr, 0);
  }
}

// The calling thread's tid when the scheduler runs it, else UINT32_MAX.
uint32_t scheduled_tid() {
  Ctx* c = t_ctx;
  if (!c || c->tid >= g_thread_end || g_threads[c->tid].state != kAlive) return UINT32_MAX;
  return c->tid;
}

}  // namespace

int sched_before_slow(VisibleOp op, uintptr_t obj, uintptr_t obj2) {
  InRuntime in_runtime;
  sleep_lock(&g_lock);
  const uint32_t tid = scheduled_tid();
  if (tid == UINT32_MAX) {
    sleep_unlock(&g_lock);
    return kProceed;
  }
  // The thread's deferred reads take their sequence numbers now, before another thread runs:
  // the recording's order is then the order in which the scheduler ran the events.
  if (Ctx* c = t_ctx; c && c->buf && !c->ended && c->pending) number_pending(c, 0);
  Thread& me = g_threads[tid];
  me.op = op;
  me.obj = obj;
  me.obj2 = obj2;
  me.timed_out = 0;
  me.serial = 0;
  if (op == kOpCondWait || op == kOpCondTimedWait) {
    me.signalled = 0;
    me.ticket = ++g_tickets;
  } else if (op == kOpBarrierWait) {
    if (Object* b = object(obj, false)) {
      me.ticket = b->round;
      if (b->count && ++b->arrivals >= b->count) {
        b->arrivals = 0;
        ++b->round;
        me.serial = 1;
      }
    }
  }
  const uint32_t next = choose(tid);
  if (next != tid) {
    __atomic_store_n(&me.go, 0, __ATOMIC_RELAXED);
    // The model's lock is released before the next thread is woken, so that it does not
    // wake only to wait for the lock (two more context switches per hand-over).
    sleep_unlock(&g_lock);
    wake(next);
    wait_turn(tid);
    sleep_lock(&g_lock);
  }
  // A condition wait chosen while unsignalled wakes spuriously (it returns 0, not a timeout).
  const int result = me.timed_out ? (op == kOpCondWait ? kProceed : kTimedOut)
                     : me.serial  ? kBarrierSerial
                                  : kProceed;
  me.op = kOpNone;
  sleep_unlock(&g_lock);
  return result;
}

void sched_after_slow(VisibleOp op, uintptr_t obj, uintptr_t obj2, int rc) {
  InRuntime in_runtime;
  Ctx* c = t_ctx;
  if (!c || c->tid >= kMaxThreads) return;
  const uint32_t self = c->tid + 1;
  sleep_lock(&g_lock);
  switch (op) {
    case kOpThreadCreate:  // obj: the child's tid; it never started when rc != 0
      if (rc != 0 && obj < kMaxThreads) g_threads[obj].state = kFinished;
      break;
    case kOpMutexLock:
    case kOpMutexTrylock:
    case kOpMutexTimedlock:
    case kOpFileLock:
      if (rc == 0) {
        if (Object* o = object(obj, true)) {
          if (o->owner == self) {
            ++o->depth;
          } else {
            o->owner = self;
            o->depth = 1;
          }
        }
      }
      break;
    case kOpMutexUnlock:
    case kOpFileUnlock:
      if (Object* o = object(obj, false); o && o->owner == self && --o->depth == 0) o->owner = 0;
      break;
    case kOpRdlock:
    case kOpTryRdlock:
    case kOpTimedRdlock:
      if (rc == 0)
        if (Object* o = object(obj, true)) ++o->readers;
      break;
    case kOpWrlock:
    case kOpTryWrlock:
    case kOpTimedWrlock:
      if (rc == 0)
        if (Object* o = object(obj, true)) o->owner = self;
      break;
    case kOpRwUnlockRead:
      if (Object* o = object(obj, false); o && o->readers) --o->readers;
      break;
    case kOpRwUnlockWrite:
      if (Object* o = object(obj, false); o && o->owner == self) o->owner = 0;
      break;
    case kOpCondSignal:
    case kOpCondBroadcast: {
      // Signal: the longest-waiting unsignalled waiter; broadcast: all of them.
      uint32_t first = UINT32_MAX;
      for (uint32_t t = 0; t < g_thread_end; ++t) {
        Thread& w = g_threads[t];
        if (w.state != kAlive || w.signalled || w.obj != obj ||
            (w.op != kOpCondWait && w.op != kOpCondTimedWait))
          continue;
        if (op == kOpCondBroadcast)
          w.signalled = 1;
        else if (first == UINT32_MAX || w.ticket < g_threads[first].ticket)
          first = t;
      }
      if (first != UINT32_MAX) g_threads[first].signalled = 1;
      break;
    }
    case kOpBarrierInit:
      if (rc == 0)
        if (Object* o = object(obj, true)) {
          o->count = static_cast<uint32_t>(obj2);
          o->arrivals = 0;
        }
      break;
    case kOpOnce:  // rc 1: the caller runs the initialiser
      if (rc == 1)
        if (Object* o = object(obj, true)) o->owner = self;
      break;
    case kOpOnceEnd:
      if (Object* o = object(obj, false); o && o->owner == self) o->owner = 0;
      break;
    default:
      break;
  }
  sleep_unlock(&g_lock);
}

void sched_thread_created(uint32_t child) {
  if (!scheduling() || child >= kMaxThreads) return;
  sleep_lock(&g_lock);
  if (scheduled_tid() != UINT32_MAX) {
    Thread& t = g_threads[child];
    t.state = kAlive;
    t.op = kOpNone;
    t.go = 0;
    if (child >= g_thread_end) g_thread_end = child + 1;
  }
  sleep_unlock(&g_lock);
}

void sched_thread_started(uint32_t tid) {
  if (!scheduling() || tid >= g_thread_end) return;
  if (__atomic_load_n(&g_threads[tid].state, __ATOMIC_ACQUIRE) == kAlive) wait_turn(tid);
}

void sched_thread_exited(uint32_t tid) {
  if (!scheduling()) return;
  InRuntime in_runtime;
  // Its last reads wait for a sequence number (put): they take it now, while the thread still
  // runs alone, not in its flush, which runs beside the next thread.
  if (Ctx* c = t_ctx; c && c->buf && !c->ended) number_pending(c, 0);
  sleep_lock(&g_lock);
  uint32_t next = UINT32_MAX;
  if (scheduled_tid() == tid) {
    g_threads[tid].state = kFinished;
    g_threads[tid].op = kOpNone;
    next = choose(tid);
  }
  sleep_unlock(&g_lock);
  if (next != UINT32_MAX) wake(next);  // after the lock, as in sched_before_slow
}

uint8_t sched_thread_op(uint32_t tid, uintptr_t* obj) {
  if (tid >= g_thread_end) return kOpNone;
  *obj = g_threads[tid].obj;
  return g_threads[tid].op;
}

uint32_t sched_thread_point(uint32_t tid) {
  return tid < g_thread_end && g_threads[tid].op == kOpAccess
             ? static_cast<uint32_t>(g_threads[tid].obj2)
             : 0;
}

bool sched_thread_offered_timeout(uint32_t tid) {
  return tid < g_thread_end && g_threads[tid].offered;
}

void sched_after_fork(uint32_t tid) {
  if (!scheduling()) return;
  g_lock = 0;
  if (g_scheduler != &kSerial) {
    // Only the serial scheduler goes on in a forked child (its one thread runs alone).
    controlled_after_fork();
    __atomic_store_n(&g_scheduler, nullptr, __ATOMIC_RELEASE);
    return;
  }
  for (uint32_t t = 0; t < g_thread_end; ++t)
    if (t != tid && g_threads[t].state == kAlive) g_threads[t].state = kGone;
  if (tid < g_thread_end) g_threads[tid].go = 1;
}

void sched_init() {
  const char* s = g_settings.schedule;
  if (!s) return;
  const Scheduler* chosen = nullptr;
  if (strcmp(s, "serial") == 0)
    chosen = &kSerial;
  else if (strcmp(s, "controlled") == 0)
    chosen = controlled_scheduler();
  if (!chosen) return;
  Ctx* c = ctx();
  if (!c || c->tid >= kMaxThreads) return;
  g_threads[c->tid].state = kAlive;
  g_threads[c->tid].go = 1;
  g_thread_end = c->tid + 1;
  __atomic_store_n(&g_scheduler, chosen, __ATOMIC_RELEASE);
  if (chosen != &kSerial) controlled_start(c);
}

}  // namespace racepred_rt
