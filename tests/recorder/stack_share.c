// main passes the address of a local to a thread and both write it (RECORDER.md §5: stack
// accesses must not be filtered): a race.
// expect fasttrack: race stack of T0
#include <pthread.h>

void* work(void* arg) {
  *(volatile int*)arg = 1;
  return arg;
}

int main(void) {
  volatile int local = 0;
  pthread_t t;
  pthread_create(&t, 0, work, (void*)&local);
  local = 2;
  pthread_join(t, 0);
  return 0;
}
