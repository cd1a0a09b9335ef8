// Overhead benchmark (bench/recorder/overhead.sh): THREADS threads x ITERS mutex-protected
// increments of one counter.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long counter;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long iters = 1000000;

static void* work(void* arg) {
  for (long i = 0; i < iters; ++i) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
  }
  return arg;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  if (argc > 2) iters = atol(argv[2]);
  pthread_t t[64];
  for (int i = 0; i < threads && i < 64; ++i) pthread_create(&t[i], 0, work, 0);
  for (int i = 0; i < threads && i < 64; ++i) pthread_join(t[i], 0);
  printf("%ld\n", counter);
  return 0;
}
