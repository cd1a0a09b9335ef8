// A lost update between two threads (a data race on counter), in a program that also starts
// processes in every execution: it forks a child that runs threads of its own and exits, and
// forks a child that execs this program again (`child` mode, its own race on child_counter).
// Those processes run unscheduled and record into files of their own, which explore removes
// after each execution; the execution itself records into explore's memory file. Its findings
// are the parent's: the race on counter, never the children's child_counter. The children start
// after the threads are joined, so every execution has the same choice points however long the
// children take. A child that fails is an assertion failure of the execution.
// explore: --strategy dfs --preemptions 1 => race:counter, norace:child_counter, forked-same
// explore: --strategy random --seed 3 --executions 8 => nofailure, jobs-same, round-trip-same
#include <assert.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
int counter;
int child_counter;

static void* inc_a(void* arg) {
  pthread_mutex_lock(&a);
  counter++;
  pthread_mutex_unlock(&a);
  return arg;
}

static void* inc_b(void* arg) {
  pthread_mutex_lock(&b);
  counter++;
  pthread_mutex_unlock(&b);
  return arg;
}

static void* child_inc(void* arg) {
  child_counter++;
  return arg;
}

// The children's own threads race on child_counter (in their own recordings).
static void child_work(void) {
  pthread_t x, y;
  pthread_create(&x, 0, child_inc, 0);
  pthread_create(&y, 0, child_inc, 0);
  pthread_join(x, 0);
  pthread_join(y, 0);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    child_work();
    return 0;
  }
  pthread_t x, y;
  pthread_create(&x, 0, inc_a, 0);
  pthread_create(&y, 0, inc_b, 0);
  pthread_join(x, 0);
  pthread_join(y, 0);
  const pid_t forked = fork();
  if (forked == 0) {
    child_work();
    _exit(0);
  }
  const pid_t execed = fork();
  if (execed == 0) {
    char* child_argv[] = {argv[0], (char*)"child", 0};
    execv("/proc/self/exe", child_argv);
    _exit(127);
  }
  int forked_status = -1, execed_status = -1;
  const pid_t reaped = waitpid(forked, &forked_status, 0);
  const pid_t reaped_exec = waitpid(execed, &execed_status, 0);
  assert(reaped == forked && WIFEXITED(forked_status) && WEXITSTATUS(forked_status) == 0);
  assert(reaped_exec == execed && WIFEXITED(execed_status) && WEXITSTATUS(execed_status) == 0);
  (void)reaped;
  (void)reaped_exec;
  return 0;
}
