// A lost update: the two threads increment `counter` under different locks, so the lock does
// not order them: a data race on counter, found in every execution.
// explore: --strategy dfs --preemptions 1 => race:counter, complete, reduces, forked-same
// explore: --executions 100 => race:counter
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
int counter;

static void* inc_a(void* arg) {
  pthread_mutex_lock(&a);
  counter++;
  pthread_mutex_unlock(&a);
  return arg;
}

static void* inc_b(void* arg) {
  pthread_mutex_lock(&b);
  counter++;
  pthread_mutex_unlock(&b);
  return arg;
}

int main(void) {
  pthread_t x, y;
  pthread_create(&x, 0, inc_a, 0);
  pthread_create(&y, 0, inc_b, 0);
  pthread_join(x, 0);
  pthread_join(y, 0);
  printf("%d\n", counter);
  return 0;
}
