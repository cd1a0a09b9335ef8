// bounded_buffer.c fixed: the producers take their slot under a mutex.
// explore: --strategy dfs --preemptions 2 => nothing
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>

#define N 2
int buf[N];
int in, out;
sem_t empty, full;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void* producer(void* arg) {
  sem_wait(&empty);
  pthread_mutex_lock(&m);
  const int i = in;
  buf[i] = (int)(long)arg;
  in = (i + 1) % N;
  pthread_mutex_unlock(&m);
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
