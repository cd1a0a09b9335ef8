// An element of an array inside a nested struct keeps its index (docs/RECORDER.md, "Names"):
// `board.rows[2].cells[1]` (an array of structs that hold arrays), `config.limits.max[3]`
// (an array in a struct in a struct) and `grid[1].row.cells[0]`. The two threads race on those
// three elements; their neighbours are written by one thread only.
// expect fasttrack: race board.rows[2].cells[1]
// expect fasttrack: race config.limits.max[3]
// expect fasttrack: race grid[1].row.cells[0]
// expect fasttrack: no-race board.rows[2].cells[0]
// expect fasttrack: no-race config.limits.max[2]
// expect check: well-formed
#include <pthread.h>

struct row {
  int cells[4];
};
struct board {
  long id;
  struct row rows[3];
} board;
struct config {
  char name[8];
  struct {
    int min;
    short max[5];
  } limits;
} config;
struct cell_row {
  int tag;
  struct row row;
} grid[2];

static void* work(void* arg) {
  board.rows[2].cells[1] += 1;
  config.limits.max[3] += 1;
  grid[1].row.cells[0] += 1;
  if (arg) {
    board.rows[2].cells[0] = 7;
    config.limits.max[2] = 7;
  }
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, work, (void*)1);
  pthread_create(&b, 0, work, (void*)0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
