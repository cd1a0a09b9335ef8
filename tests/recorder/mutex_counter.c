// The same counter under a mutex, read by main under the mutex after the joins: no race.
// expect fasttrack: none
// expect lockset: none
// expect check: well-formed
#include <pthread.h>

int counter;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void* work(void* arg) {
  for (int i = 0; i < 100; ++i) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
  }
  return arg;
}

int main(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; ++i) pthread_create(&t[i], 0, work, 0);
  for (int i = 0; i < 4; ++i) pthread_join(t[i], 0);
  pthread_mutex_lock(&m);
  int c = counter;
  pthread_mutex_unlock(&m);
  return c != 400;
}
