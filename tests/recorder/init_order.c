// Initialisation order (RECORDER.md pitfall 2): a constructor of priority 101 starts a thread
// before main. The runtime is initialised first (gcc calls __tsan_init from a priority-99
// constructor, clang from priority 0), so that thread and its fork event are recorded, and its
// race with main on `shared` is found.
// expect fasttrack: race shared
// expect check: well-formed
#include <pthread.h>

int shared;
static pthread_t early_thread;

static void* early_work(void* arg) {
  shared = 1;
  return arg;
}

__attribute__((constructor(101))) static void start_early(void) {
  pthread_create(&early_thread, 0, early_work, 0);
}

int main(void) {
  shared = 2;
  pthread_join(early_thread, 0);
  return 0;
}
