// ABBA where one side asks for its second lock with pthread_mutex_timedlock: the run reaches
// the deadlock (a barrier lets each thread take its first lock), T1's timed lock times out, T1
// releases `a` and T2 gets it. A timed lock that timed out leaves nothing in the trace (no
// req: T1 was never stuck for good), T2's request is granted (req, then acq), so there is no
// lock-order cycle and no deadlock: both engines report none, and the trace is well-formed.
// expect spd: deadlocks 0
// expect lockorder: deadlocks 0
// expect check: well-formed
// expect status: 0
// retries: 3
#include <errno.h>
#include <pthread.h>
#include <time.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
pthread_barrier_t both_hold_one;
int timed_out;

void* forward(void* arg) {
  pthread_mutex_lock(&a);
  pthread_barrier_wait(&both_hold_one);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += 100 * 1000 * 1000;
  if (until.tv_nsec >= 1000000000) {
    until.tv_sec += 1;
    until.tv_nsec -= 1000000000;
  }
  if (pthread_mutex_timedlock(&b, &until) == 0)
    pthread_mutex_unlock(&b);
  else
    timed_out = 1;
  pthread_mutex_unlock(&a);
  return arg;
}

void* backward(void* arg) {
  pthread_mutex_lock(&b);
  pthread_barrier_wait(&both_hold_one);
  pthread_mutex_lock(&a);  // waits until T1 gives up
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return arg;
}

int main(void) {
  pthread_t t1, t2;
  pthread_barrier_init(&both_hold_one, 0, 2);
  pthread_create(&t1, 0, forward, 0);
  pthread_create(&t2, 0, backward, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return timed_out ? 0 : 1;  // a run in which T1 got b is retried
}
