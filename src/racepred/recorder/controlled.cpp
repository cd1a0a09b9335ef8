// The controlled scheduler (RACEPRED_SCHEDULE=controlled): every choice among two or more
// enabled threads is asked of `racepred explore` over a channel, an inherited SOCK_SEQPACKET
// socket named by RACEPRED_SCHEDULE_FD (one message per write, so no framing), or, when
// racepred gave the execution a plan (RACEPRED_SCHEDULE_PLAN_FD, format/explore_plan.hpp), made
// here by the strategy's own choice code and written into the plan's shared memory region, which
// racepred reads once the execution has ended. Either way an execution is determined by the
// strategy (docs/EXPLORE.md, "The channel" and "The plan").
//
// Runtime -> racepred: ChoiceMsg followed by `n` ChoiceThread; an answer (uint32_t: an index
// into the threads) comes back. BlockedMsg + text when no thread is enabled and none can time
// out (a deadlock); HangMsg when the execution passed RACEPRED_SCHEDULE_STEPS hooks.
// Raw system calls only: libc's read/write may be intercepted by the runtime itself.
#include <dirent.h>
#include <elf.h>
#include <link.h>
#include <malloc.h>
#include <sys/auxv.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <new>

#include <sys/mman.h>
#include <sys/stat.h>

#include "racepred/format/explore_channel.hpp"
#include "racepred/format/explore_plan.hpp"
#include "racepred/recorder/rt.hpp"

namespace racepred_rt {

static_assert(racepred::format::explore::kOpThreadJoin == kOpThreadJoin &&
              racepred::format::explore::kOpMutexLock == kOpMutexLock &&
              racepred::format::explore::kOpAtomic == kOpAtomic &&
              racepred::format::explore::kOpCondWait == kOpCondWait &&
              racepred::format::explore::kOpRwUnlockWrite == kOpRwUnlockWrite &&
              racepred::format::explore::kOpCondTimedWait == kOpCondTimedWait &&
              racepred::format::explore::kOpCondSignal == kOpCondSignal &&
              racepred::format::explore::kOpCondBroadcast == kOpCondBroadcast &&
              racepred::format::explore::kOpSemWait == kOpSemWait &&
              racepred::format::explore::kOpSemPost == kOpSemPost &&
              racepred::format::explore::kOpBarrierWait == kOpBarrierWait &&
              racepred::format::explore::kOpOnce == kOpOnce &&
              racepred::format::explore::kOpFileLock == kOpFileLock &&
              racepred::format::explore::kOpFileUnlock == kOpFileUnlock &&
              racepred::format::explore::kOpSleep == kOpSleep &&
              racepred::format::explore::kOpYield == kOpYield &&
              racepred::format::explore::kOpAccess == kOpAccess);

uint32_t g_access_points;

namespace {

int g_channel = -1;
uintptr_t g_access_pcs[racepred::format::explore::kMaxAccessPoints];
__thread int t_step RP_TLS;  // the thread passed an access point: its next access is one too
uint64_t g_steps;
uint64_t g_max_steps;
bool g_every;  // RACEPRED_SCHEDULE_EVERY: ask also when one thread can run

// The plan (RACEPRED_SCHEDULE_PLAN_FD, explore_plan.hpp): the region, mapped at start (a fork
// server's children inherit the mapping); read at an execution's first choice point.
racepred::format::explore::PlanHeader* g_plan;
bool g_plan_read;    // this execution looked at the plan
bool g_planning;     // it follows the plan (not asked over the channel)
uint64_t g_planned;  // choice points planned so far
// Constructed by the fork server before it forks, or at a fresh process's first plan: not a
// static object, whose constructor (20 KB of tables, a random engine's seeding) every execution
// would run again, as the program's own static initialisers run after the server's fork.
alignas(racepred::format::explore::Planner) unsigned char g_planner_storage[sizeof(
    racepred::format::explore::Planner)];
racepred::format::explore::Planner* g_planner;

racepred::format::explore::Planner& planner() {
  if (!g_planner) g_planner = new (g_planner_storage) racepred::format::explore::Planner();
  return *g_planner;
}

void map_plan() {
  const uint64_t fd = g_settings.schedule_plan_fd;
  if (fd == 0 || fd > INT32_MAX) return;
  // A program this one execs must not take whatever has that number then for the region.
  unsetenv("RACEPRED_SCHEDULE_PLAN_FD");
  struct stat st;
  if (syscall(SYS_fstat, static_cast<int>(fd), &st) != 0 ||
      static_cast<size_t>(st.st_size) < sizeof(racepred::format::explore::PlanHeader))
    return;
  const long at = syscall(SYS_mmap, nullptr, static_cast<size_t>(st.st_size),
                          PROT_READ | PROT_WRITE, MAP_SHARED, static_cast<int>(fd), 0);
  syscall(SYS_close, static_cast<int>(fd));  // programs it execs do not inherit it
  if (at < 0 && at > -4096) return;
  g_plan = reinterpret_cast<racepred::format::explore::PlanHeader*>(at);
}

// At the execution's first choice point: whether it follows a plan.
void read_plan() {
  namespace ch = racepred::format::explore;
  g_plan_read = true;
  ch::PlanHeader* h = g_plan;
  if (!h || h->magic != ch::kPlanMagic || h->kind == ch::kPlanNone) return;
  const uint64_t entries_end = sizeof(ch::PlanHeader) + h->prefix * sizeof(ch::PlanEntry);
  if (entries_end > h->records_offset || h->records_offset > h->size || h->records_offset % 8)
    return;
  h->records = 0;
  h->records_bytes = 0;
  h->live = 0;
  planner().start(*h, reinterpret_cast<const ch::PlanEntry*>(h + 1));
  g_planning = true;
}

// The planned choice, written into the region; false when the point cannot be planned (the
// runtime then asks over the channel from here on).
bool planned_choice(const racepred::format::explore::ChoiceThread* c, uint32_t n, uint32_t current,
                    uint8_t current_op, bool timeouts, uint64_t seq, uint32_t& chosen) {
  namespace ch = racepred::format::explore;
  ch::PlanHeader* h = g_plan;
  const size_t need = ch::plan_record_size(n);
  const uint64_t at = h->records_offset + h->records_bytes;
  if (at + need > h->size || !planner().choose(c, n, current, timeouts, g_planned, chosen)) {
    g_planning = false;
    __atomic_store_n(&h->live, 1, __ATOMIC_RELEASE);
    return false;
  }
  ch::PointRecord r;
  r.timeouts = timeouts ? 1 : 0;
  r.current_op = current_op;
  r.current = current;
  r.n = n;
  r.chosen = chosen;
  r.seq = seq;
  char* out = reinterpret_cast<char*>(h) + at;
  memcpy(out, &r, sizeof r);
  memcpy(out + sizeof r, c, n * sizeof(ch::ChoiceThread));
  h->records_bytes += need;
  __atomic_store_n(&h->records, h->records + 1, __ATOMIC_RELEASE);
  ++g_planned;
  return true;
}

bool send_message(const void* data, size_t size) {
  for (;;) {
    const long n = syscall(SYS_sendto, g_channel, data, size, MSG_NOSIGNAL, nullptr, 0);
    if (n >= 0) return static_cast<size_t>(n) == size;
    if (errno != EINTR) return false;
  }
}

[[noreturn]] void hang() {
  racepred::format::explore::HangMsg m;
  m.steps = g_steps;
  send_message(&m, sizeof m);
  static const char kText[] =
      "racepred: controlled schedule: the step bound was reached (a hang); the recording ends "
      "here (exit status 124)\n";
  write_fully(2, kText, sizeof kText - 1);
  finish_all(true);
  syscall(SYS_exit_group, 124);
  __builtin_unreachable();
}

uint32_t controlled_pick(const uint32_t* tids, uint32_t n, uint32_t current, bool timeouts) {
  namespace ch = racepred::format::explore;
  if (g_max_steps && ++g_steps > g_max_steps) hang();
  if ((n < 2 && !g_every) || n == 0 || g_channel < 0) return 0;
  if (n > ch::kMaxChoiceThreads) n = ch::kMaxChoiceThreads;
  // One message; the buffer is static: the caller holds the scheduler's lock.
  alignas(
      8) static char buf[sizeof(ch::ChoiceMsg) + ch::kMaxChoiceThreads * sizeof(ch::ChoiceThread)];
  ch::ChoiceMsg m;
  m.timeouts = timeouts ? 1 : 0;
  m.current = current;
  m.n = n;
  uintptr_t current_obj = 0;
  m.current_op = sched_thread_op(current, &current_obj);
  m.current_obj = ch::fold_object(current_obj);
  m.seq = __atomic_load_n(&g_seq_line.value, __ATOMIC_RELAXED);
  memcpy(buf, &m, sizeof m);
  auto* threads = reinterpret_cast<ch::ChoiceThread*>(buf + sizeof m);
  for (uint32_t i = 0; i < n; ++i) {
    ch::ChoiceThread t;
    t.tid = tids[i];
    uintptr_t obj = 0;
    t.op = sched_thread_op(tids[i], &obj);
    t.obj = obj;
    t.point = static_cast<uint8_t>(sched_thread_point(tids[i]));
    t.times_out = sched_thread_offered_timeout(tids[i]) ? 1 : 0;
    memcpy(&threads[i], &t, sizeof t);
  }
  if (!g_plan_read) read_plan();
  if (g_planning) {
    uint32_t chosen = 0;
    if (planned_choice(threads, n, current, m.current_op, timeouts, m.seq, chosen)) return chosen;
  }
  if (!send_message(buf, sizeof m + n * sizeof(ch::ChoiceThread))) return 0;
  uint32_t answer = 0;
  for (;;) {
    const long r = syscall(SYS_read, g_channel, &answer, sizeof answer);
    if (r == static_cast<long>(sizeof answer)) break;
    if (r < 0 && errno == EINTR) continue;
    // racepred is gone: the run goes on deterministically with the first enabled thread.
    g_channel = -1;
    return 0;
  }
  return answer < n ? answer : 0;
}

void controlled_all_blocked(const char* text, size_t size) {
  namespace ch = racepred::format::explore;
  if (g_channel < 0) return;
  static char buf[sizeof(ch::BlockedMsg) + 8192];
  if (size > 8192) size = 8192;
  ch::BlockedMsg m;
  memcpy(buf, &m, sizeof m);
  memcpy(buf + sizeof m, text, size);
  send_message(buf, sizeof m + size);
}

const Scheduler kControlled = {controlled_pick, controlled_all_blocked};

// RACEPRED_SCHEDULE_ACCESS: offsets in the main executable, as the symboliser names code
// (relative to the load base of a position-independent executable; for a fixed one the base is
// 0). The base is where the program headers are minus their address in the file.
uintptr_t executable_base() {
  const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(getauxval(AT_PHDR));
  const unsigned long n = getauxval(AT_PHNUM);
  for (unsigned long i = 0; ph && i < n; ++i)
    if (ph[i].p_type == PT_PHDR) return reinterpret_cast<uintptr_t>(ph) - ph[i].p_vaddr;
  for (unsigned long i = 0; ph && i < n; ++i)
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
      return reinterpret_cast<uintptr_t>(ph) - sizeof(ElfW(Ehdr)) - ph[i].p_vaddr;
  return 0;
}

void read_access_points() {
  const char* s = g_settings.schedule_access;
  if (!s || !*s) return;
  const uintptr_t base = executable_base();
  uint32_t n = 0;
  while (*s && n < racepred::format::explore::kMaxAccessPoints) {
    char* end = nullptr;
    const uintptr_t offset = strtoull(s, &end, 16);
    if (end == s) break;
    g_access_pcs[n++] = base + offset;
    s = *end == ',' ? end + 1 : end;
  }
  g_access_points = n;
}

// ---- the fork server (RACEPRED_SCHEDULE_SERVER; explore_channel.hpp) ----

// Threads of this process (/proc/self/task): a fork keeps only the caller, so the server forks
// only while it is the one thread (a library constructor may have started others).
uint32_t process_threads() {
  const int fd = static_cast<int>(
      syscall(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd < 0) return 0;
  uint32_t n = 0;
  alignas(8) char buf[4096];
  for (;;) {
    const long got = syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (got <= 0) break;
    for (long at = 0; at < got;) {
      const auto* d = reinterpret_cast<const struct dirent64*>(buf + at);
      if (d->d_name[0] != '.') ++n;
      at += d->d_reclen;
    }
  }
  syscall(SYS_close, fd);
  return n;
}

void server_send(racepred::format::explore::ServerKind kind, bool ok, int64_t value) {
  racepred::format::explore::ServerMsg m;
  m.kind = kind;
  m.ok = ok ? 1 : 0;
  m.value = value;
  send_message(&m, sizeof m);
}

// The fork server's /proc/self/maps, read once before it forks (an execution's recording
// starts and ends with the module map: docs/RECORDER.md), with what it depends on: the loaded
// objects (the dynamic loader's list) and the main thread's stack. An execution writes this
// copy while they are unchanged instead of reading /proc/self/maps twice.
char* g_maps_text;
size_t g_maps_len;
constexpr uint32_t kMapsObjects = 64;
struct LoadedObject {
  const link_map* map;
  ElfW(Addr) addr;
  const char* name;
};
LoadedObject g_maps_objects[kMapsObjects];
uint32_t g_maps_object_count;
uintptr_t g_maps_stack;  // where the [stack] mapping began

// The loaded objects now; false when there are more than kMapsObjects.
bool loaded_objects(LoadedObject* out, uint32_t* n) {
  uint32_t k = 0;
  for (const link_map* m = _r_debug.r_map; m; m = m->l_next) {
    if (k == kMapsObjects) return false;
    out[k++] = {m, m->l_addr, m->l_name};
  }
  *n = k;
  return true;
}

void cache_maps() {
  size_t cap = 0;
  g_maps_text = read_maps(&g_maps_len, &cap);
  if (!g_maps_text || !loaded_objects(g_maps_objects, &g_maps_object_count)) {
    g_maps_text = nullptr;
    return;
  }
  // "start-end perms offset dev inode   [stack]"
  for (size_t line = 0; line < g_maps_len;) {
    size_t end = line;
    while (end < g_maps_len && g_maps_text[end] != '\n') ++end;
    if (end - line > 7 && memcmp(g_maps_text + end - 7, "[stack]", 7) == 0)
      g_maps_stack = strtoull(g_maps_text + line, nullptr, 16);
    line = end + 1;
  }
}

// Becomes this execution's process (the fork server's child): records into `raw` (or `path`
// when racepred gave no file), asks its choices over `channel`, writes its standard error to
// `err`.
void become_execution(int control, int channel, int err, int raw, const char* path, Ctx* c) {
  syscall(SYS_close, control);
  g_channel = channel;  // close-on-exec (MSG_CMSG_CLOEXEC)
  syscall(SYS_dup2, err, 2);
  syscall(SYS_close, err);
  // The server's recording held only its start (closed before the server's loop): this
  // execution's starts afresh (the thread's buffer, inherited, holds what the server recorded
  // since).
  copy_bytes(g_template, path, str_len(path) + 1);
  if (!(raw >= 0 ? start_output(raw) : open_output(false))) {
    __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
    return;
  }
  write_start(c->tid);
}

// Programs an execution execs record next to its recording (as init arranges): PATH.%p in the
// environment, set in the server when the path changes, not in every execution.
void set_child_record(const char* path) {
  static char current[sizeof g_template];
  const size_t n = str_len(path);
  if (n + 4 > sizeof current || strcmp(current, path) == 0) return;
  char child[sizeof g_template + 8];
  copy_bytes(child, path, n);
  copy_bytes(child + n, ".%p", 4);
  setenv("RACEPRED_RECORD", child, 1);
  copy_bytes(current, path, n + 1);
}

// The server loop; returns in each child (an execution), never in the server.
void fork_server(Ctx* c) {
  namespace ch = racepred::format::explore;
  const int control = g_channel;
  const uint32_t threads = process_threads();
  if (threads != 1) {
    server_send(ch::kServerReady, false, threads);
    syscall(SYS_exit_group, 0);
  }
  // LD_BIND_NOW, when racepred set it for the server: every symbol was bound before main, once,
  // and not again in every execution (with lazy binding each execution would resolve the
  // program's calls itself and write the pages of its symbol tables).
  if (g_settings.schedule_bind_now) {
    unsetenv("LD_BIND_NOW");
    unsetenv("RACEPRED_SCHEDULE_BIND_NOW");
  }
  unsetenv("RACEPRED_SCHEDULE_SERVER");     // a program an execution execs is no server
  if (g_fd >= 0) syscall(SYS_close, g_fd);  // its own recording ends here (not its executions')
  g_fd = -1;
  cache_maps();
  if (g_plan) planner();
  server_send(ch::kServerReady, true, 1);
  static char buf[sizeof(ch::RunMsg) + ch::kMaxServerPath + 1];
  for (;;) {
    iovec io{buf, sizeof buf - 1};
    alignas(cmsghdr) char control_buf[CMSG_SPACE(3 * sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    msg.msg_control = control_buf;
    msg.msg_controllen = sizeof control_buf;
    const long n = syscall(SYS_recvmsg, control, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) syscall(SYS_exit_group, 0);  // racepred is done
    // The channel, standard error and (optionally) the recording's file.
    int fds[3] = {-1, -1, -1};
    for (cmsghdr* h = CMSG_FIRSTHDR(&msg); h; h = CMSG_NXTHDR(&msg, h))
      if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
          h->cmsg_len >= CMSG_LEN(2 * sizeof(int)))
        memcpy(fds, CMSG_DATA(h),
               h->cmsg_len >= CMSG_LEN(3 * sizeof(int)) ? 3 * sizeof(int) : 2 * sizeof(int));
    ch::RunMsg run;
    if (static_cast<size_t>(n) < sizeof run || fds[0] < 0 || fds[1] < 0) syscall(SYS_exit_group, 0);
    memcpy(&run, buf, sizeof run);
    size_t size = static_cast<size_t>(n) - sizeof run;
    if (run.path_size < size) size = run.path_size;
    char* path = buf + sizeof run;
    path[size] = 0;
    set_child_record(path);
    // _Fork: no atfork handlers (the runtime's would treat the child as a program's fork).
    const pid_t pid = _Fork();
    if (pid == 0) {
      become_execution(control, fds[0], fds[1], fds[2], path, c);
      return;
    }
    syscall(SYS_close, fds[1]);
    if (fds[2] >= 0) syscall(SYS_close, fds[2]);
    server_send(ch::kServerForked, pid > 0, pid > 0 ? pid : -errno);
    if (pid > 0) {
      int status = 0;
      while (syscall(SYS_wait4, pid, &status, 0, nullptr) < 0 && errno == EINTR) {
      }
      // Over the execution's channel: racepred waits on it alone.
      ch::ServerMsg waited;
      waited.kind = ch::kServerWaited;
      waited.ok = 1;
      waited.value = status;
      while (syscall(SYS_sendto, fds[0], &waited, sizeof waited, MSG_NOSIGNAL, nullptr, 0) < 0 &&
             errno == EINTR) {
      }
    }
    syscall(SYS_close, fds[0]);
  }
}

}  // namespace

void controlled_start(Ctx* c) {
  if (g_channel >= 0 && g_settings.schedule_server && c) fork_server(c);
}

const Scheduler* controlled_scheduler() {
  const uint64_t fd = g_settings.schedule_fd;
  if (fd == 0 || fd > INT32_MAX) return nullptr;
  // A program that an explored one execs inherits the variables but not the socket (closed on
  // exec): only a SOCK_SEQPACKET socket is the channel.
  int type = 0;
  socklen_t size = sizeof type;
  if (syscall(SYS_getsockopt, static_cast<int>(fd), SOL_SOCKET, SO_TYPE, &type, &size) != 0 ||
      type != SOCK_SEQPACKET)
    return nullptr;
  g_channel = static_cast<int>(fd);
  // Programs the recorded one execs are not scheduled: they do not inherit the channel.
  syscall(SYS_fcntl, g_channel, F_SETFD, FD_CLOEXEC);
  g_max_steps = g_settings.schedule_steps;
  g_schedule_accesses = g_settings.schedule_accesses;
  g_every = g_settings.schedule_every;
  g_schedule_spurious = g_settings.schedule_spurious;
  read_access_points();
  map_plan();
  // One thread runs at a time: the threads share the main heap arena rather than each making
  // its own (a 64 MiB reservation, its trimming and page faults in every thread of every
  // execution).
  mallopt(M_ARENA_MAX, 1);
  return &kControlled;
}

void access_point(uintptr_t addr, uint64_t pc) {
  if (t_in_rt || g_channel < 0) return;
  uint32_t point = 0;
  for (uint32_t i = 0; i < g_access_points; ++i)
    if (g_access_pcs[i] == pc) point = i + 1;
  if (point == 0 && !t_step) return;
  // After a targeted access the thread stops at its next one, so that another thread's access
  // can follow it back to back.
  t_step = point != 0;
  sched_before(kOpAccess, addr, point);
}

const char* server_maps(size_t* len) {
  if (!g_maps_text) return nullptr;
  uint32_t i = 0;
  for (const link_map* m = _r_debug.r_map; m; m = m->l_next, ++i)
    if (i == g_maps_object_count || m != g_maps_objects[i].map ||
        m->l_addr != g_maps_objects[i].addr || m->l_name != g_maps_objects[i].name)
      return nullptr;
  if (i != g_maps_object_count) return nullptr;
  // The main thread's stack grows down on demand: the page below where it began is still
  // unmapped (msync: ENOMEM) unless it grew.
  if (g_maps_stack > kPage &&
      !(syscall(SYS_msync, g_maps_stack - kPage, kPage, MS_ASYNC) != 0 && errno == ENOMEM))
    return nullptr;
  *len = g_maps_len;
  return g_maps_text;
}

void controlled_after_fork() {
  // The child of a fork runs unscheduled: the channel belongs to the parent's execution.
  if (g_channel >= 0) syscall(SYS_close, g_channel);
  g_channel = -1;
}

}  // namespace racepred_rt
