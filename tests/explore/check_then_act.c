// Check-then-act across two critical sections: each withdrawal checks the balance in one
// critical section and withdraws in another. Every access is under the lock (no data race),
// but when one thread is preempted between its check and its withdrawal, both withdraw and the
// balance goes negative: the assertion fails.
// explore: --strategy dfs --preemptions 1 => assertion, complete, reduces, round-trip-same
// explore: --strategy pct --depth 2 --seed 1 --executions 60 => assertion, forked-same, round-trip-same
// explore: --strategy random --seed 3 --executions 60 => assertion, jobs-same, round-trip-same
// explore: --executions 100 => assertion
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int balance = 10;

static void* withdraw(void* arg) {
  pthread_mutex_lock(&m);
  int enough = balance >= 10;
  pthread_mutex_unlock(&m);
  if (enough) {
    pthread_mutex_lock(&m);
    balance -= 10;
    pthread_mutex_unlock(&m);
  }
  return arg;
}

int main(void) {
  pthread_t x, y;
  pthread_create(&x, 0, withdraw, 0);
  pthread_create(&y, 0, withdraw, 0);
  pthread_join(x, 0);
  pthread_join(y, 0);
  assert(balance >= 0);
  return 0;
}
