// A bug of one interleaving of four threads: each worker advances `stage` only from the value
// the one before it in the order T4, T3, T2, T1 leaves, and the program fails when all four ran
// in exactly that order (1 of the 24 orders). Each worker also fills its own slot of `work`
// (race-free: the Goldilocks lock sets prove it, so those accesses are no branching points).
// explore: --strategy dfs --preemptions 0 => assertion, complete, unreduced-same
// explore: --executions 300 => assertion
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int stage;
int work[4][4];

static void* worker(void* arg) {
  const int k = (int)(long)arg;  // 0 .. 3
  for (int i = 0; i < 4; ++i) work[k][i] = k + i;
  pthread_mutex_lock(&m);
  if (stage == 3 - k) stage++;
  pthread_mutex_unlock(&m);
  return arg;
}

int main(void) {
  pthread_t t[4];
  for (long k = 0; k < 4; ++k) pthread_create(&t[k], 0, worker, (void*)k);
  for (int k = 0; k < 4; ++k) pthread_join(t[k], 0);
  assert(stage < 4);
  return 0;
}
