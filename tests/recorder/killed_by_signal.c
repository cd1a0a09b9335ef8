// A program killed by a signal (SIGKILL: no handler, no atexit, no flush) while its main
// thread still holds unwritten events: `racepred record` keeps the consistent prefix (every
// event below the first one a thread may have lost), which is well-formed. All three threads
// write `early` without synchronisation first and meet at a barrier (so that those writes come
// before the main thread's later, flushed events whatever the schedule), then count under a
// lock long enough for every thread to write full buffers: the race is inside the prefix.
// expect check: well-formed
// expect fasttrack: race early
// expect fasttrack: no-race counter
// expect status: 137
#include <pthread.h>
#include <signal.h>

enum { kIterations = 50000 };
int early;
long counter;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_barrier_t started;

void* work(void* arg) {
  early = 1;
  pthread_barrier_wait(&started);
  for (int i = 0; i < kIterations; ++i) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
  }
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_barrier_init(&started, 0, 3);
  pthread_create(&a, 0, work, 0);
  pthread_create(&b, 0, work, 0);
  work(0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  raise(SIGKILL);
  return 0;
}
