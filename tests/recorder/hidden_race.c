// The race the observed schedule hides (docs/RECORDER.md): T1 writes x before its critical
// section, T2 after its own. T2 starts late, so in the run T1's critical section comes first
// and the lock orders the two writes: happens-before (and ThreadSanitizer) see no race. Swapping
// the two critical sections makes the writes adjacent: the lockset engine predicts the race.
// expect fasttrack: no-race x
// expect lockset: race x
// retries: 5
// confirm: --engines shb,syncp => witnessed:x, reproduced:x
#include <pthread.h>
#include <unistd.h>

int x, y;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void* t1(void* arg) {
  x = 1;
  pthread_mutex_lock(&m);
  y = 1;
  pthread_mutex_unlock(&m);
  return arg;
}

void* t2(void* arg) {
  usleep(100 * 1000);  // only shapes the schedule; records no synchronisation
  pthread_mutex_lock(&m);
  y = 2;
  pthread_mutex_unlock(&m);
  x = 2;
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
