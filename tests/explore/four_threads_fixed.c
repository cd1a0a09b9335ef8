// four_threads.c fixed: every worker's step commutes with the others', so all 24 orders end
// alike.
// explore: --strategy dfs --preemptions 0 => nothing
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int stage;
int work[4][4];

static void* worker(void* arg) {
  const int k = (int)(long)arg;
  for (int i = 0; i < 4; ++i) work[k][i] = k + i;
  pthread_mutex_lock(&m);
  stage++;
  pthread_mutex_unlock(&m);
  return arg;
}

int main(void) {
  pthread_t t[4];
  for (long k = 0; k < 4; ++k) pthread_create(&t[k], 0, worker, (void*)k);
  for (int k = 0; k < 4; ++k) pthread_join(t[k], 0);
  assert(stage == 4);
  return 0;
}
