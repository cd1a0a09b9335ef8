// flockfile/funlockfile lock the FILE: writes of `lines` inside are ordered (no race), the
// unprotected `total` races. Nested flockfile (the lock is recursive) is one critical section.
// expect check: well-formed
// expect fasttrack: no-race lines
// expect fasttrack: race total
// expect lockset: no-race lines
#include <pthread.h>
#include <stdio.h>

long lines, total;

void* writer(void* arg) {
  for (int i = 0; i < 100; ++i) {
    flockfile(stderr);
    flockfile(stderr);
    lines++;
    funlockfile(stderr);
    lines++;
    funlockfile(stderr);
  }
  total++;
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, writer, 0);
  pthread_create(&b, 0, writer, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;  // no read here: lock sets would flag it (they ignore the joins)
}
