// Blocks handed from a producer to a consumer, which reads each, works a while on its own
// memory (its clock runs ahead) and frees it; the producer pauses (no event) and allocates the
// next block, which glibc takes from the block just freed (once the consumer's cache of freed
// blocks of that size is full: from the eighth round on): nothing orders the allocation after
// the free but the allocator. The trace must place every reuse after the free (docs/RECORDER.md,
// "How records are ordered": an allocation is numbered after every earlier free), or the
// consumer's reads of a freed block would be named as accesses of the producer's new block and
// race with its writes. `tally` is written by both threads outside the lock: a race, which
// shows that the threads' events were recorded.
// expect fasttrack: no-race heap
// expect fasttrack: race tally
// expect wcp: no-race heap
// expect shb: no-race heap
// expect check: well-formed
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

enum { kRounds = 100, kWork = 400 };

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int* slot;
static long slot_size;
static int done;
long tally;

static void* consumer(void* arg) {
  long sum = 0;
  for (;;) {
    pthread_mutex_lock(&m);
    while (!slot && !done) pthread_cond_wait(&cv, &m);
    int* p = slot;
    const long n = slot_size;
    slot = 0;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&m);
    if (!p) break;
    for (long i = 0; i < n; ++i) sum += p[i];
    int scratch[64] = {0};
    for (int k = 0; k < kWork; ++k) scratch[k & 63] += k;
    sum += scratch[5];
    free(p);
    tally += 1;
  }
  return (void*)sum;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, consumer, 0);
  for (int r = 0; r < kRounds; ++r) {
    const long n = 16;
    int* p = malloc(n * sizeof(int));
    for (long i = 0; i < n; ++i) p[i] = r + (int)i;
    tally += 2;
    pthread_mutex_lock(&m);
    while (slot) pthread_cond_wait(&cv, &m);
    slot = p;
    slot_size = n;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&m);
    usleep(1000);  // the consumer frees the block meanwhile
  }
  pthread_mutex_lock(&m);
  while (slot) pthread_cond_wait(&cv, &m);
  done = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&m);
  void* sum;
  pthread_join(t, &sum);
  return sum == 0;
}
