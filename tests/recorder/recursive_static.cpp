// A recursive mutex (only the outermost level is an event: RECORDER.md pitfall 11) and a
// function-local static initialised by whichever thread comes first (__cxa_guard_*: the
// release is send(guard), the acquire load of the compiler's fast path recv(guard)).
// expect fasttrack: none
// expect wcp: none
// expect pwr-cs: none
// expect check: well-formed
#include <mutex>
#include <thread>

std::recursive_mutex rm;
int guarded;

struct Config {
  int value[4];
  Config() {
    for (int i = 0; i < 4; ++i) value[i] = i;
  }
};

int get() {
  static Config config;
  return config.value[3];
}

void nested(int depth) {
  std::lock_guard<std::recursive_mutex> lock(rm);
  guarded += get();
  if (depth) nested(depth - 1);
}

int main() {
  std::thread a([] { nested(3); });
  std::thread b([] { nested(2); });
  a.join();
  b.join();
  return 0;
}
