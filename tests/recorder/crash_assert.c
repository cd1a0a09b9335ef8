// A program that ends in a failed assertion (abort: SIGABRT) after a race: the runtime writes
// every thread's buffer before the signal kills the process, so the trace keeps every event
// and the race that led to the crash is found; `racepred record` exits 134 (128 + SIGABRT).
// expect check: well-formed
// expect fasttrack: race balance
// expect status: 134
#include <assert.h>
#include <pthread.h>

int balance;

void* deposit(void* arg) {
  balance += 10;
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, deposit, 0);
  pthread_create(&b, 0, deposit, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(balance == 0 && "a lost update");
  return 0;
}
