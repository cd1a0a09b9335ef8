// Semaphores, barriers and pthread_once order memory without a mutex (RECORDER.md pitfall
// 12): no race. They are recorded as send/recv, an order no valid reordering may break, so the
// predictive engines and the exact ground truth find no race either (as empty lock sections,
// `exact` reported races here). The racy twin: sync_orders_racy.c.
// expect fasttrack: none
// expect shb: none
// expect wcp: none
// expect pwr-cs: none
// expect exact: none
// expect check: well-formed
#include <pthread.h>
#include <semaphore.h>

sem_t sem;
pthread_barrier_t barrier;
pthread_once_t once = PTHREAD_ONCE_INIT;
int by_sem, by_barrier[2], by_once;

void init_once(void) {
  by_once = 7;
}

void* t1(void* arg) {
  by_sem = 1;
  sem_post(&sem);
  by_barrier[0] = 1;
  pthread_barrier_wait(&barrier);
  pthread_once(&once, init_once);
  return (void*)(long)(by_barrier[1] + by_once);
}

void* t2(void* arg) {
  sem_wait(&sem);
  int v = by_sem;
  by_barrier[1] = 2;
  pthread_barrier_wait(&barrier);
  pthread_once(&once, init_once);
  return (void*)(long)(v + by_barrier[0] + by_once);
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
