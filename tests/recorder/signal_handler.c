// A signal handler that touches instrumented memory while the thread records (RECORDER.md
// pitfall 6): handler events raised inside the runtime are dropped, the trace stays valid.
// expect check: well-formed
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

volatile int handled;
volatile long work_done;

void on_alarm(int sig) { handled += sig; }

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, 0);
  struct itimerval it = {{0, 200}, {0, 200}};
  setitimer(ITIMER_REAL, &it, 0);
  for (long i = 0; i < 200000; ++i) work_done += i;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, 0);
  return handled < 0;
}
