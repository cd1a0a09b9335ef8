// The fixed twin of atomic_flag_race.c: the writer updates `stats` before it publishes the
// flag, so the reader's write comes after it in every execution.
// explore: --strategy dfs --preemptions 2 => nothing
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int flag;
int data;
int stats;

static void* writer(void* arg) {
  data = 42;
  stats = 1;
  atomic_store_explicit(&flag, 1, memory_order_release);
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
