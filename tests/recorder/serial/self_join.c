// A thread that joins itself waits forever in the model (glibc's join returns EDEADLK): under
// RACEPRED_SCHEDULE=serial the run ends once the other thread is done, naming the self-join.
#include <pthread.h>

int shared;

void* worker(void* arg) {
  shared = 1;
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(pthread_self(), 0);
  pthread_join(t, 0);
  return shared;
}
