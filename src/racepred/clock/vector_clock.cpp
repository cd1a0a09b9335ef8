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

namespace racepred {

std::string show_vc(const Clock* vc, size_t n) {
  std::string s = "[";
  for (size_t j = 0; j < n; ++j) {
    if (j) s += ',';
    s += std::to_string(vc[j]);
  }
  return s + ']';
}

std::string show_vc_epochs(const Clock* vc, size_t n) {
  std::string s = "[";
  for (size_t j = 0; j < n; ++j) {
    if (vc[j] == 0) continue;
    if (s.size() > 1) s += ',';
    s += Epoch(static_cast<ThreadId>(j), vc[j]).to_string();
  }
  return s + ']';
}

std::string show_epoch(Epoch e, const char* bottom) {
  return e.is_bottom() ? std::string(bottom) : e.to_string();
}

}  // namespace racepred
