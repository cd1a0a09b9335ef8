// A lock-order inversion that deadlocks in every run: T1 holds a and T2 holds b when both
// pass the barrier, then each asks for the other's lock. Under RACEPRED_SCHEDULE=serial the
// run ends with "all threads blocked" naming each thread and what it waits for.
#include <pthread.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
pthread_barrier_t both;

void* t1(void* arg) {
  pthread_mutex_lock(&a);
  pthread_barrier_wait(&both);
  pthread_mutex_lock(&b);
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return arg;
}

void* t2(void* arg) {
  pthread_mutex_lock(&b);
  pthread_barrier_wait(&both);
  pthread_mutex_lock(&a);
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return arg;
}

int main(void) {
  pthread_t x, y;
  pthread_barrier_init(&both, 0, 2);
  pthread_create(&x, 0, t1, 0);
  pthread_create(&y, 0, t2, 0);
  pthread_join(x, 0);
  pthread_join(y, 0);
  return 0;
}
