// Four threads compute in phases separated by a barrier: each writes its own slot of `data` in
// a phase and reads its neighbour's slot in the next. Race-free: every arrival at the barrier
// comes before every departure (send/recv), which no valid reordering may break, so the
// predictive engines find nothing either (recorded as empty lock sections, wcp reported
// `data+16` written in phase 0 against a read in phase 1). `unsynced` is written by every
// thread without the barrier between: the racy twin, still found.
// expect fasttrack: no-race data
// expect wcp: no-race data
// expect pwr-cs: no-race data
// expect shb: no-race data
// expect fasttrack: race unsynced
// expect wcp: race unsynced
// expect pwr-cs: race unsynced
// expect check: well-formed
#include <pthread.h>

enum { kThreads = 4, kPhases = 4 };
pthread_barrier_t barrier;
long data[kThreads];
long unsynced;

void* work(void* arg) {
  const long id = (long)arg;
  long sum = 0;
  for (int phase = 0; phase < kPhases; ++phase) {
    data[id] = phase * 10 + id;
    pthread_barrier_wait(&barrier);
    sum += data[(id + 1) % kThreads];
    pthread_barrier_wait(&barrier);
  }
  unsynced = sum;
  return (void*)sum;
}

int main(void) {
  pthread_barrier_init(&barrier, 0, kThreads);
  pthread_t t[kThreads];
  for (long i = 0; i < kThreads; ++i) pthread_create(&t[i], 0, work, (void*)i);
  for (int i = 0; i < kThreads; ++i) pthread_join(t[i], 0);
  return 0;
}
