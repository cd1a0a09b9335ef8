// A race that needs the worker's critical sections moved before main's (the recorded run has
// them after): main writes `x` inside its critical section, the worker after twenty of its own.
// osr and m2 predict it and build a witness that reverses the lock order; syncp keeps the order of
// critical sections and does not report it. Following the witness reproduces the race in one
// execution. Holding one thread at an access does not: held inside its critical section, main
// keeps the lock the worker needs; held at its write, the worker is there only if it won every
// one of about twenty choices against main (the executions after the first two choose at
// random, seeded: the same every run).
// confirm: -e syncp,osr => reproduced:x, witnessed:x, method:x=witness
// confirm: -e m2 => reproduced:x, witnessed:x, method:x=witness
// confirm: -e syncp,osr --method hold --executions 20 => notreproduced:x
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int x, rounds;

static void* worker(void* arg) {
  for (int i = 0; i < 20; ++i) {
    pthread_mutex_lock(&m);
    rounds++;
    pthread_mutex_unlock(&m);
  }
  x = 2;  // races with main's write
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_mutex_lock(&m);
  x = 1;
  pthread_mutex_unlock(&m);
  pthread_join(t, 0);
  printf("%d %d\n", x, rounds);
  return 0;
}
