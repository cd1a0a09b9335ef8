// Use before initialisation: main starts the worker, then sets up the table the worker uses.
// No synchronisation operation lies between the two, so only a scheduling point at the memory
// accesses (the Goldilocks reduction makes main's write of `table` one: it races with the
// worker's read) lets the worker run first and fail.
// explore: --strategy dfs --preemptions 1 => assertion, race:table, complete, reduces
// explore: --strategy dfs --sync-only --preemptions 1 => race:table, complete, forked-same, sharded
// explore: --executions 100 => assertion
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
  pthread_create(&t, 0, worker, 0);
  table = storage;
  pthread_join(t, 0);
  return 0;
}
