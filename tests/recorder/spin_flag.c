// The "deferred read" ordering (RECORDER.md §4): T2 spins on a plain (volatile) flag that T1
// sets after writing `data`, then reads `data`. ThreadSanitizer's callbacks run before the
// access, so without deferral T2's last read of `flag` (the one that saw 1) could be placed
// before T1's write of it. With it, that read follows the write in the trace, and shb (which
// orders a read after the last write it follows in the trace) finds `data` ordered: the race
// is on `flag` only. hb/fasttrack see no synchronisation at all and report both.
// expect shb: race flag
// expect shb: no-race data
// expect fasttrack: race data
// expect check: well-formed
#include <pthread.h>

int data;
volatile int flag;

void* producer(void* arg) {
  data = 42;
  flag = 1;
  return arg;
}

void* consumer(void* arg) {
  while (!flag) {
  }
  return (void*)(long)data;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&b, 0, consumer, 0);
  pthread_create(&a, 0, producer, 0);
  void* got;
  pthread_join(b, &got);
  pthread_join(a, 0);
  return got != (void*)42L;
}
