// Message passing through a C11 atomic flag (release store, acquire load): the release store
// is send(flag) after its access, the acquire load recv(flag) before it, which orders the plain
// data for every engine. The relaxed twin: atomic_relaxed_flag.c.
// expect fasttrack: none
// expect wcp: none
// expect pwr-cs: none
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
