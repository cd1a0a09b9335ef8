// Overhead benchmark of the atomics model (bench/recorder/overhead.sh): THREADS threads x ITERS
// iterations of a relaxed fetch_add on a shared counter, a release store of the thread's slot
// and an acquire load of its neighbour's.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_long counter;
static atomic_long slots[64];
static long iters = 1000000;
static int threads = 4;

static void* work(void* arg) {
  const long id = (long)arg;
  long seen = 0;
  for (long i = 0; i < iters; ++i) {
    atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
    atomic_store_explicit(&slots[id], i, memory_order_release);
    seen += atomic_load_explicit(&slots[(id + 1) % threads], memory_order_acquire);
  }
  return (void*)seen;
}

int main(int argc, char** argv) {
  if (argc > 1) threads = atoi(argv[1]);
  if (argc > 2) iters = atol(argv[2]);
  if (threads < 1 || threads > 64) threads = 4;
  pthread_t t[64];
  for (long i = 0; i < threads; ++i) pthread_create(&t[i], 0, work, (void*)i);
  for (int i = 0; i < threads; ++i) pthread_join(t[i], 0);
  printf("%ld\n", atomic_load(&counter));
  return 0;
}
