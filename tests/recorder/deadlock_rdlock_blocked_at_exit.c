// A deadlock whose second step is a read lock: T1 takes the write lock of `a` and then wants
// `b`; T2 takes `b` and then wants to read `a`. A barrier lets each take its first lock before
// either asks for its second, so this run deadlocks: T2's read waits for T1's write hold. main
// exits while both wait, so T1's trace ends with req(b) and T2's with rreq(a), the read request
// (pthread_rwlock_rdlock, std::shared_mutex::lock_shared). spd predicts the deadlock from the
// two requests and lockorder reports the cycle. (Were T1's hold of `a` a read hold, T2's read
// would be granted: tests/recorder/deadlock_read_read.c.)
// expect spd: deadlocks 1
// expect lockorder: deadlocks 1
// expect fasttrack: none
// expect check: well-formed
// expect location-rreq: deadlock_rdlock_blocked_at_exit.c
// retries: 3
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

pthread_rwlock_t a = PTHREAD_RWLOCK_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
pthread_barrier_t both_hold_one;

void* writer_then_mutex(void* arg) {
  pthread_rwlock_wrlock(&a);
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&b);  // blocks for good: T2 holds b and waits to read a
  return arg;
}

void* mutex_then_reader(void* arg) {
  pthread_mutex_lock(&b);
  pthread_barrier_wait(&both_hold_one);
  pthread_rwlock_rdlock(&a);  // blocks for good: T1 holds a in write mode
  return arg;
}

int main(void) {
  pthread_t t1, t2;
  pthread_barrier_init(&both_hold_one, 0, 2);
  pthread_create(&t1, 0, writer_then_mutex, 0);
  pthread_create(&t2, 0, mutex_then_reader, 0);
  usleep(300 * 1000);  // both are blocked by now (or the run is retried)
  exit(0);             // without joining: the threads never finish
}
