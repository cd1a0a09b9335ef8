// A bug that needs exactly one preemption: the checker sees `state` == 1 only when the writer
// is preempted between its two critical sections. No execution without preemptions fails (the
// search with bound 0 is complete and finds nothing); the bound 1 finds the assertion.
// explore: --strategy dfs --preemptions 0 => nothing
// explore: --strategy dfs --preemptions 1 => assertion, complete, reduces
// explore: --executions 100 => assertion
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int state;

static void* writer(void* arg) {
  pthread_mutex_lock(&m);
  state = 1;
  pthread_mutex_unlock(&m);
  pthread_mutex_lock(&m);
  state = 0;
  pthread_mutex_unlock(&m);
  return arg;
}

static void* checker(void* arg) {
  pthread_mutex_lock(&m);
  assert(state == 0);
  pthread_mutex_unlock(&m);
  return arg;
}

int main(void) {
  pthread_t x, y;
  pthread_create(&x, 0, writer, 0);
  pthread_create(&y, 0, checker, 0);
  pthread_join(x, 0);
  pthread_join(y, 0);
  return 0;
}
