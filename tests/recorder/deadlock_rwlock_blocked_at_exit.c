// Two threads take the write locks of two read-write locks in opposite orders and this run
// deadlocks: a barrier lets each take its first lock before either asks for its second. main
// exits while both wait in pthread_rwlock_wrlock, so each thread's trace ends with its request,
// req(b) and req(a). spd predicts the deadlock from those requests and lockorder reports the
// cycle. (std::shared_mutex::lock is pthread_rwlock_wrlock in libstdc++.)
// expect spd: deadlocks 1
// expect lockorder: deadlocks 1
// expect fasttrack: none
// expect check: well-formed
// retries: 3
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

pthread_rwlock_t a = PTHREAD_RWLOCK_INITIALIZER;
pthread_rwlock_t b = PTHREAD_RWLOCK_INITIALIZER;
pthread_barrier_t both_hold_one;

void* forward(void* arg) {
  pthread_rwlock_wrlock(&a);
  pthread_barrier_wait(&both_hold_one);
  pthread_rwlock_wrlock(&b);  // blocks for good: T2 holds b and waits for a
  return arg;
}

void* backward(void* arg) {
  pthread_rwlock_wrlock(&b);
  pthread_barrier_wait(&both_hold_one);
  pthread_rwlock_wrlock(&a);
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
