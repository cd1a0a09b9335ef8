// Vector clocks and epochs (Sulzmann, "Dynamic data race prediction", "Vector clocks", "Epochs").
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "racepred/trace/event.hpp"

namespace racepred {

using Clock = uint32_t;

// A read-only view of a clock row: `size` entries, entries past it are 0.
struct ClockRef {
  const Clock* data = nullptr;
  size_t size = 0;
  Clock get(ThreadId t) const { return t < size ? data[t] : 0; }
  Clock operator[](ThreadId t) const { return get(t); }
};

// A vector clock over dense thread ids. Entries past size() are 0, so clocks of different
// sizes compare and join correctly; threads appear while the trace is read.
class VectorClock {
 public:
  VectorClock() = default;
  explicit VectorClock(size_t threads) : c_(threads, 0) {}
  explicit VectorClock(ClockRef r) : c_(r.data, r.data + r.size) {}

  Clock get(ThreadId t) const { return t < c_.size() ? c_[t] : 0; }
  Clock operator[](ThreadId t) const { return get(t); }
  void set(ThreadId t, Clock v) {
    ensure(t);
    c_[t] = v;
  }
  void increment(ThreadId t) {
    ensure(t);
    ++c_[t];
  }
  // Point-wise maximum.
  void join(const VectorClock& o) {
    if (o.c_.size() > c_.size()) c_.resize(o.c_.size(), 0);
    const Clock* src = o.c_.data();
    Clock* dst = c_.data();
    for (size_t i = 0, n = o.c_.size(); i < n; ++i) dst[i] = std::max(dst[i], src[i]);
  }
  void assign(const VectorClock& o) { c_ = o.c_; }
  void assign(ClockRef r) { c_.assign(r.data, r.data + r.size); }
  ClockRef ref() const { return {c_.data(), c_.size()}; }
  // this ⊑ o
  bool leq(const VectorClock& o) const { return leq(o.ref()); }
  bool leq(ClockRef o) const {
    const size_t n = c_.size();
    for (size_t i = 0; i < n; ++i)
      if (c_[i] > o[static_cast<ThreadId>(i)]) return false;
    return true;
  }
  size_t size() const { return c_.size(); }
  void clear() { std::fill(c_.begin(), c_.end(), 0); }
  bool is_zero() const {
    return std::all_of(c_.begin(), c_.end(), [](Clock v) { return v == 0; });
  }
  // "[1,0,2]" over `threads` entries (at least size()).
  std::string to_string(size_t threads = 0) const;

  friend bool operator==(const VectorClock& a, const VectorClock& b) {
    const size_t n = std::max(a.size(), b.size());
    for (size_t i = 0; i < n; ++i)
      if (a.get(static_cast<ThreadId>(i)) != b.get(static_cast<ThreadId>(i))) return false;
    return true;
  }

 private:
  void ensure(ThreadId t) {
    if (t >= c_.size()) c_.resize(static_cast<size_t>(t) + 1, 0);
  }
  std::vector<Clock> c_;
};

// An epoch j#k (thread j at clock k), packed into 64 bits: thread high, clock low.
class Epoch {
 public:
  constexpr Epoch() = default;
  constexpr Epoch(ThreadId t, Clock c) : v_((uint64_t{t} << 32) | c) {}
  constexpr ThreadId thread() const { return static_cast<ThreadId>(v_ >> 32); }
  constexpr Clock clock() const { return static_cast<Clock>(v_); }
  // j#k ⪯ V iff k ≤ V(j): the epoch happened before the holder of V.
  bool leq(const VectorClock& vc) const { return clock() <= vc.get(thread()); }
  bool leq(ClockRef vc) const { return clock() <= vc[thread()]; }
  constexpr bool is_bottom() const { return clock() == 0; }
  friend constexpr bool operator==(Epoch a, Epoch b) = default;
  // The packed 64-bit value (thread << 32 | clock), e.g. to store an epoch in a flat array.
  constexpr uint64_t bits() const { return v_; }
  static constexpr Epoch from_bits(uint64_t bits) {
    Epoch e;
    e.v_ = bits;
    return e;
  }
  // j#k ⪯ V for a vector clock given as a raw array covering thread j.
  bool leq(const Clock* vc) const { return clock() <= vc[thread()]; }
  // "j#k" with the thread's index as in the papers.
  std::string to_string() const;

 private:
  uint64_t v_ = 0;
};

// "[1,0,2]": n entries of a clock row.
std::string show_vc(const Clock* vc, size_t n);
// "[0#4,1#1]": the non-zero entries as epochs (the "Happens-before and vector clocks" notes' R(x),
// the "Dynamic data race prediction" notes' [j#k, i#l]).
std::string show_vc_epochs(const Clock* vc, size_t n);
// "0#3", or `bottom` for the bottom epoch 0#0.
std::string show_epoch(Epoch e, const char* bottom);

}  // namespace racepred
