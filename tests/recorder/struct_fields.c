// Globals are named down to the field (docs/RECORDER.md, "Names"): the DWARF type of a global
// turns an offset into it into a member path. Two threads race on `stats.misses` (offset 8) and
// on `points[3].y`; `stats.hits` is only written by main before the threads start, and each
// thread writes its own element of `stats.per_thread`.
// expect fasttrack: race stats.misses
// expect fasttrack: race points[3].y
// expect fasttrack: no-race stats.hits
// expect fasttrack: no-race stats.per_thread
// expect fasttrack: no-race points[3].x
// expect check: well-formed
#include <pthread.h>

struct counters {
  long hits;
  long misses;
  int per_thread[2];
};
struct counters stats;
struct point {
  int x, y;
} points[8];

static void* work(void* arg) {
  const long id = (long)arg;
  stats.misses++;
  points[3].y += 2;
  stats.per_thread[id] = 1;
  return 0;
}

int main(void) {
  pthread_t a, b;
  stats.hits = 1;
  points[3].x = 5;
  pthread_create(&a, 0, work, (void*)0);
  pthread_create(&b, 0, work, (void*)1);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
