// The fixed twin of exit_without_join.c: main joins the worker before it reads the result.
// explore: --strategy dfs --preemptions 2 => nothing
#include <pthread.h>
#include <stdio.h>

int result;

static void* worker(void* arg) {
  result = 42;
  return arg;
}

int main(void) {
  pthread_t x;
  pthread_create(&x, 0, worker, 0);
  pthread_join(x, 0);
  printf("%d\n", result);
  return 0;
}
