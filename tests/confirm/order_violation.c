// An order violation: main initialises `data` after starting the worker that checks it. In the
// recorded run main keeps running until it joins, so the worker sees 42; racepred confirm holds
// main at its write until the worker is about to read, runs the read first, and the assertion
// fails. No lock is involved: fasttrack's first race is predicted.
// confirm: --engines fasttrack => reproduced:data, failure:assertion
#include <assert.h>
#include <pthread.h>

int data, seen;

void* worker(void* arg) {
  seen = data;  // the read; the write to `seen` is the next access (the scheduler's step)
  assert(seen == 42);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  data = 42;  // too late: the worker may already have read
  pthread_join(t, 0);
  return 0;
}
