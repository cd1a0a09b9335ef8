// Pitfall 14 (optimisation shapes the trace): at -O1 both compilers keep `total` in a register
// for the whole loop, so 10^6 unsynchronised increments become one read and one write of
// `total` per thread (the trace is of the optimised program, as ThreadSanitizer's check is).
// The race is still there, and is found; the trace stays small. Locations have columns
// (llvm-symbolizer): `optimised_loop.c:17:COL (work)`.
// expect fasttrack: race total
// expect lockset: race total
// expect events: at-most 40
// expect location-w: optimised_loop.c:17:
// expect check: well-formed
#include <pthread.h>

long total;

static void* work(void* arg) {
  (void)arg;
  for (long i = 0; i < 1000000; ++i) total += i;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, work, 0);
  pthread_create(&b, 0, work, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
