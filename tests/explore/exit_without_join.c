// Thread exit without join: main reads the worker's result without joining it; nothing orders
// the worker's write before main's read: a data race on result. (main's sleep is a scheduling
// point: under the scheduler it gives way to the worker and returns at once.)
// explore: --strategy dfs --preemptions 1 => race:result, complete, reduces
// explore: --executions 100 => race:result
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int result;

static void* worker(void* arg) {
  result = 42;
  return arg;
}

int main(void) {
  pthread_t x;
  pthread_create(&x, 0, worker, 0);
  pthread_detach(x);
  usleep(1000);
  printf("%d\n", result);
  return 0;
}
