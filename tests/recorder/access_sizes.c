// Access sizes (docs/RECORDER.md, "Access sizes"): accesses of different sizes and start
// addresses race when their bytes overlap, as ThreadSanitizer's do, and not otherwise. T1 and
// T2 are not ordered with each other:
// - `wide`: T1 writes all 8 bytes, T2 reads byte 3: a race (different start addresses);
// - `bytes`: T1 writes 4 bytes at +2 (unaligned), T2 reads 2 bytes at +4: a race on byte 4;
// - `adjacent`: the same sizes, but T1's 4 bytes at +0 end where T2's 2 bytes at +4 begin;
// - `pair`: T1 writes `pair.a`, T2 writes `pair.b`, two chars of one word: no race.
// expect fasttrack: race wide
// expect fasttrack: race bytes[4]
// expect fasttrack: no-race adjacent
// expect fasttrack: no-race pair
// expect shb: race wide
// expect shb: race bytes[4]
// expect shb: no-race adjacent
// expect shb: no-race pair
// expect lockset: race wide
// expect lockset: no-race adjacent
// expect lockset: no-race pair
// expect check: well-formed
#include <pthread.h>
#include <stdint.h>

volatile union {
  unsigned char b[8];
  uint64_t w;
} wide;
volatile unsigned char bytes[8] __attribute__((aligned(8)));
volatile unsigned char adjacent[8] __attribute__((aligned(8)));
volatile struct {
  char a;
  char b;
} pair;
volatile unsigned sink;

static void* t1(void* arg) {
  wide.w = 0x0102030405060708ULL;
  *(volatile uint32_t*)(bytes + 2) = 5;
  *(volatile uint32_t*)adjacent = 7;
  pair.a = 1;
  return arg;
}

static void* t2(void* arg) {
  sink = wide.b[3];
  sink = *(volatile uint16_t*)(bytes + 4);
  sink = *(volatile uint16_t*)(adjacent + 4);
  pair.b = 2;
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
