#include "racepred/clock/thread_clocks.hpp"

#include <string>

#include "racepred/trace/error.hpp"

namespace racepred {

void clock_overflow(ThreadId i) {
  throw InputError("thread #" + std::to_string(i) + " has more than " + std::to_string(Clock(-1)) +
                   " events: its 32-bit vector-clock entry would wrap around; split the trace");
}

}  // namespace racepred
