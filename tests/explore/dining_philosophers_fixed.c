// dining_philosophers.c fixed: each philosopher takes the lower-numbered fork first, so the
// forks are taken in one global order and no cycle of waits can form.
// explore: --strategy dfs --preemptions 1 => nothing
#include <pthread.h>

#define N 3
pthread_mutex_t fork_of[N] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                              PTHREAD_MUTEX_INITIALIZER};
int meals[N];

static void* philosopher(void* arg) {
  const int i = (int)(long)arg;
  const int left = i, right = (i + 1) % N;
  const int first = left < right ? left : right, second = left < right ? right : left;
  pthread_mutex_lock(&fork_of[first]);
  pthread_mutex_lock(&fork_of[second]);
  meals[i]++;
  pthread_mutex_unlock(&fork_of[second]);
  pthread_mutex_unlock(&fork_of[first]);
  return arg;
}

int main(void) {
  pthread_t t[N];
  for (long i = 0; i < N; ++i) pthread_create(&t[i], 0, philosopher, (void*)i);
  for (int i = 0; i < N; ++i) pthread_join(t[i], 0);
  return 0;
}
