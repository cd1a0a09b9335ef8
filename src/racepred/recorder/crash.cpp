// Crashes keep their trace (docs/RECORDER.md, "Robustness"): on a fatal signal (SIGSEGV,
// SIGABRT, SIGBUS, SIGFPE, SIGILL) that the program does not handle itself, every thread's
// buffer is written and the recording marked complete before the signal kills the process
// with its default action (so the exit status is the signal's). A handler the program installs
// for one of these signals is kept in a table and called instead (the runtime's handler stays
// installed): what the program's handler does (exit, _exit, re-raise with the default action)
// ends the recording as usual.
#include "racepred/recorder/rt.hpp"

namespace racepred_rt {

extern const char kPart_crash = 0;

DECLARE_REAL(int, sigaction, int, const struct sigaction*, struct sigaction*);
DECLARE_REAL(sighandler_t, signal, int, sighandler_t);

namespace {

constexpr int kFatal[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
constexpr int kSignals = 65;

bool fatal(int sig) {
  for (int s : kFatal)
    if (s == sig) return true;
  return false;
}

// The program's own dispositions of the fatal signals (SIG_DFL until it sets one).
struct sigaction g_user[kSignals];
int g_installed;  // the runtime's handler is installed

// Events in flight (a thread between enter and leave) end within microseconds; a thread that
// crashed inside the runtime never leaves: wait a bounded time.
void wait_for_threads_to_leave(Ctx* self) {
  const uint32_t n = __atomic_load_n(&g_ctx_count, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < n && i < kMaxThreads; ++i) {
    Ctx* c = __atomic_load_n(&g_ctxs[i], __ATOMIC_ACQUIRE);
    if (!c || c == self) continue;
    for (int spins = 0; spins < 100000 && __atomic_load_n(&c->busy, __ATOMIC_ACQUIRE) == 1; ++spins)
      __builtin_ia32_pause();
  }
}

void on_fatal(int sig, siginfo_t* info, void* uc) {
  const struct sigaction& user = g_user[sig];
  if (user.sa_handler != SIG_DFL && user.sa_handler != SIG_IGN) {
    if (user.sa_flags & SA_SIGINFO)
      user.sa_sigaction(sig, info, uc);
    else
      user.sa_handler(sig);
    return;
  }
  // Ignored: a signal sent by kill or raise is; a fault is not (the kernel kills for it).
  if (user.sa_handler == SIG_IGN && info && info->si_code <= 0) return;
  // Stop recording (new events are dropped), let events in flight finish, write everything.
  // Also after the size cap stopped recording: what the threads buffered is still written. Not
  // in a vfork child, which shares the parent's memory (and recording).
  if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != 0 &&
      !__atomic_load_n(&g_finished, __ATOMIC_ACQUIRE) && getpid() == g_pid) {
    __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
    wait_for_threads_to_leave(t_ctx);
    if (Ctx* c = t_ctx) c->busy = 0;  // a crash inside the runtime: its committed records count
    write_note("signal", static_cast<uint64_t>(sig));
    finish_all(true);
  }
  // The default action, once this handler returns (the signal is blocked until then); a
  // fault re-executes its instruction and faults again.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  REAL(sigaction)(sig, &dfl, nullptr);
  raise(sig);
}

}  // namespace

// Installs the runtime's handler for the fatal signals whose disposition is the default.
void install_crash_handlers() {
  for (int sig : kFatal) {
    struct sigaction old {};
    if (REAL(sigaction)(sig, nullptr, &old) != 0) continue;
    g_user[sig] = old;
    if (old.sa_handler != SIG_DFL) continue;  // ignored or handled already: left alone
    struct sigaction sa {};
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    REAL(sigaction)(sig, &sa, nullptr);
  }
  __atomic_store_n(&g_installed, 1, __ATOMIC_RELEASE);
}

}  // namespace racepred_rt

using namespace racepred_rt;

// The program's dispositions of the fatal signals go to the table while the runtime's handler
// is installed; every other signal is the real function's.
RP_EXPORT int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (sig <= 0 || sig >= kSignals || !fatal(sig) ||
      !__atomic_load_n(&g_installed, __ATOMIC_ACQUIRE))
    return REAL(sigaction)(sig, act, old);
  if (old) *old = g_user[sig];
  if (act) g_user[sig] = *act;
  return 0;
}
RP_EXPORT sighandler_t signal(int sig, sighandler_t handler) {
  if (sig <= 0 || sig >= kSignals || !fatal(sig) ||
      !__atomic_load_n(&g_installed, __ATOMIC_ACQUIRE))
    return REAL(signal)(sig, handler);
  const sighandler_t previous = g_user[sig].sa_handler;
  g_user[sig] = {};
  g_user[sig].sa_handler = handler;
  g_user[sig].sa_flags = SA_RESTART;
  return previous;
}
