// The fixed twin of condvar_spurious.c: the wait in a loop that re-checks the flag, so a
// spurious wake-up only waits again. The complete dfs, which wakes waiters spuriously, finds
// nothing.
// explore: --strategy dfs --preemptions 2 => nothing
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER;
int ready;
int data;

static void* consumer(void* arg) {
  pthread_mutex_lock(&m);
  while (!ready) pthread_cond_wait(&ready_cv, &m);
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
