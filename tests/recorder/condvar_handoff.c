// A condition-variable hand-off with nothing in the critical sections that conflicts: the
// consumer announces (relaxed, which orders nothing) that it waits, the producer writes `data`,
// then signals under the mutex. Only the signal orders `data`: send(cv) before the signal,
// recv(cv) at the wait's return, which no valid reordering may break, so the predictive engines
// find no race on `data`. `after_signal` is written after the signal: the racy twin, found.
// expect fasttrack: no-race data
// expect wcp: no-race data
// expect pwr-cs: no-race data
// expect fasttrack: race after_signal
// expect wcp: race after_signal
// expect pwr-cs: race after_signal
// expect check: well-formed
// retries: 3
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
atomic_int waiting;
int data, after_signal;

void* consumer(void* arg) {
  pthread_mutex_lock(&m);
  atomic_store_explicit(&waiting, 1, memory_order_relaxed);
  pthread_cond_wait(&cv, &m);  // (no predicate: the producer signals only once we wait)
  pthread_mutex_unlock(&m);
  return (void*)(long)(data + after_signal);
}

void* producer(void* arg) {
  data = 42;
  while (!atomic_load_explicit(&waiting, memory_order_relaxed)) sched_yield();
  pthread_mutex_lock(&m);  // the consumer waits: it announced it holding the mutex
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&m);
  after_signal = 1;
  return arg;
}

int main(void) {
  pthread_t c, p;
  pthread_create(&c, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(c, 0);
  pthread_join(p, 0);
  return 0;
}
