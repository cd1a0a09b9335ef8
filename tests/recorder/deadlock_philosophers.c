// Five philosophers take their left fork, then their right one. In this run they eat one after
// the other (each waits, on a relaxed counter that orders nothing, until the one before has put
// its forks down), so nothing blocks; but if every one took the left fork at once, all five
// would wait for ever. spd predicts that deadlock (a cycle of five) from this one run.
// expect spd: deadlocks 1
// expect lockorder: deadlocks 1
// expect fasttrack: none
// expect check: well-formed
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#define N 5
pthread_mutex_t fork_[N];
atomic_int turn;

void* philosopher(void* arg) {
  const int i = (int)(long)arg;
  while (atomic_load_explicit(&turn, memory_order_relaxed) != i) {
    sched_yield();  // fewer recorded loads while waiting
  }
  pthread_mutex_lock(&fork_[i]);
  pthread_mutex_lock(&fork_[(i + 1) % N]);
  pthread_mutex_unlock(&fork_[(i + 1) % N]);
  pthread_mutex_unlock(&fork_[i]);
  atomic_store_explicit(&turn, i + 1, memory_order_relaxed);
  return 0;
}

int main(void) {
  pthread_t t[N];
  for (int i = 0; i < N; ++i) pthread_mutex_init(&fork_[i], 0);
  for (int i = 0; i < N; ++i) pthread_create(&t[i], 0, philosopher, (void*)(long)i);
  for (int i = 0; i < N; ++i) pthread_join(t[i], 0);
  return 0;
}
