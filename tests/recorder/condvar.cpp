// Producer/consumer with std::condition_variable (libstdc++'s wait tail-calls
// pthread_cond_wait: RECORDER.md pitfall 9): the hand-off orders the data. No race, for the
// predictive engines either. The racy twin: condvar_racy.cpp.
// expect fasttrack: none
// expect wcp: none
// expect pwr-cs: none
// expect check: well-formed
#include <condition_variable>
#include <mutex>
#include <thread>

int data[8], result;
bool ready;
std::mutex m;
std::condition_variable cv;

int main() {
  std::thread consumer([] {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [] { return ready; });
    int sum = 0;
    for (int v : data) sum += v;
    result = sum;  // (a lambda's return value is dropped: the reads would be optimised away)
  });
  for (int i = 0; i < 8; ++i) data[i] = i;
  {
    std::lock_guard<std::mutex> lock(m);
    ready = true;
  }
  cv.notify_one();
  consumer.join();
  return result != 28;
}
