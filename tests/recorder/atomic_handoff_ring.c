// A token passed around a ring of four threads by release stores and acquire loads, 200 rounds
// each: the holder reads and writes the plain `board` (also through memcpy: a range access and
// its length) and counts its round with a relaxed fetch_add, then hands the token on. Every
// event of an atomic operation (recv, read, send) and the thread's deferred reads before it
// are numbered together, under the address's stripe lock (the recv and send through its
// timestamp; docs/RECORDER.md, "How records are ordered"); a
// recv placed before the send it saw, a record numbered out of its thread's order or a length
// paired with the wrong record would show as a race on `board` or an ill-formed trace.
// `unguarded` is written by every thread outside the token: a race, which shows that the
// threads' events were recorded at all.
// expect fasttrack: no-race board
// expect fasttrack: race unguarded
// expect wcp: no-race board
// expect pwr-cs: no-race board
// expect shb: no-race board
// expect check: well-formed
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

enum { kThreads = 4, kRounds = 200 };

long board[4];
long copy_of_board[4];
long unguarded;
atomic_int turn;
atomic_long rounds;

static void* player(void* arg) {
  const int me = (int)(long)arg;
  unguarded = me;
  for (int r = 0; r < kRounds; ++r) {
    while (atomic_load_explicit(&turn, memory_order_acquire) != me) sched_yield();
    board[r % 4] += board[(r + 1) % 4] + 1;
    memcpy(copy_of_board, board, sizeof board);
    atomic_fetch_add_explicit(&rounds, 1, memory_order_relaxed);
    atomic_store_explicit(&turn, (me + 1) % kThreads, memory_order_release);
  }
  return 0;
}

int main(void) {
  pthread_t t[kThreads];
  for (long i = 0; i < kThreads; ++i) pthread_create(&t[i], 0, player, (void*)i);
  for (int i = 0; i < kThreads; ++i) pthread_join(t[i], 0);
  return atomic_load(&rounds) == kThreads * kRounds ? 0 : 1;
}
