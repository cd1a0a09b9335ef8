// Pitfall 16 (locations inside library code): std::thread calls pthread_create and
// pthread_join from libstdc++, but the fork and join events are located in the user's code,
// not at libstdc++.so+0x...: the runtime walks the stack past the library's frames. gcc names
// the line of the std::thread; clang's line table attributes that call to the inlined
// constructor in <bits/std_thread.h>, inside main: the function is the user's either way.
// expect location-fork: (main)
// expect location-join: /thread_location.cpp:2
// expect fasttrack: race shared
// expect check: well-formed
#include <thread>

long shared;

void work() {
  shared++;
}

int main() {
  std::thread a(work);
  std::thread b(work);
  a.join();
  b.join();
  return 0;
}
