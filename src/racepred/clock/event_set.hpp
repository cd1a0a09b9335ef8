// Sets of events as bit sets over event positions (the "Happens-before and vector clocks" notes'
// D(t), Rel(y)): time and memory grow with the trace, so only reference engines for small traces
// use them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace racepred {

class EventSet {
 public:
  bool contains(size_t e) const {
    return e / 64 < words_.size() && (words_[e / 64] >> (e % 64)) & 1;
  }
  void insert(size_t e) {
    if (e / 64 >= words_.size()) words_.resize(e / 64 + 1, 0);
    words_[e / 64] |= uint64_t{1} << (e % 64);
  }
  void unite(const EventSet& o) {
    if (o.words_.size() > words_.size()) words_.resize(o.words_.size(), 0);
    for (size_t i = 0; i < o.words_.size(); ++i) words_[i] |= o.words_[i];
  }
  template <class F>
  void for_each(F f) const {
    for (size_t w = 0; w < words_.size(); ++w)
      for (uint64_t bits = words_[w]; bits; bits &= bits - 1)
        f(w * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
  }
  // "{e1,e4}" given each position's event id.
  template <class IdOf>
  std::string to_string(IdOf id_of) const {
    std::string s = "{";
    for_each([&](size_t e) {
      if (s.size() > 1) s += ',';
      s += 'e' + std::to_string(id_of(e));
    });
    return s + '}';
  }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace racepred
