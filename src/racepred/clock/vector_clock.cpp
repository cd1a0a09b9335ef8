#include "racepred/clock/vector_clock.hpp"

namespace racepred {

std::string VectorClock::to_string(size_t threads) const {
  const size_t n = std::max(threads, c_.size());
  std::string s = "[";
  for (size_t i = 0; i < n; ++i) {
    if (i) s += ',';
    s += std::to_string(get(static_cast<ThreadId>(i)));
  }
  s += ']';
  return s;
}

std::string Epoch::to_string() const {
  return std::to_string(thread()) + "#" + std::to_string(clock());
}

}  // namespace racepred
