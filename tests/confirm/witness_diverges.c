// A program whose path depends on its input: the recorded run creates the file PROGRAM.ran,
// and every later execution finds it and takes the other path, where the worker takes another
// lock first. Following osr's witness (recorded path: twenty critical sections on `m` before
// the write) diverges at the worker's first lock, and confirm says so: "diverged at event N
// (thread T1 did lock of n where the witness has acquire of m at …)". On the other path the
// race needs no reordering: holding main at its write reproduces it (method hold); with
// --method witness it is not reproduced (exit status 0).
// confirm: -e syncp,osr => reproduced:x, method:x=hold, divergence:x=T1 did lock of n where
// confirm: -e syncp,osr --method witness => notreproduced:x, witnessdiverged:x
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, n = PTHREAD_MUTEX_INITIALIZER;
static int x, rounds, again;

static void* worker(void* arg) {
  if (again) {  // not the recorded run
    pthread_mutex_lock(&n);
    rounds++;
    pthread_mutex_unlock(&n);
  } else {
    for (int i = 0; i < 20; ++i) {
      pthread_mutex_lock(&m);
      rounds++;
      pthread_mutex_unlock(&m);
    }
  }
  x = 2;  // races with main's write
  return arg;
}

int main(int argc, char** argv) {
  char marker[4096];
  snprintf(marker, sizeof marker, "%s.ran", argc > 0 ? argv[0] : "witness_diverges");
  again = access(marker, F_OK) == 0;
  if (!again) {
    FILE* f = fopen(marker, "w");
    if (f) fclose(f);
  }
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_mutex_lock(&m);
  x = 1;
  pthread_mutex_unlock(&m);
  pthread_join(t, 0);
  printf("%d %d\n", x, rounds);
  return 0;
}
