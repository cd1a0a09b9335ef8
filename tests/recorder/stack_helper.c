// A race inside a helper that two thread functions call through different paths, one of them
// holding a mutex. Recorded with call stacks, both accesses' stacks name the helper and its
// callers, the mutex is shown with where it was acquired, each thread's creation site is the
// pthread_create in start_workers called from main, and the text report has ThreadSanitizer's
// layout.
// record-args: --stack-depth 8
// expect fasttrack: race counter
// expect fasttrack: stacks counter bump,left_side,worker_left / bump,right_side,worker_right
// expect fasttrack: created counter start_workers,main
// expect shb: stacks counter bump,left_side,worker_left / bump,right_side,worker_right
// expect text fasttrack: WARNING: racepred: data race \(engine fasttrack, \w+\)\n  (Write|Read)
// expect text fasttrack: \n  (Write|Read) of counter by thread T\d \(event \d+\):\n    #0 bump
// expect text fasttrack: #0 bump [^\n]*stack_helper\.c:30:\d+\n    #1 (left|right)_side
// expect text fasttrack: #1 (left|right)_side [^\n]*stack_helper\.c:(36|40):\d+\n
// expect text fasttrack: \n  Previous (write|read) of counter by thread T\d \(event \d+\):\n
// expect text fasttrack: #1 left_side [^\n]*c:36:\d+\n    #2 worker_left [^\n]*c:44:\d+\n  Mutex m
// expect text fasttrack: Mutex m held by thread T\d acquired at \(event \d+\):\n    #0 left_side
// expect text fasttrack: \n    #0 left_side [^\n]*stack_helper\.c:35:\d+\n
// expect text fasttrack: \n  Thread T\d created by main thread at:\n    #0 start_workers
// expect text fasttrack: #0 start_workers [^\n]*c:5[34]:\d+\n    #1 main [^\n]*c:59:\d+\n
// expect text fasttrack: \n  SUMMARY: racepred: data race [^\n]*stack_helper\.c:30:\d+ in bump\n
// expect check: well-formed
#include <pthread.h>

int counter;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

// noinline: each function is a frame of its own at any optimisation level.
__attribute__((noinline)) void bump(void) {
  counter++;
}

// Only one side takes the mutex: the two increments race.
__attribute__((noinline)) void left_side(void) {
  pthread_mutex_lock(&m);
  bump();
  pthread_mutex_unlock(&m);
}
__attribute__((noinline)) void right_side(void) {
  bump();
}

void* worker_left(void* arg) {
  left_side();
  return arg;
}
void* worker_right(void* arg) {
  right_side();
  return arg;
}

__attribute__((noinline)) void start_workers(pthread_t* a, pthread_t* b) {
  pthread_create(a, 0, worker_left, 0);
  pthread_create(b, 0, worker_right, 0);
}

int main(void) {
  pthread_t a, b;
  start_workers(&a, &b);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return counter == 0;
}
