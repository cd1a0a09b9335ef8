// A lockset false alarm: no lock protects `x`, but thread creation and join order every access.
// The lockset engine warns (possible); confirm never runs the two accesses back to back.
// confirm: --engines lockset --executions 20 => possible:x, notreproduced:x
#include <pthread.h>

int x;

void* child(void* arg) {
  x = 2;
  return arg;
}

int main(void) {
  pthread_t t;
  x = 1;
  pthread_create(&t, 0, child, 0);
  pthread_join(t, 0);
  x = 3;
  return 0;
}
