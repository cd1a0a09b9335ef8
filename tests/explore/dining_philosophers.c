// Dining philosophers: three threads each take their left fork, then their right. When each
// holds its left fork, all wait for a fork forever: a deadlock (one preemption suffices: main
// blocking in its joins hands over for free).
// explore: --strategy dfs --preemptions 0 => nothing
// explore: --strategy dfs --preemptions 1 => deadlock, complete, reduces
// explore: --executions 600 => deadlock
#include <pthread.h>

#define N 3
pthread_mutex_t fork_of[N] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                              PTHREAD_MUTEX_INITIALIZER};
int meals[N];

static void* philosopher(void* arg) {
  const int i = (int)(long)arg;
  pthread_mutex_lock(&fork_of[i]);
  pthread_mutex_lock(&fork_of[(i + 1) % N]);
  meals[i]++;
  pthread_mutex_unlock(&fork_of[(i + 1) % N]);
  pthread_mutex_unlock(&fork_of[i]);
  return arg;
}

int main(void) {
  pthread_t t[N];
  for (long i = 0; i < N; ++i) pthread_create(&t[i], 0, philosopher, (void*)i);
  for (int i = 0; i < N; ++i) pthread_join(t[i], 0);
  return 0;
}
