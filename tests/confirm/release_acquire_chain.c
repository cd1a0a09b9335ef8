// A lockset false alarm through a chain of critical sections: T1 writes `x`, then sets `ready`
// under m; T2 waits under m until `ready` is set, then writes `x`. Every run orders the writes
// (T1's release of m, T2's acquire that reads ready), but no lock is held at both. The lockset
// engine warns; shb and syncp, which follow the release-acquire chain, do not.
// confirm: --engines lockset,shb,syncp --executions 4 => possible:x, notreproduced:x
#include <pthread.h>
#include <sched.h>

int x, ready;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void* t1(void* arg) {
  x = 1;
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_mutex_unlock(&m);
  return arg;
}

void* t2(void* arg) {
  for (;;) {
    pthread_mutex_lock(&m);
    const int r = ready;
    pthread_mutex_unlock(&m);
    if (r) break;
    sched_yield();
  }
  x = 2;
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
