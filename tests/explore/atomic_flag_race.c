// An atomic flag publishes `data` correctly (release store, acquire load: no race on data),
// but `stats` is written by both threads with nothing ordering the two writes: a data race on
// stats only. The reader spins on the flag: fair scheduling lets the writer run (no hang).
// explore: --strategy dfs --preemptions 1 => race:stats, norace:data, complete, reduces
// explore: --executions 100 => race:stats
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int flag;
int data;
int stats;

static void* writer(void* arg) {
  data = 42;
  atomic_store_explicit(&flag, 1, memory_order_release);
  stats = 1;
  return arg;
}

static void* reader(void* arg) {
  while (!atomic_load_explicit(&flag, memory_order_acquire)) {
  }
  assert(data == 42);
  stats = 2;
  return arg;
}

int main(void) {
  pthread_t x, y;
  pthread_create(&y, 0, reader, 0);
  pthread_create(&x, 0, writer, 0);
  pthread_join(x, 0);
  pthread_join(y, 0);
  return 0;
}
