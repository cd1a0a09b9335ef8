// A program that blocks where the scheduler cannot see it (a read of a pipe nobody writes): the
// execution stops answering and, after --timeout seconds, explore kills it and reports a hang
// (a timeout); the fork server goes on with the next execution.
// explore: --strategy random --executions 2 --timeout 1 => hang
#include <pthread.h>
#include <unistd.h>

int main(void) {
  int p[2];
  if (pipe(p) != 0) return 1;
  char c;
  return read(p[0], &c, 1) == 1 ? 0 : 2;
}
