// The fixed twin of spin_forever.c: main sets the flag before it joins, so the spin-wait ends
// in every execution (the spinning thread gives way until main has run).
// explore: --strategy dfs --max-steps 20000 --preemptions 2 => nothing
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
  atomic_store_explicit(&flag, 1, memory_order_release);
  pthread_join(x, 0);
  return 0;
}
