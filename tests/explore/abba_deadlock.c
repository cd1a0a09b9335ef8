// An ABBA deadlock: T1 takes a then b, T2 takes b then a. It deadlocks only when T1 is
// preempted between its two locks: no execution without preemptions deadlocks, one with a
// single preemption does.
// explore: --strategy dfs --preemptions 0 => nothing
// explore: --strategy dfs --preemptions 1 => deadlock, complete, reduces, jobs-same
// explore: --executions 100 => deadlock, round-trip-same
#include <pthread.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;

static void* t1(void* arg) {
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return arg;
}

static void* t2(void* arg) {
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return arg;
}

int main(void) {
  pthread_t x, y;
  pthread_create(&x, 0, t1, 0);
  pthread_create(&y, 0, t2, 0);
  pthread_join(x, 0);
  pthread_join(y, 0);
  return 0;
}
