// Three workers each fill and sum a block of their own (thread-local work: memory accesses no
// other thread touches), then add the sum to a shared total, without the lock: a lost update.
// Most memory accesses here are the private ones, which the Goldilocks lock sets prove
// race-free: the reduced dfs does not branch at them, the unreduced one does.
// explore: --strategy dfs --preemptions 1 => race:total, complete, reduces
// explore: --executions 100 => race:total
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
  total += sum;  // the bug: no lock
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
