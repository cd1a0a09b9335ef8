// A cap on the recording's size (racepred record --max-mb 1) stops recording cleanly: the
// trace is a consistent, well-formed prefix of the run.
// record-args: --max-mb 1
// expect check: well-formed
// expect fasttrack: no-race counter
#include <pthread.h>

long counter;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void* work(void* arg) {
  for (int i = 0; i < 200000; ++i) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
  }
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, work, 0);
  pthread_create(&b, 0, work, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
