// exit() called by a thread while another thread spins in critical sections (RECORDER.md
// pitfall 4): the recording stops where it stops, and the trace is well-formed (a spinner
// may end holding its lock, which the trace format allows).
// expect check: well-formed
// expect fasttrack: no-race spins
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
long spins;

void* spinner(void* arg) {
  for (;;) {
    pthread_mutex_lock(&m);
    spins++;
    pthread_mutex_unlock(&m);
  }
  return arg;
}

void* quitter(void* arg) {
  usleep(20 * 1000);
  exit(0);
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, spinner, 0);
  pthread_create(&b, 0, quitter, 0);
  pthread_join(a, 0);
  return 1;
}
