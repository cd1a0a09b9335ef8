// Overhead benchmark (bench/recorder/overhead.sh): racy_bench.c's loop with nothing shared —
// THREADS threads x ITERS increments of an array of the thread's own. What recording one read
// and one write costs when no cache line moves between threads (the floor under racy_bench.c,
// whose loop is the same on one shared array).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long own[64][1024];
static long iters = 1000000;

static void* work(void* arg) {
  const long id = (long)arg;
  for (long i = 0; i < iters; ++i) own[id][(i * 7 + id) & 1023] += i;
  return arg;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  if (argc > 2) iters = atol(argv[2]);
  pthread_t t[64];
  for (long i = 0; i < threads && i < 64; ++i) pthread_create(&t[i], 0, work, (void*)i);
  for (int i = 0; i < threads && i < 64; ++i) pthread_join(t[i], 0);
  long sum = 0;
  for (int t2 = 0; t2 < threads && t2 < 64; ++t2)
    for (int i = 0; i < 1024; ++i) sum += own[t2][i];
  printf("%ld\n", sum);
  return 0;
}
