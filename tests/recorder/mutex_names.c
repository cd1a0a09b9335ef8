// A mutex is named as the program declared it (docs/RECORDER.md, "Names"), not by the insides
// of pthread_mutex_t (`counter_lock.__data.__lock`): a global, a field of an element of an
// array of structs, an element of an array of mutexes, and one initialised by
// pthread_mutex_init. `total` is written under two different mutexes: a race.
// expect lock: counter_lock
// expect lock: accounts[1].guard
// expect lock: table_locks[2]
// expect lock: init_lock
// expect fasttrack: race total
// expect fasttrack: no-race counter
// expect check: well-formed
#include <pthread.h>

pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
struct account {
  long balance;
  pthread_mutex_t guard;
} accounts[2] = {{0, PTHREAD_MUTEX_INITIALIZER}, {0, PTHREAD_MUTEX_INITIALIZER}};
pthread_mutex_t table_locks[3] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                  PTHREAD_MUTEX_INITIALIZER};
pthread_mutex_t init_lock;
long counter, total;

static void* work(void* arg) {
  pthread_mutex_lock(&counter_lock);
  counter++;
  pthread_mutex_unlock(&counter_lock);
  pthread_mutex_lock(&accounts[1].guard);
  accounts[1].balance += 10;
  pthread_mutex_unlock(&accounts[1].guard);
  pthread_mutex_lock(arg ? &table_locks[2] : &init_lock);
  total++;
  pthread_mutex_unlock(arg ? &table_locks[2] : &init_lock);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_mutex_init(&init_lock, 0);
  pthread_create(&a, 0, work, (void*)1);
  pthread_create(&b, 0, work, (void*)0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_mutex_destroy(&init_lock);
  return 0;
}
