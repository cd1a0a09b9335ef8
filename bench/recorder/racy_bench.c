// Overhead benchmark (bench/recorder/overhead.sh): THREADS threads x ITERS unsynchronised
// increments of a shared array (racy on purpose).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long shared[1024];
static long iters = 1000000;

static void* work(void* arg) {
  const long id = (long)arg;
  for (long i = 0; i < iters; ++i) shared[(i * 7 + id) & 1023] += i;
  return arg;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  if (argc > 2) iters = atol(argv[2]);
  pthread_t t[64];
  for (long i = 0; i < threads && i < 64; ++i) pthread_create(&t[i], 0, work, (void*)i);
  for (int i = 0; i < threads && i < 64; ++i) pthread_join(t[i], 0);
  long sum = 0;
  for (int i = 0; i < 1024; ++i) sum += shared[i];
  printf("%ld\n", sum);
  return 0;
}
