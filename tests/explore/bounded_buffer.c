// A bounded buffer whose two producers take a slot without a lock between them: both may read
// the same `in` before either advances it, one item overwrites the other and the consumer gets
// a slot nobody filled. The lost item needs a preemption between a producer's memory accesses
// (the Goldilocks reduction branches there: the accesses race); the race on `in` is in every
// execution. Every access point where another thread could run is racy here, so the reduced
// search is the unreduced one.
// explore: --strategy dfs --preemptions 1 => assertion, race:in, complete, unreduced-same
// explore: --executions 100 => assertion
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>

#define N 2
int buf[N];
int in, out;
sem_t empty, full;

static void* producer(void* arg) {
  sem_wait(&empty);
  const int i = in;
  buf[i] = (int)(long)arg;
  in = (i + 1) % N;
  sem_post(&full);
  return 0;
}

int main(void) {
  sem_init(&empty, 0, N);
  sem_init(&full, 0, 0);
  pthread_t a, b;
  pthread_create(&a, 0, producer, (void*)1);
  pthread_create(&b, 0, producer, (void*)2);
  int sum = 0;
  for (int k = 0; k < 2; ++k) {
    sem_wait(&full);
    sum += buf[out];
    out = (out + 1) % N;
    sem_post(&empty);
  }
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(sum == 3);
  return 0;
}
