// Many short-lived threads (RECORDER.md pitfall 18): 800 threads, two at a time, each
// counting under a lock. Each thread's buffer goes back to the system when it ends (one page
// stays), so memory does not grow with the number of threads; every thread's events are in
// the trace, and the trace is race-free and well-formed.
// expect fasttrack: none
// expect check: well-formed
#include <pthread.h>

enum { kThreads = 400 };
long total;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void* work(void* arg) {
  pthread_mutex_lock(&m);
  total++;
  pthread_mutex_unlock(&m);
  return arg;
}

int main(void) {
  for (int i = 0; i < kThreads; ++i) {
    pthread_t t[2];
    pthread_create(&t[0], 0, work, 0);
    pthread_create(&t[1], 0, work, 0);
    pthread_join(t[0], 0);
    pthread_join(t[1], 0);
  }
  return total != 2 * kThreads;
}
