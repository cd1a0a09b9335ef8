// use_before_init.c fixed: the table is set up before the worker starts (thread creation
// orders it).
// explore: --strategy dfs --preemptions 2 => nothing
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

static int storage[4];
int* table;

static void* worker(void* arg) {
  assert(table != NULL);
  table[0] += 1;
  return arg;
}

int main(void) {
  pthread_t t;
  table = storage;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  return 0;
}
