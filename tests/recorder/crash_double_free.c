// A heap-corruption abort (glibc's check finds a double free) after a race: the runtime writes
// the buffers without using the heap (mmap), the race is found, and `racepred record` exits
// 134 (128 + SIGABRT).
// expect check: well-formed
// expect fasttrack: race users
// expect status: 134
#include <pthread.h>
#include <stdlib.h>

int users;

void* use(void* arg) {
  users++;
  return arg;
}

int main(void) {
  int* volatile block = malloc(sizeof *block);
  pthread_t a, b;
  pthread_create(&a, 0, use, 0);
  pthread_create(&b, 0, use, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  free(block);
  free(block);  // "free(): double free detected": abort
  return 0;
}
