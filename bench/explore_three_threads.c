// The program shape of the explore speed target: three threads (main and two workers) and about
// fifty visible operations per execution (2 creates, 2 joins, 2 x 12 lock/unlock pairs), no bug.
#include <pthread.h>

#define ROUNDS 12

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void* work(void* arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; ++i) {
    pthread_mutex_lock(&lock);
    ++counter;
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, work, 0);
  pthread_create(&b, 0, work, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return counter == 2 * ROUNDS ? 0 : 1;
}
