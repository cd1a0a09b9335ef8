// libstdc++ 12 implements std::timed_mutex::try_lock_for with pthread_mutex_clocklock and
// std::shared_timed_mutex's timed locks with pthread_rwlock_clockwrlock/clockrdlock: recorded
// like their untimed forms (acq, racq), the trace is well-formed and the locks protect.
// expect check: well-formed
// expect fasttrack: no-race guarded
// expect fasttrack: no-race table
// expect fasttrack: race unguarded
// expect lockset: no-race guarded
// expect lockset: no-race table
#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <thread>

using namespace std::chrono_literals;

long guarded, unguarded, table, seen;
std::timed_mutex tm;
std::shared_timed_mutex stm;

void work() {
  for (int i = 0; i < 200; ++i) {
    if (tm.try_lock_for(10s)) {
      guarded++;
      tm.unlock();
    }
    if (stm.try_lock_for(10s)) {
      table++;
      stm.unlock();
    }
    if (stm.try_lock_shared_for(10s)) {
      long v = table;
      stm.unlock_shared();
      if (v < 0) seen = v;
    }
    if (tm.try_lock_until(std::chrono::steady_clock::now() + 10s)) {
      guarded++;
      tm.unlock();
    }
  }
  unguarded++;
}

int main() {
  std::thread a(work), b(work);
  a.join();
  b.join();
  return 0;  // no read here: lock sets would flag it (they ignore the joins)
}
