// Initialising and destroying a synchronisation object writes it; every use reads it
// (docs/RECORDER.md, "Synchronisation objects"). The racer locks `counter_lock` and posts
// `ready`, then tells main through a plain flag (no order for happens-before engines); main
// destroys both before joining it: each destroy races with the racer's uses (ThreadSanitizer
// reports them). `joined_lock` and `joined_sem` are used by both threads, initialised before
// they start and destroyed after main joins them: no race on them (uses never race with each
// other). The mutex is named as the program declared it, not by glibc's member
// (`counter_lock.__data.__lock`).
// expect fasttrack: race counter_lock
// expect fasttrack: race-at counter_lock sync_destroy.c:57
// expect fasttrack: no-race counter_lock.
// expect fasttrack: race ready
// expect fasttrack: no-race joined_
// expect fasttrack: no-race total
// expect shb: no-race joined_
// expect wcp: no-race joined_
// expect check: well-formed
#include <pthread.h>
#include <semaphore.h>

pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t joined_lock;
sem_t ready, joined_sem;
long total;
volatile int done;

static void use_joined(void) {
  pthread_mutex_lock(&joined_lock);
  total++;
  pthread_mutex_unlock(&joined_lock);
  sem_post(&joined_sem);
}

static void* racer(void* arg) {
  pthread_mutex_lock(&counter_lock);
  pthread_mutex_unlock(&counter_lock);
  sem_post(&ready);
  use_joined();
  done = 1;
  return arg;
}

static void* user(void* arg) {
  use_joined();
  return arg;
}

int main(void) {
  pthread_t t, u;
  pthread_mutex_init(&joined_lock, 0);
  sem_init(&ready, 0, 0);
  sem_init(&joined_sem, 0, 0);
  pthread_create(&t, 0, racer, 0);
  pthread_create(&u, 0, user, 0);
  while (!done) {
  }
  pthread_mutex_destroy(&counter_lock);
  sem_destroy(&ready);
  pthread_join(t, 0);
  pthread_join(u, 0);
  pthread_mutex_destroy(&joined_lock);
  sem_destroy(&joined_sem);
  return 0;
}
