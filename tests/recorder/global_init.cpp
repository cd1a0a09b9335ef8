// A global's dynamic initialiser is reported at its own line (docs/RECORDER.md, "Names"), not
// at line 0: a constructor of priority 101 starts a thread that writes `shared` while the
// initialiser of `copy` (which runs later, before main) reads it.
// expect fasttrack: race-at shared global_init.cpp:21
// expect fasttrack: no-race copy
// expect check: well-formed
#include <pthread.h>

int shared;
static pthread_t early;
static void* work(void*) {
  shared = 1;
  return nullptr;
}
__attribute__((constructor(101))) static void start() {
  pthread_create(&early, nullptr, work, nullptr);
}
static int twice(int x) {
  return 2 * x;
}
int copy = twice(shared);

int main() {
  pthread_join(early, nullptr);
  return copy > 2;
}
