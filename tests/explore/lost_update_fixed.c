// The fixed twin of lost_update_wrong_lock.c: both increments under the same lock.
// explore: --strategy dfs --preemptions 2 => nothing, reduces
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
int counter;

static void* inc(void* arg) {
  pthread_mutex_lock(&a);
  counter++;
  pthread_mutex_unlock(&a);
  return arg;
}

int main(void) {
  pthread_t x, y;
  pthread_create(&x, 0, inc, 0);
  pthread_create(&y, 0, inc, 0);
  pthread_join(x, 0);
  pthread_join(y, 0);
  printf("%d\n", counter);
  return 0;
}
