// The threads of lock_order_inversion.c, each holding the mutex `guard` around its two
// acquisitions: the guard lets only one order run at a time, so there is no deadlock, and
// lockorder and spd report none (ThreadSanitizer reports an inversion here: its detector has no
// guard-lock filter).
// expect lockorder: deadlocks 0
// expect spd: deadlocks 0
// expect fasttrack: none
// expect check: well-formed
#include <pthread.h>
#include <stdatomic.h>

pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t guard = PTHREAD_MUTEX_INITIALIZER;
atomic_int done;

void* forward(void* arg) {
  pthread_mutex_lock(&guard);
  pthread_mutex_lock(&first);
  pthread_mutex_lock(&second);
  pthread_mutex_unlock(&second);
  pthread_mutex_unlock(&first);
  pthread_mutex_unlock(&guard);
  atomic_store_explicit(&done, 1, memory_order_release);
  return arg;
}

void* backward(void* arg) {
  while (!atomic_load_explicit(&done, memory_order_acquire)) {
  }
  pthread_mutex_lock(&guard);
  pthread_mutex_lock(&second);
  pthread_mutex_lock(&first);
  pthread_mutex_unlock(&first);
  pthread_mutex_unlock(&second);
  pthread_mutex_unlock(&guard);
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
