// Overhead benchmark (bench/recorder/overhead.sh), the program of the recorder's speed target:
// THREADS threads x ITERS iterations, each one mutex-protected increment of a shared counter
// and one unsynchronised (racy on purpose) increment of a shared array element.
// mutex_bench.c and racy_bench.c run each half alone.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long counter;
static long shared[1024];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long iters = 1000000;

static void* work(void* arg) {
  const long id = (long)arg;
  for (long i = 0; i < iters; ++i) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
    shared[(i * 7 + id) & 1023] += i;
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
