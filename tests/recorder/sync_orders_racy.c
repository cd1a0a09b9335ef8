// The racy twin of sem_barrier_once.c: each object orders something, but not these accesses.
// `after_post` is written after the sem_post that should publish it, `same_phase` is written
// and read after the same barrier wait, `beside_once` is written beside the once, not by its
// initialiser. Every engine still finds the three races (send/recv order only what they say).
// expect fasttrack: race after_post
// expect fasttrack: race same_phase
// expect fasttrack: race beside_once
// expect wcp: race after_post
// expect wcp: race same_phase
// expect wcp: race beside_once
// expect pwr-cs: race after_post
// expect pwr-cs: race same_phase
// expect pwr-cs: race beside_once
// expect exact: race after_post
// expect exact: race same_phase
// expect exact: race beside_once
// expect check: well-formed
#include <pthread.h>
#include <semaphore.h>

sem_t sem;
pthread_barrier_t barrier;
pthread_once_t once = PTHREAD_ONCE_INIT;
int after_post, same_phase, beside_once, by_once;

void init_once(void) {
  by_once = 7;
}

void* t1(void* arg) {
  sem_post(&sem);
  after_post = 1;
  pthread_barrier_wait(&barrier);
  same_phase = 1;
  pthread_once(&once, init_once);
  beside_once = 1;
  return arg;
}

void* t2(void* arg) {
  sem_wait(&sem);
  int v = after_post;
  pthread_barrier_wait(&barrier);
  v += same_phase;
  pthread_once(&once, init_once);
  v += beside_once + by_once;
  return (void*)(long)v;
}

int main(void) {
  sem_init(&sem, 0, 0);
  pthread_barrier_init(&barrier, 0, 2);
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
