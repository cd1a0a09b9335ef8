// ABBA on two spin locks, and this run deadlocks: a barrier lets each thread take its first lock
// before either asks for its second, then both spin. main exits while they spin, so each
// thread's trace ends with its request (pthread_spin_lock tries the lock first and writes a req
// when it is busy). spd predicts the deadlock from the requests, lockorder reports the cycle.
// expect spd: deadlocks 1
// expect lockorder: deadlocks 1
// expect fasttrack: none
// expect check: well-formed
// retries: 3
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

pthread_spinlock_t a, b;
pthread_barrier_t both_hold_one;

void* forward(void* arg) {
  pthread_spin_lock(&a);
  pthread_barrier_wait(&both_hold_one);
  pthread_spin_lock(&b);  // spins for good: T2 holds b and spins for a
  return arg;
}

void* backward(void* arg) {
  pthread_spin_lock(&b);
  pthread_barrier_wait(&both_hold_one);
  pthread_spin_lock(&a);
  return arg;
}

int main(void) {
  pthread_t t1, t2;
  pthread_spin_init(&a, PTHREAD_PROCESS_PRIVATE);
  pthread_spin_init(&b, PTHREAD_PROCESS_PRIVATE);
  pthread_barrier_init(&both_hold_one, 0, 2);
  pthread_create(&t1, 0, forward, 0);
  pthread_create(&t2, 0, backward, 0);
  usleep(300 * 1000);  // both spin by now (or the run is retried)
  exit(0);             // without joining: the threads never finish
}
