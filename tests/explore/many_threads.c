// Many threads: more than the in-process planner numbers (256), so the runtime asks racepred
// over the channel from the first choice point where a thread numbered 256 or above is a
// candidate (docs/EXPLORE.md, "The plan"); the executions are the same. No bug.
// explore: --strategy random --seed 1 --executions 3 => norace:counter, round-trip-same, forked-same
// explore: --strategy pct --depth 2 --seed 1 --executions 3 => norace:counter, round-trip-same
#include <pthread.h>

#define THREADS 260

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void* work(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  ++counter;
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; ++i) pthread_create(&t[i], 0, work, 0);
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], 0);
  return counter == THREADS ? 0 : 1;
}
