// ThreadSanitizer's false alarm for shared (read) holds of a read-write lock: T1 holds `rw` in
// read mode and takes `m`; T2 holds `m` and takes `rw` in read mode. A read request is not
// blocked by a read hold, so the cycle cannot deadlock: spd and lockorder report none.
// expect spd: deadlocks 0
// expect lockorder: deadlocks 0
// expect fasttrack: none
// expect check: well-formed
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
atomic_int t1_done;

void* reader_then_mutex(void* arg) {
  pthread_rwlock_rdlock(&rw);
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  pthread_rwlock_unlock(&rw);
  atomic_store_explicit(&t1_done, 1, memory_order_relaxed);
  return arg;
}

void* mutex_then_reader(void* arg) {
  while (!atomic_load_explicit(&t1_done, memory_order_relaxed)) {
    sched_yield();  // fewer recorded loads while waiting
  }
  pthread_mutex_lock(&m);
  pthread_rwlock_rdlock(&rw);
  pthread_rwlock_unlock(&rw);
  pthread_mutex_unlock(&m);
  return arg;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t2, 0, mutex_then_reader, 0);
  pthread_create(&t1, 0, reader_then_mutex, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
