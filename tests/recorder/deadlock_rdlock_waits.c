// A read lock that waits and is then granted: T1 holds the write lock of `a` until T2, which
// holds `m`, has asked to read `a`; T2's pthread_rwlock_rdlock finds `a` held and leaves rreq(a)
// before it blocks, then T1 releases `a` and T2 gets it (racq(a)). The run completes: the
// granted read request is no deadlock step, and T1 never takes `m` while it holds `a`, so spd
// and lockorder report nothing. The trace keeps the request with its source line.
// expect spd: deadlocks 0
// expect lockorder: deadlocks 0
// expect fasttrack: none
// expect check: well-formed
// expect location-rreq: deadlock_rdlock_waits.c
// retries: 3
#include <pthread.h>
#include <unistd.h>

pthread_rwlock_t a = PTHREAD_RWLOCK_INITIALIZER;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_barrier_t writer_holds;

void* writer(void* arg) {
  pthread_rwlock_wrlock(&a);
  pthread_barrier_wait(&writer_holds);
  usleep(100 * 1000);  // T2 is blocked in its read lock by now (or the run is retried)
  pthread_rwlock_unlock(&a);
  return arg;
}

void* reader(void* arg) {
  pthread_barrier_wait(&writer_holds);
  pthread_mutex_lock(&m);
  pthread_rwlock_rdlock(&a);  // waits for the writer: rreq(a), then racq(a)
  pthread_rwlock_unlock(&a);
  pthread_mutex_unlock(&m);
  return arg;
}

int main(void) {
  pthread_t t1, t2;
  pthread_barrier_init(&writer_holds, 0, 2);
  pthread_create(&t1, 0, writer, 0);
  pthread_create(&t2, 0, reader, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return 0;
}
