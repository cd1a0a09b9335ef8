// rwlock_misuse.c fixed: updates take the lock in write mode; the reader keeps read mode.
// explore: --strategy dfs --preemptions 1 => nothing, reduces
#include <pthread.h>
#include <stdio.h>

pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
int value;

static void* update(void* arg) {
  pthread_rwlock_wrlock(&lock);
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
