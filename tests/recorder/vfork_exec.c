// vfork() then exec of an uninstrumented program: the child shares the parent's memory until
// the exec, so the runtime's flush-before-exec must not run for it (it would end the parent's
// recording). The parent keeps recording: its two threads' race on `after`, which happens after
// the vfork, is in the trace.
// expect fasttrack: race after
// expect check: well-formed
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

int after;

void* work(void* arg) {
  after = 1;
  return arg;
}

int main(void) {
  pid_t pid = vfork();
  if (pid == 0) {
    char* args[] = {(char*)"true", 0};
    execv("/bin/true", args);
    _exit(127);
  }
  waitpid(pid, 0, 0);
  pthread_t a, b;
  pthread_create(&a, 0, work, 0);
  pthread_create(&b, 0, work, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
