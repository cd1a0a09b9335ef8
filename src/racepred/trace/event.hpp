// Event model shared by every module (DESIGN.md, "Event model").
#pragma once

#include <cstdint>
#include <string_view>

namespace racepred {

using ThreadId = uint32_t;
using VariableId = uint32_t;
using LockId = uint32_t;
using LocationId = uint32_t;
// Events are numbered from 1 in file order; 0 means "no event / unknown".
using EventId = uint64_t;

inline constexpr EventId kNoEvent = 0;

enum class Op : uint8_t { Read, Write, Acquire, Release, Fork, Join };
inline constexpr int kOpCount = 6;

// `target` is a VariableId (Read, Write), LockId (Acquire, Release) or ThreadId (Fork, Join).
struct Event {
  Op op = Op::Read;
  ThreadId thread = 0;
  uint32_t target = 0;
  LocationId location = 0;

  bool is_access() const { return op == Op::Read || op == Op::Write; }
  friend bool operator==(const Event&, const Event&) = default;
};
static_assert(sizeof(Event) <= 16, "Event must stay within 16 bytes (DESIGN.md)");

// Lower-case STD spelling: "r", "w", "acq", "rel", "fork", "join".
std::string_view op_name(Op op);
// Long name for reports: "read", "write", "acquire", "release", "fork", "join".
std::string_view op_long_name(Op op);

// Two accesses conflict: same variable, different threads, at least one write.
inline bool conflicting(const Event& a, const Event& b) {
  return a.is_access() && b.is_access() && a.target == b.target && a.thread != b.thread &&
         (a.op == Op::Write || b.op == Op::Write);
}

}  // namespace racepred
