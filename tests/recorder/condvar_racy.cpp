// The racy twin of condvar.cpp: the producer writes `late` after it signals, and the consumer
// reads it after the wait returns: the signal orders only what comes before it (send(cv) before
// notify, recv(cv) at the wait's return), so this is a race every engine still finds.
// expect fasttrack: race late
// expect wcp: race late
// expect pwr-cs: race late
// expect fasttrack: no-race data
// expect wcp: no-race data
// expect pwr-cs: no-race data
// expect check: well-formed
#include <condition_variable>
#include <mutex>
#include <thread>

int data[8];
int late, result;
bool ready;
std::mutex m;
std::condition_variable cv;

int main() {
  std::thread consumer([] {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [] { return ready; });
    lock.unlock();
    int sum = late;
    for (int v : data) sum += v;
    result = sum;
  });
  for (int i = 0; i < 8; ++i) data[i] = i;
  {
    std::lock_guard<std::mutex> lock(m);
    ready = true;
  }
  cv.notify_one();
  late = 1;
  consumer.join();
  return result == 0;
}
