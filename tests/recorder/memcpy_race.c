// memcpy into a shared buffer races with a plain write (mem* are intercepted as range
// accesses, RECORDER.md §1).
// expect fasttrack: race buffer
// confirm follows shb's witness and holds the copier at its memcpy as at a plain access
// (tests/confirm/run_test.py): reproduced by the witness's order in the first execution.
// confirm: -e shb => reproduced:buffer[0], witnessed:buffer[0], method:buffer[0]=witness
#include <pthread.h>
#include <string.h>

char buffer[64];
char source[64] = "racepred";

void* copier(void* arg) {
  memcpy(buffer, source, sizeof buffer);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, copier, 0);
  buffer[0] = 'x';
  pthread_join(t, 0);
  return 0;
}
