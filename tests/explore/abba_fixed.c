// The fixed twin of abba_deadlock.c: both threads take a before b.
// explore: --strategy dfs --preemptions 2 => nothing, reduces
#include <pthread.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;

static void* t(void* arg) {
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return arg;
}

int main(void) {
  pthread_t x, y;
  pthread_create(&x, 0, t, 0);
  pthread_create(&y, 0, t, 0);
  pthread_join(x, 0);
  pthread_join(y, 0);
  return 0;
}
