// The fixed twin of condvar_no_loop.c: the wait in a loop that re-checks the condition.
// explore: --strategy dfs --preemptions 2 => nothing
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
int items;

static void* consumer(void* arg) {
  pthread_mutex_lock(&m);
  while (items == 0) pthread_cond_wait(&nonempty, &m);
  items--;
  assert(items >= 0);
  pthread_mutex_unlock(&m);
  return arg;
}

static void* producer(void* arg) {
  for (int i = 0; i < 2; ++i) {
    pthread_mutex_lock(&m);
    items++;
    pthread_cond_signal(&nonempty);
    pthread_mutex_unlock(&m);
  }
  return arg;
}

int main(void) {
  pthread_t c1, c2, p;
  pthread_create(&c1, 0, consumer, 0);
  pthread_create(&c2, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(c1, 0);
  pthread_join(c2, 0);
  pthread_join(p, 0);
  return 0;
}
