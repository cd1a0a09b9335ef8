// Overhead benchmark (bench/recorder/overhead.sh) of call stacks: as increments_bench.c, but
// every increment is done by a helper two calls deep, so that each iteration enters and leaves
// four instrumented functions (what `--stack-depth` records) around its four accesses.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long counter;
static long shared[1024];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long iters = 1000000;

__attribute__((noinline)) static void add(long* p, long v) {
  *p += v;
}
__attribute__((noinline)) static void locked_increment(void) {
  pthread_mutex_lock(&m);
  add(&counter, 1);
  pthread_mutex_unlock(&m);
}
__attribute__((noinline)) static void racy_add(long i, long id) {
  add(&shared[(i * 7 + id) & 1023], i);
}

static void* work(void* arg) {
  const long id = (long)arg;
  for (long i = 0; i < iters; ++i) {
    locked_increment();
    racy_add(i, id);
  }
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
  printf("%ld %ld\n", counter, sum);
  return 0;
}
