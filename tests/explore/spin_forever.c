// A hang: the waiter spins on a flag that no thread ever sets, and main joins it. Under the
// scheduler the spinning thread is the only one that can run; the execution passes the step
// bound and ends as a hang (fairness lets a spin-wait give way, it cannot make it finish).
// explore: --strategy dfs --max-steps 20000 --preemptions 1 => hang, complete
// explore: --max-steps 20000 --executions 40 => hang, round-trip-same
#include <pthread.h>
#include <stdatomic.h>

atomic_int flag;

static void* waiter(void* arg) {
  while (!atomic_load_explicit(&flag, memory_order_acquire)) {
  }
  return arg;
}

int main(void) {
  pthread_t x;
  pthread_create(&x, 0, waiter, 0);
  pthread_join(x, 0);
  return 0;
}
