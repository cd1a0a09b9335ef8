// fork() of the process (RECORDER.md pitfall 5): the child inherits the runtime's buffers but
// never writes the parent's recording; it records into a file of its own, which
// `racepred record -o X.rpt` turns into X.<pid>.rpt. The parent's trace is intact and
// race-free; the child's trace holds the child's own threads and their race on child_value.
// expect fasttrack: none
// expect fasttrack: no-race child_value
// expect check: well-formed
// child-expect fasttrack: race child_value
// child-expect fasttrack: no-race value
// child-expect check: well-formed
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

int value;
int child_value;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void* work(void* arg) {
  pthread_mutex_lock(&m);
  value++;
  pthread_mutex_unlock(&m);
  return arg;
}

void* child_work(void* arg) {
  child_value++;  // unsynchronised with the other child thread
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, work, 0);
  pid_t pid = fork();
  if (pid == 0) {
    value = 100;  // the child's own copy
    pthread_t a, b;
    pthread_create(&a, 0, child_work, 0);
    pthread_create(&b, 0, child_work, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    _exit(child_value != 2 && child_value != 1);
  }
  waitpid(pid, 0, 0);
  pthread_join(t, 0);
  pthread_mutex_lock(&m);
  int v = value;
  pthread_mutex_unlock(&m);
  return v != 1;
}
