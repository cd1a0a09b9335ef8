// Two threads take `a` and `b` in opposite orders and this run deadlocks: a barrier lets each
// take its first lock before either asks for its second. main gives up waiting and exits; the
// two threads are still blocked in pthread_mutex_lock, so each thread's trace ends with a lock
// request, req(b) and req(a). spd predicts the deadlock from those requests (the run itself
// reached it) and lockorder reports the cycle.
// expect spd: deadlocks 1
// expect lockorder: deadlocks 1
// expect fasttrack: none
// expect check: well-formed
// retries: 3
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
pthread_barrier_t both_hold_one;

void* forward(void* arg) {
  pthread_mutex_lock(&a);
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&b);  // blocks for good: T2 holds b and waits for a
  return arg;
}

void* backward(void* arg) {
  pthread_mutex_lock(&b);
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&a);
  return arg;
}

int main(void) {
  pthread_t t1, t2;
  pthread_barrier_init(&both_hold_one, 0, 2);
  pthread_create(&t1, 0, forward, 0);
  pthread_create(&t2, 0, backward, 0);
  usleep(300 * 1000);  // both are blocked by now (or the run is retried)
  exit(0);             // without joining: the threads never finish
}
