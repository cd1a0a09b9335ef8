// exec (RECORDER.md pitfall 5): the program records, then a forked child execs the program
// again (an instrumented program): the runtime flushes everything before the exec, and the
// new image records into a file of its own (RAW.<pid>, the child's process id), which
// `racepred record -o X.rpt` turns into X.<pid>.rpt. The parent's trace holds its own
// synchronised work; the exec'ed image's trace holds its race on exec_value.
// expect fasttrack: none
// expect fasttrack: no-race exec_value
// expect check: well-formed
// child-expect fasttrack: race exec_value
// child-expect fasttrack: no-race value
// child-expect check: well-formed
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int value;
int exec_value;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void* locked(void* arg) {
  pthread_mutex_lock(&m);
  value++;
  pthread_mutex_unlock(&m);
  return arg;
}

void* racy(void* arg) {
  exec_value++;  // unsynchronised with the other thread of the exec'ed image
  return arg;
}

int main(int argc, char** argv) {
  pthread_t a, b;
  if (argc > 1 && strcmp(argv[1], "exec") == 0) {
    pthread_create(&a, 0, racy, 0);
    pthread_create(&b, 0, racy, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
  }
  pthread_create(&a, 0, locked, 0);
  pthread_create(&b, 0, locked, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pid_t pid = fork();
  if (pid == 0) {
    char* args[] = {argv[0], (char*)"exec", 0};
    execv("/proc/self/exe", args);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return !(WIFEXITED(status) && WEXITSTATUS(status) == 0) || value != 2;
}
