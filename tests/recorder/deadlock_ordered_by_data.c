// A lock order inverted only when a condition makes it impossible: T2 takes `a` inside its
// section on `b` only when it sees `ready`, which T1 sets inside its sections on `a` and `b`.
// For T2 to be at that acquire, T1 must already have written `ready`, so T1 is past its request
// of `b`: no reordering of the run deadlocks. ThreadSanitizer (and lockorder, whose report is
// only "possible") sees a cycle; spd, which keeps every read's write, reports none.
// expect spd: deadlocks 0
// expect lockorder: deadlocks 1
// expect fasttrack: none
// expect check: well-formed
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
int ready;
atomic_int t1_done;

void* first(void* arg) {
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  ready = 1;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  atomic_store_explicit(&t1_done, 1, memory_order_relaxed);
  return arg;
}

void* second(void* arg) {
  while (!atomic_load_explicit(&t1_done, memory_order_relaxed)) {
    sched_yield();  // fewer recorded loads while waiting
  }
  pthread_mutex_lock(&b);
  if (ready) {
    pthread_mutex_lock(&a);
    pthread_mutex_unlock(&a);
  }
  pthread_mutex_unlock(&b);
  return arg;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t2, 0, second, 0);
  pthread_create(&t1, 0, first, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
