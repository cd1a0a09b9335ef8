// Message passing through a C11 atomic flag (release store, acquire load): the atomics model
// (an acq/rel of the address's lock around each atomic access) orders the plain data.
// expect fasttrack: none
// expect check: well-formed
#include <pthread.h>
#include <stdatomic.h>

int payload;
atomic_int flag;

void* producer(void* arg) {
  payload = 42;
  atomic_store_explicit(&flag, 1, memory_order_release);
  return arg;
}

void* consumer(void* arg) {
  while (!atomic_load_explicit(&flag, memory_order_acquire)) {
  }
  return (void*)(long)payload;
}

int main(void) {
  pthread_t p, c;
  pthread_create(&c, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
