// Two threads increment a counter without a lock: a race in every schedule.
// expect fasttrack: race counter
// expect lockset: race counter
// expect check: well-formed
#include <pthread.h>

int counter;

void* work(void* arg) {
  for (int i = 0; i < 100; ++i) counter++;
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, work, 0);
  pthread_create(&b, 0, work, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return counter == 0;
}
