// An atomic increment racing with a plain one (ThreadSanitizer reports such a pair as a race on
// `mixed`). Following shb's witness holds the atomic side at its fetch_add as at a plain access,
// so the race is reproduced by the witness's order in the first execution (before, the atomic
// access was no place to hold a thread and the witness diverged).
// confirm: -e shb => reproduced:mixed, witnessed:mixed, method:mixed=witness
#include <pthread.h>

int mixed;

static void* atomic_side(void* arg) {
  __atomic_fetch_add(&mixed, 1, __ATOMIC_RELAXED);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, atomic_side, 0);
  mixed++;
  pthread_join(t, 0);
  return 0;
}
