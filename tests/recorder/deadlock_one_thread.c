// ThreadSanitizer's lock-order-inversion false alarm for orders inside one thread: the worker
// takes `a` then `b`, and later `b` then `a`; a thread cannot wait for itself, and main takes
// no lock. spd and lockorder report nothing.
// expect spd: deadlocks 0
// expect lockorder: deadlocks 0
// expect check: well-formed
#include <pthread.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;

void* worker(void* arg) {
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  return 0;
}
