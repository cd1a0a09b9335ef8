// A SIGSEGV after a race while another thread still runs: every thread's buffer is written
// before the fault kills the process; the race is found and `racepred record` exits 139
// (128 + SIGSEGV).
// expect check: well-formed
// expect fasttrack: race slot
// expect status: 139
#include <pthread.h>
#include <stddef.h>

int* slot;
int value = 1;
volatile int stop;

void* clear(void* arg) {
  slot = NULL;
  while (!stop) {
  }
  return arg;
}

int main(void) {
  pthread_t t;
  slot = &value;
  pthread_create(&t, 0, clear, 0);
  while (*(int* volatile*)&slot) {
  }
  int* volatile cleared = slot;  // volatile: the compiler may not drop the faulting load
  return *cleared;               // the other thread cleared it: a null dereference
}
