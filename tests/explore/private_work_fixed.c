// The fixed twin of private_work.c: each worker adds its sum under the lock. The complete
// reduced dfs finds nothing, in far fewer executions than the unreduced one (every private
// access a branching point).
// explore: --strategy dfs --preemptions 1 => nothing, reduces
#include <pthread.h>

#define WORKERS 3
#ifndef ITEMS
#define ITEMS 6  // each worker's private items (bench/explore_reduction.sh varies it)
#endif

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile long work[WORKERS][ITEMS];
long total;

static void* worker(void* arg) {
  const long id = (long)arg;
  long sum = 0;
  for (int i = 0; i < ITEMS; ++i) work[id][i] = id * ITEMS + i;
  for (int i = 0; i < ITEMS; ++i) sum += work[id][i];
  pthread_mutex_lock(&m);
  total += sum;
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t t[WORKERS];
  for (long i = 0; i < WORKERS; ++i) pthread_create(&t[i], 0, worker, (void*)i);
  for (int i = 0; i < WORKERS; ++i) pthread_join(t[i], 0);
  pthread_mutex_lock(&m);
  const long seen = total;
  pthread_mutex_unlock(&m);
  return seen == 0;
}
