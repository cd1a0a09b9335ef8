// Two threads take the mutexes `first` and `second` in opposite orders. A relaxed flag keeps
// this run from deadlocking (T2 takes its locks only after T1 has released both), but orders
// nothing: ThreadSanitizer reports a lock-order inversion here, and lockorder reports the cycle
// with the lines of both acquisitions; spd predicts the deadlock (T1 holding `first` and T2
// holding `second` is a reordering of this run). (A release/acquire flag is an order, send/recv,
// and lockorder does not report a cycle whose steps an order separates.) With a common guard lock
// around both orders (lock_order_guarded.c) neither reports anything.
// expect lockorder: deadlocks 1
// expect spd: deadlocks 1
// expect fasttrack: none
// expect check: well-formed
#include <pthread.h>
#include <stdatomic.h>

pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;
atomic_int done;

void* forward(void* arg) {
  pthread_mutex_lock(&first);
  pthread_mutex_lock(&second);
  pthread_mutex_unlock(&second);
  pthread_mutex_unlock(&first);
  atomic_store_explicit(&done, 1, memory_order_relaxed);
  return arg;
}

void* backward(void* arg) {
  while (!atomic_load_explicit(&done, memory_order_relaxed)) {
  }
  pthread_mutex_lock(&second);
  pthread_mutex_lock(&first);
  pthread_mutex_unlock(&first);
  pthread_mutex_unlock(&second);
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&b, 0, backward, 0);
  pthread_create(&a, 0, forward, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
