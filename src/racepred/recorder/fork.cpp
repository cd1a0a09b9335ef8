// Fork, exec and _exit (docs/RECORDER.md, "Robustness"): a fork child records into a file of
// its own; exec and _exit flush everything first.
#include "racepred/recorder/rt.hpp"

namespace racepred_rt {

// Pulled into every link by buffers.cpp (linked_parts): a static archive's member is linked
// only for symbols the program's objects reference, never for libraries' references.
extern const char kPart_fork = 0;
DECLARE_REAL(int, execve, const char*, char* const*, char* const*);
DECLARE_REAL(int, execv, const char*, char* const*);
DECLARE_REAL(int, execvp, const char*, char* const*);
DECLARE_REAL(void, _exit, int);
DECLARE_REAL(void, _Exit, int);

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
  for (Stripe& l : g_stripes) l.lock = 0;
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
  if (g_settings.stack_depth) write_note("stack_depth", g_settings.stack_depth);
  if (c && c->buf && !c->ended) {
    c->flush_lock = 0;
    c->n = 0;
    c->pending = 0;
    c->dropped = 0;
    g_ctxs[0] = c;
    g_ctx_count = 1;
    write_start(c->tid, g_lamport ? c->clock + 1 : UINT64_MAX);
    sched_after_fork(c->tid);
  }
  write_maps();
}
}  // namespace racepred_rt

using namespace racepred_rt;

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
