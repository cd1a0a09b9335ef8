// Heap address reuse (RECORDER.md pitfall 8): T1 allocates, writes and frees a block; T2 then
// allocates (often getting the same address) and writes. Each allocation is its own set of
// variables, so the reuse creates no false race.
// expect fasttrack: none
// expect check: well-formed
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noipa)) void fill(int* p, int v) {
  for (int i = 0; i < 16; ++i) p[i] = v;
}

void* t1(void* arg) {
  int* p = malloc(64);
  fill(p, 1);
  free(p);
  return arg;
}

void* t2(void* arg) {
  usleep(50 * 1000);
  int* p = malloc(64);
  fill(p, 2);
  free(p);
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
