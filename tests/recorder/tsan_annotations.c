// ThreadSanitizer's annotations keep the meaning ThreadSanitizer gives them (programs written
// for it link unchanged): AnnotateHappensBefore/After and __tsan_release/__tsan_acquire order
// what a relaxed flag alone would not (`by_annotation`, `by_tsan_acquire`: no race);
// AnnotateBenignRaceSized hides the races on its range (`benign`); ThreadSanitizer's
// test-only barrier makes the threads wait for each other but orders nothing, so the race on
// `behind_barrier` is still found.
// expect fasttrack: no-race by_annotation
// expect fasttrack: no-race by_tsan_acquire
// expect fasttrack: no-race benign
// expect fasttrack: race behind_barrier
// expect wcp: no-race by_annotation
// expect wcp: no-race by_tsan_acquire
// expect wcp: no-race benign
// expect wcp: race behind_barrier
// expect lockset: no-race benign
// expect check: well-formed
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

// Declared as ThreadSanitizer's tests and dynamic_annotations.h declare them.
void AnnotateHappensBefore(const char* file, int line, const volatile void* addr);
void AnnotateHappensAfter(const char* file, int line, const volatile void* addr);
void AnnotateBenignRaceSized(const char* file, int line, const volatile void* addr, size_t size,
                             const char* description);
void __tsan_acquire(void* addr);
void __tsan_release(void* addr);
void __tsan_testonly_barrier_init(unsigned long long* barrier, unsigned count);
void __tsan_testonly_barrier_wait(unsigned long long* barrier);

int by_annotation, by_tsan_acquire, behind_barrier;
long benign[4];
atomic_int flag1, flag2;
unsigned long long barrier;

void* producer(void* arg) {
  by_annotation = 1;
  AnnotateHappensBefore(__FILE__, __LINE__, &flag1);
  atomic_store_explicit(&flag1, 1, memory_order_relaxed);
  by_tsan_acquire = 1;
  __tsan_release(&flag2);
  atomic_store_explicit(&flag2, 1, memory_order_relaxed);
  benign[2] = 1;
  behind_barrier = 1;
  __tsan_testonly_barrier_wait(&barrier);
  return arg;
}

void* consumer(void* arg) {
  while (!atomic_load_explicit(&flag1, memory_order_relaxed)) {
  }
  AnnotateHappensAfter(__FILE__, __LINE__, &flag1);
  long v = by_annotation;
  while (!atomic_load_explicit(&flag2, memory_order_relaxed)) {
  }
  __tsan_acquire(&flag2);
  v += by_tsan_acquire;
  benign[2] = 2;
  __tsan_testonly_barrier_wait(&barrier);
  v += behind_barrier;
  return (void*)v;
}

int main(void) {
  AnnotateBenignRaceSized(__FILE__, __LINE__, benign, sizeof benign, "statistics");
  __tsan_testonly_barrier_init(&barrier, 2);
  pthread_t p, c;
  pthread_create(&c, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
