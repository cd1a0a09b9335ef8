// Message passing through fences: a release fence before a relaxed store, an acquire fence
// after the relaxed load that saw it (C11 7.17.4). The fences order `payload`: no race.
// (ThreadSanitizer does not model fences, and gcc warns about them under -fsanitize=thread:
// it would report this race-free program.) `unfenced` is written after the store: a race.
// expect fasttrack: no-race payload
// expect wcp: no-race payload
// expect pwr-cs: no-race payload
// expect fasttrack: race unfenced
// expect check: well-formed
#include <pthread.h>
#include <stdatomic.h>

int payload, unfenced;
atomic_int flag;

void* producer(void* arg) {
  payload = 42;
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&flag, 1, memory_order_relaxed);
  unfenced = 1;
  return arg;
}

void* consumer(void* arg) {
  while (!atomic_load_explicit(&flag, memory_order_relaxed)) {
  }
  atomic_thread_fence(memory_order_acquire);
  return (void*)(long)(payload + unfenced);
}

int main(void) {
  pthread_t p, c;
  pthread_create(&c, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
