// A bug that needs two preemptions: the checker must see the writer's first state, then its
// second, so the writer is preempted after its first critical section and the checker after
// its first read. The search with bound 1 is complete and finds nothing; bound 2 finds it.
// explore: --strategy dfs --preemptions 1 => nothing, reduces
// explore: --strategy dfs --preemptions 2 => assertion, complete
// explore: --executions 200 => assertion
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int state;

static void* writer(void* arg) {
  pthread_mutex_lock(&m);
  state = 1;
  pthread_mutex_unlock(&m);
  pthread_mutex_lock(&m);
  state = 2;
  pthread_mutex_unlock(&m);
  return arg;
}

static void* checker(void* arg) {
  pthread_mutex_lock(&m);
  int first = state;
  pthread_mutex_unlock(&m);
  pthread_mutex_lock(&m);
  int second = state;
  pthread_mutex_unlock(&m);
  assert(!(first == 1 && second == 2));
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
