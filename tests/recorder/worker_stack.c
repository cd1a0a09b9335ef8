// A worker thread's stack variable is named after the thread whose stack holds it and its frame
// (docs/RECORDER.md, "Names"): T1 passes the address of its local `shared` to T2 and both
// write it: a race on "stack of T1 (outer) 0x…". T1's `own` local is written by T1 only.
// expect fasttrack: race stack of T1 (outer)
// expect fasttrack: no-race stack of T2
// expect check: well-formed
#include <pthread.h>

static void* inner(void* arg) {
  *(volatile int*)arg = 1;
  return arg;
}

static void* outer(void* arg) {
  volatile int shared = 0;
  volatile int own = 0;
  pthread_t t;
  pthread_create(&t, 0, inner, (void*)&shared);
  shared = 2;
  own = 3;
  pthread_join(t, 0);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, outer, 0);
  pthread_join(t, 0);
  return 0;
}
