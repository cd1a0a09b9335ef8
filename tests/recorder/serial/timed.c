// Timed waits are choices, not real time, under RACEPRED_SCHEDULE=serial: the worker's timed
// lock of a mutex that main holds while it joins the worker times out at once (no other thread
// is enabled), and its 30-second sleep returns at once; so does main's timed semaphore wait,
// which nobody posts. Prints what happened; the test expects it in well under 30 seconds.
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
sem_t never;
int result;

void* worker(void* arg) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += 30;
  result = pthread_mutex_timedlock(&m, &t);
  sleep(30);
  return arg;
}

int main(void) {
  pthread_t w;
  sem_init(&never, 0, 0);
  pthread_mutex_lock(&m);
  pthread_create(&w, 0, worker, 0);
  pthread_join(w, 0);
  pthread_mutex_unlock(&m);
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += 30;
  const int waited = sem_timedwait(&never, &t);
  printf("timedlock %s, sem_timedwait %s\n", result == ETIMEDOUT ? "timed out" : "locked",
         waited == -1 && errno == ETIMEDOUT ? "timed out" : "returned");
  return 0;
}
