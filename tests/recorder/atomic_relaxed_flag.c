// A spin on a relaxed flag orders nothing (C11: no release/acquire pair, ThreadSanitizer
// reports the race on `payload`): the relaxed store and loads are recorded without send/recv,
// so the race behind the flag is found. The flag itself is atomic and never races.
// expect fasttrack: race payload
// expect wcp: race payload
// expect pwr-cs: race payload
// expect fasttrack: no-race flag
// expect wcp: no-race flag
// expect lockset: no-race flag
// expect check: well-formed
#include <pthread.h>
#include <stdatomic.h>

int payload;
atomic_int flag;

void* producer(void* arg) {
  payload = 42;
  atomic_store_explicit(&flag, 1, memory_order_relaxed);
  return arg;
}

void* consumer(void* arg) {
  while (!atomic_load_explicit(&flag, memory_order_relaxed)) {
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
