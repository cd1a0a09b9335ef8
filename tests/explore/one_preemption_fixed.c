// The fixed twin of one_preemption.c: the writer's two steps in one critical section.
// explore: --strategy dfs --preemptions 2 => nothing, reduces
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int state;

static void* writer(void* arg) {
  pthread_mutex_lock(&m);
  state = 1;
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
