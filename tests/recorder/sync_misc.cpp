// Synchronisation reached through libstdc++ and less common pthread calls: pthread spin locks,
// std::call_once and std::shared_timed_mutex (C++14) taken exclusively (std::unique_lock; libstdc++
// uses pthread_rwlock_wrlock). Each guards its own counter: no race on them; `unguarded` is written
// by both threads without any of them and is a race.
// expect fasttrack: no-race by_spin
// expect fasttrack: no-race by_once
// expect fasttrack: no-race by_shared_mutex
// expect fasttrack: race unguarded
// expect wcp: no-race by_once
// expect pwr-cs: no-race by_once
// expect wcp: race unguarded
// expect check: well-formed
#include <pthread.h>

#include <mutex>
#include <shared_mutex>
#include <thread>

long by_spin, by_once, by_shared_mutex, unguarded;
pthread_spinlock_t spin;
std::once_flag once;
std::shared_timed_mutex shared;

void work() {
  for (int i = 0; i < 100; ++i) {
    pthread_spin_lock(&spin);
    by_spin++;
    pthread_spin_unlock(&spin);
    std::unique_lock<std::shared_timed_mutex> lock(shared);
    by_shared_mutex++;
  }
  std::call_once(once, [] { by_once = 1; });
  long seen = by_once;
  unguarded = seen;
}

int main() {
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  std::thread a(work), b(work);
  a.join();
  b.join();
  return by_spin != 200 || by_shared_mutex != 200 || by_once != 1;
}
