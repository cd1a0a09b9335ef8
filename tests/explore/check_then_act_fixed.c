// The fixed twin of check_then_act.c: the check and the withdrawal in one critical section.
// explore: --strategy dfs --preemptions 2 => nothing, reduces
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int balance = 10;

static void* withdraw(void* arg) {
  pthread_mutex_lock(&m);
  if (balance >= 10) balance -= 10;
  pthread_mutex_unlock(&m);
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
