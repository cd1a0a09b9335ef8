// A pthread rwlock: two readers and a writer (RECORDER.md pitfall 10). Readers hold the lock
// together (racq/rrel in the trace): the writer's data reaches the readers without a race, but
// the counter both readers increment under the read lock is a real race, which the lock-set
// engine sees on every run (both hold the lock in read mode only).
// expect fasttrack: no-race shared
// expect lockset: no-race shared
// expect lockset: race readers
// expect check: well-formed
#include <pthread.h>

pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
int shared;
int readers;  // written under the read lock: racy

void* reader(void* arg) {
  int sum = 0;
  for (int i = 0; i < 50; ++i) {
    pthread_rwlock_rdlock(&l);
    sum += shared;
    readers++;
    pthread_rwlock_unlock(&l);
  }
  return (void*)(long)sum;
}

void* writer(void* arg) {
  for (int i = 0; i < 50; ++i) {
    pthread_rwlock_wrlock(&l);
    shared++;
    pthread_rwlock_unlock(&l);
  }
  return arg;
}

int main(void) {
  pthread_t r1, r2, w;
  pthread_create(&r1, 0, reader, 0);
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r2, 0, reader, 0);
  pthread_join(r1, 0);
  pthread_join(r2, 0);
  pthread_join(w, 0);
  return 0;
}
