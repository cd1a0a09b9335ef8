// libc's accesses on the program's behalf are recorded as the program's (docs/RECORDER.md,
// "What is recorded"): write(2) reads its buffer, read(2) writes it, strlen, strcmp and memcmp
// read their arguments, strcpy reads and writes. T1 and T2 are not ordered with each other;
// each race has a race-free twin next to it: bytes of the same arrays that the other thread
// does not touch.
// expect fasttrack: race out_buf[4]
// expect fasttrack: no-race out_buf[40]
// expect fasttrack: race in_buf[2]
// expect fasttrack: no-race in_buf[60]
// expect fasttrack: race name[3]
// expect fasttrack: no-race name[20]
// expect fasttrack: race key[1]
// expect fasttrack: race copy[5]
// expect fasttrack: no-race copy[30]
// expect shb: race out_buf[4]
// expect shb: no-race out_buf[40]
// expect check: well-formed
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

char out_buf[64];
char in_buf[64];
char name[32] = "racepred";
char key[16] = "abcdefg";
char other[16] = "abcdefg";
char copy[40];
char source[16] = "0123456789";
volatile long sink;

static void* t1(void* arg) {
  int out = open("/dev/null", O_WRONLY);
  int in = open("/dev/zero", O_RDONLY);
  sink = write(out, out_buf, 16);
  sink = read(in, in_buf, 8);
  sink = strlen(name);
  sink = memcmp(key, other, 8);
  strcpy(copy, source);
  close(out);
  close(in);
  return arg;
}

static void* t2(void* arg) {
  out_buf[4] = 'x';
  out_buf[40] = 'y';
  sink = in_buf[2];
  sink = in_buf[60];
  name[3] = 'E';
  name[20] = 'z';
  key[1] = 'B';
  copy[5] = '5';
  copy[30] = '!';
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
