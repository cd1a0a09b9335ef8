// A reader-writer lock misused: the updates of `value` take the lock in read mode, which does
// not exclude another reader, so the two updates race (and one may be lost).
// explore: --strategy dfs --preemptions 1 => race:value, complete, reduces
// explore: --executions 100 => race:value
#include <pthread.h>
#include <stdio.h>

pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
int value;

static void* update(void* arg) {
  pthread_rwlock_rdlock(&lock);
  value += 1;
  pthread_rwlock_unlock(&lock);
  return arg;
}

static void* look(void* arg) {
  pthread_rwlock_rdlock(&lock);
  int v = value;
  pthread_rwlock_unlock(&lock);
  return (void*)(long)v;
}

int main(void) {
  pthread_t a, b, c;
  pthread_create(&a, 0, update, 0);
  pthread_create(&b, 0, update, 0);
  pthread_create(&c, 0, look, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
  printf("%d\n", value);
  return 0;
}
