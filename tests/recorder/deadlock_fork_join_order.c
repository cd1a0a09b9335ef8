// ThreadSanitizer's lock-order-inversion false alarm for orders separated by thread creation
// and join: main takes `a` then `b` before it creates the worker, the worker takes `b` then `a`,
// and main takes `a` then `b` again only after joining it. The two orders are never pending at
// once, so there is no deadlock: spd and lockorder report none.
// expect spd: deadlocks 0
// expect lockorder: deadlocks 0
// expect fasttrack: none
// expect check: well-formed
#include <pthread.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;

static void a_then_b(void) {
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
}

void* worker(void* arg) {
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return arg;
}

int main(void) {
  pthread_t t;
  a_then_b();
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  a_then_b();
  return 0;
}
