// std::shared_mutex (libstdc++ implements it with pthread_rwlock_t): lock_shared and
// unlock_shared become racq/rrel, lock and unlock acq/rel. The writer's data reaches the readers
// without a race; `hits`, which both readers increment under the shared lock only, is racy
// (the lock-set engine sees it on every run: both hold the lock in read mode).
// expect lockset: no-race value
// expect fasttrack: no-race value
// expect lockset: race hits
// expect check: well-formed
#include <mutex>
#include <shared_mutex>
#include <thread>

long value;
long hits;
std::shared_mutex m;

void reader() {
  long sum = 0;
  for (int i = 0; i < 50; ++i) {
    std::shared_lock<std::shared_mutex> lock(m);
    sum += value;
    ++hits;
  }
  (void)sum;
}

void writer() {
  for (int i = 0; i < 50; ++i) {
    std::unique_lock<std::shared_mutex> lock(m);
    ++value;
  }
}

int main() {
  std::thread r1(reader), w(writer), r2(reader);
  r1.join();
  w.join();
  r2.join();
  return 0;
}
