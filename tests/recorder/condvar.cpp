// Producer/consumer with std::condition_variable (libstdc++'s wait tail-calls
// pthread_cond_wait: RECORDER.md pitfall 9): the hand-off orders the data. No race.
// expect fasttrack: none
// expect check: well-formed
#include <condition_variable>
#include <mutex>
#include <thread>

int data[8];
bool ready;
std::mutex m;
std::condition_variable cv;

int main() {
  std::thread consumer([] {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [] { return ready; });
    int sum = 0;
    for (int v : data) sum += v;
    return sum;
  });
  for (int i = 0; i < 8; ++i) data[i] = i;
  {
    std::lock_guard<std::mutex> lock(m);
    ready = true;
  }
  cv.notify_one();
  consumer.join();
  return 0;
}
