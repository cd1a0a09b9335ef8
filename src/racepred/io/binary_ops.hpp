// The binary format's operation numbers (format::EventOp) are racepred::Op's values: the
// reader and writer cast one into the other, and the recording runtime writes EventOp values
// that become Ops. Checked here at compile time, op by op.
#pragma once

#include <cstdint>

#include "racepred/format/trace_format.hpp"
#include "racepred/trace/event.hpp"

namespace racepred::io {

// The format's number of an op (a switch without default: a new Op does not compile until it
// has a number here).
constexpr format::EventOp format_op(Op op) {
  switch (op) {
    case Op::Read:
      return format::kRead;
    case Op::Write:
      return format::kWrite;
    case Op::Acquire:
      return format::kAcquire;
    case Op::Release:
      return format::kRelease;
    case Op::Fork:
      return format::kFork;
    case Op::Join:
      return format::kJoin;
    case Op::ReadAcquire:
      return format::kReadAcquire;
    case Op::ReadRelease:
      return format::kReadRelease;
    case Op::Send:
      return format::kSend;
    case Op::Recv:
      return format::kRecv;
    case Op::Request:
      return format::kRequest;
    case Op::ReadRequest:
      return format::kReadRequest;
  }
  return format::kRead;  // not reached
}

constexpr bool format_ops_equal_ops() {
  for (int i = 0; i < kOpCount; ++i)
    if (format_op(static_cast<Op>(i)) != i) return false;
  return true;
}

static_assert(format::kOpCount == static_cast<unsigned>(kOpCount),
              "the binary format and racepred::Op have the same number of operations");
static_assert(format_ops_equal_ops(), "format::EventOp values equal racepred::Op values");
// Raw-only ops of a recording come after every event op.
static_assert(format::kRawAlloc >= format::kOpCount, "raw ops do not overlap event ops");

}  // namespace racepred::io
