// Event model shared by every module (docs/ARCHITECTURE.md).
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

// Acquire/Release take a lock in write (exclusive) mode, ReadAcquire/ReadRelease in read
// (shared) mode: a lock is held by one writer or by any number of readers (docs/FORMATS.md,
// "Read-write locks"). Send/Recv name a sync object o (docs/FORMATS.md, "Synchronisation
// orders"): every recv(o) is ordered after every send(o) before it in the trace, in every valid
// reordering. Request is req(l): a lock request not (yet) granted, a thread blocked in its lock
// call when the trace ended; it is the thread's last event (docs/FORMATS.md, "Lock requests").
// ReadRequest is rreq(l), the same for a request in read (shared) mode: only a write hold of l
// blocks it, and only racq(l) grants it. New ops go at the end: the binary format stores the
// numeric value.
enum class Op : uint8_t {
  Read,
  Write,
  Acquire,
  Release,
  Fork,
  Join,
  ReadAcquire,
  ReadRelease,
  Send,
  Recv,
  Request,
  ReadRequest
};
inline constexpr int kOpCount = 12;

// The op names a lock: acquire or release in either mode.
inline constexpr bool is_lock_op(Op op) {
  return op == Op::Acquire || op == Op::Release || op == Op::ReadAcquire || op == Op::ReadRelease;
}
inline constexpr bool is_acquire_op(Op op) {
  return op == Op::Acquire || op == Op::ReadAcquire;
}
inline constexpr bool is_release_op(Op op) {
  return op == Op::Release || op == Op::ReadRelease;
}
inline constexpr bool is_read_lock_op(Op op) {
  return op == Op::ReadAcquire || op == Op::ReadRelease;
}
// A lock request in either mode: req(l) or rreq(l).
inline constexpr bool is_request_op(Op op) {
  return op == Op::Request || op == Op::ReadRequest;
}
// The op takes or asks for a lock in read (shared) mode.
inline constexpr bool is_read_mode_op(Op op) {
  return op == Op::ReadAcquire || op == Op::ReadRelease || op == Op::ReadRequest;
}
// The op names a sync object (in the lock namespace): send or recv.
inline constexpr bool is_sync_op(Op op) {
  return op == Op::Send || op == Op::Recv;
}
// The target is a LockId: a lock (also of a request) or a sync object.
inline constexpr bool targets_lock(Op op) {
  return is_lock_op(op) || is_sync_op(op) || is_request_op(op);
}

// `target` is a VariableId (Read, Write), LockId (Acquire, Release, ReadAcquire, ReadRelease,
// Request, ReadRequest;
// the sync object of Send, Recv: one namespace with the locks) or ThreadId (Fork, Join).
struct Event {
  Op op = Op::Read;
  ThreadId thread = 0;
  uint32_t target = 0;
  LocationId location = 0;

  bool is_access() const { return op == Op::Read || op == Op::Write; }
  friend bool operator==(const Event&, const Event&) = default;
};
static_assert(sizeof(Event) <= 16, "Event must stay within 16 bytes");

// Lower-case STD spelling: "r", "w", "acq", "rel", "fork", "join", "racq", "rrel", "send",
// "recv", "req", "rreq".
std::string_view op_name(Op op);
// Long name for reports: "read", "write", "acquire", "release", "fork", "join",
// "read-acquire", "read-release", "send", "receive", "request", "read-request".
std::string_view op_long_name(Op op);

// Two accesses conflict: same variable, different threads, at least one write.
inline bool conflicting(const Event& a, const Event& b) {
  return a.is_access() && b.is_access() && a.target == b.target && a.thread != b.thread &&
         (a.op == Op::Write || b.op == Op::Write);
}

}  // namespace racepred
