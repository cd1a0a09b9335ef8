// two_preemptions.c fixed: the writer's two updates are one critical section, so no reader
// sees the intermediate state.
// explore: --strategy dfs --preemptions 2 => nothing, reduces
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int state;

static void* writer(void* arg) {
  pthread_mutex_lock(&m);
  state = 1;
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
  assert(first != 1 && second != 1);
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
