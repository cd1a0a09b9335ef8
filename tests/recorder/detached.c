// A detached thread that is never joined (RECORDER.md pitfall 3) writes `shared`; main writes
// it too without synchronisation: a race, and the detached thread's events are in the trace.
// expect fasttrack: race shared
// expect check: well-formed
#include <pthread.h>
#include <unistd.h>

int shared;

void* work(void* arg) {
  shared = 1;
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, work, 0);
  pthread_detach(t);
  usleep(50 * 1000);
  shared = 2;
  return 0;
}
