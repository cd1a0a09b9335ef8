// A condition wait guarded by `if` instead of `while`, with one consumer and one producer that
// sets the flag before it signals: no signal is missed or stolen, so only a spurious wake-up
// (which POSIX allows) lets the consumer go on before the data is there: the assertion fails.
// The dfs wakes a waiter spuriously at the cost of one preemption; without spurious wake-ups
// the complete search finds nothing.
// explore: --strategy dfs --preemptions 1 => assertion, forked-same, round-trip-same
// explore: --strategy dfs --preemptions 2 --no-spurious-wakeups => nothing
// explore: --executions 100 => assertion
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER;
int ready;
int data;

static void* consumer(void* arg) {
  pthread_mutex_lock(&m);
  if (!ready) pthread_cond_wait(&ready_cv, &m);
  assert(ready && data == 42);
  pthread_mutex_unlock(&m);
  return arg;
}

static void* producer(void* arg) {
  pthread_mutex_lock(&m);
  data = 42;
  ready = 1;
  pthread_cond_signal(&ready_cv);
  pthread_mutex_unlock(&m);
  return arg;
}

int main(void) {
  pthread_t c, p;
  pthread_create(&c, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(c, 0);
  pthread_join(p, 0);
  return 0;
}
