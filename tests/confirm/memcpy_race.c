// A race between a memcpy and a plain write: the memcpy's side is an access of libc's, made
// inside the runtime's memcpy interceptor. Following shb's witness holds the copier at its
// memcpy as at a plain access, so the race is reproduced in the first execution by the witness's
// order (before, the copier ran past it and only holding main's write reproduced it).
// confirm: -e shb => reproduced:buffer[0], witnessed:buffer[0], method:buffer[0]=witness
#include <pthread.h>
#include <string.h>

char buffer[64];
char source[64] = "racepred";

static void* copier(void* arg) {
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
