// free and delete write the freed block (docs/RECORDER.md, "Heap memory"): T1 uses a block
// and tells main through a plain flag (which orders nothing for happens-before engines); main
// frees the block. The use and the free race (ThreadSanitizer: "data race" on the freed heap
// memory), reported at the free's line. `kept` is freed only after main joins T1: no race.
// expect fasttrack: race heap[*free_race.c:28
// expect fasttrack: race-at heap[*free_race.c:28 free_race.c:35
// expect fasttrack: no-race heap[*free_race.c:29
// expect shb: no-race heap[*free_race.c:29
// expect lockset: race heap[*free_race.c:28
// expect check: well-formed
#include <pthread.h>
#include <stdlib.h>

int* shared;
int* kept;
volatile int done;
volatile int sink;

static void* use(void* arg) {
  sink = shared[1];
  kept[1] = 3;
  done = 1;
  return arg;
}

int main(void) {
  pthread_t t;
  shared = malloc(4 * sizeof(int));
  kept = malloc(4 * sizeof(int));
  shared[1] = 1;
  kept[1] = 1;
  pthread_create(&t, 0, use, 0);
  while (!done) {
  }
  free(shared);
  pthread_join(t, 0);
  free(kept);
  return 0;
}
