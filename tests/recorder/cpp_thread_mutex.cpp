// std::thread, std::mutex and std::lock_guard (libstdc++ calls pthread_create/join and the
// inline mutex code calls pthread_mutex_*): no race on `total`; `unguarded` is racy.
// expect fasttrack: no-race total
// expect fasttrack: race unguarded
// expect check: well-formed
#include <mutex>
#include <thread>
#include <vector>

long total;
long unguarded;
std::mutex m;

int main() {
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([i] {
      for (int k = 0; k < 50; ++k) {
        std::lock_guard<std::mutex> lock(m);
        total += i;
      }
      unguarded += i;
    });
  for (std::thread& t : threads) t.join();
  std::lock_guard<std::mutex> lock(m);
  return total < 0;
}
