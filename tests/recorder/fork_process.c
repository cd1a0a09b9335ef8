// fork() of the process (RECORDER.md pitfall 5): the child inherits the runtime's buffers but
// records nothing; the parent's trace is intact and race-free.
// expect fasttrack: none
// expect check: well-formed
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

int value;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void* work(void* arg) {
  pthread_mutex_lock(&m);
  value++;
  pthread_mutex_unlock(&m);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, work, 0);
  pid_t pid = fork();
  if (pid == 0) {
    value = 100;  // the child's own copy
    _exit(0);
  }
  waitpid(pid, 0, 0);
  pthread_join(t, 0);
  pthread_mutex_lock(&m);
  int v = value;
  pthread_mutex_unlock(&m);
  return v != 1;
}
