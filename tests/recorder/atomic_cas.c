// Two spin locks built on compare-exchange. `relaxed_lock` takes and frees the lock with
// relaxed orders: it excludes, but orders nothing, so `by_relaxed` is a race (ThreadSanitizer
// reports it). `acq_rel_lock` uses acquire on success and a release store: `by_acq_rel` is
// ordered. The lock words are atomic and never race. `mixed` is incremented atomically by one
// thread and plainly by the other: an atomic and a plain access race.
// expect fasttrack: race by_relaxed
// expect fasttrack: no-race by_acq_rel
// expect fasttrack: no-race relaxed_lock
// expect fasttrack: no-race acq_rel_lock
// expect fasttrack: race mixed
// expect wcp: race by_relaxed
// expect wcp: no-race by_acq_rel
// expect pwr-cs: race by_relaxed
// expect pwr-cs: no-race by_acq_rel
// expect check: well-formed
#include <pthread.h>
#include <stdatomic.h>

atomic_int relaxed_lock, acq_rel_lock;
long by_relaxed, by_acq_rel;
int mixed;

void* work(void* arg) {
  for (int i = 0; i < 100; ++i) {
    int expected = 0;
    while (!atomic_compare_exchange_weak_explicit(&relaxed_lock, &expected, 1, memory_order_relaxed,
                                                  memory_order_relaxed))
      expected = 0;
    by_relaxed++;
    atomic_store_explicit(&relaxed_lock, 0, memory_order_relaxed);

    expected = 0;
    while (!atomic_compare_exchange_weak_explicit(&acq_rel_lock, &expected, 1, memory_order_acquire,
                                                  memory_order_relaxed))
      expected = 0;
    by_acq_rel++;
    atomic_store_explicit(&acq_rel_lock, 0, memory_order_release);
  }
  if (arg)
    __atomic_fetch_add(&mixed, 1, __ATOMIC_RELAXED);
  else
    mixed++;
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, work, (void*)1);
  pthread_create(&b, 0, work, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return by_relaxed != 200 || by_acq_rel != 200;
}
