#include "racepred/trace/event.hpp"

namespace racepred {

std::string_view op_name(Op op) {
  switch (op) {
    case Op::Read:
      return "r";
    case Op::Write:
      return "w";
    case Op::Acquire:
      return "acq";
    case Op::Release:
      return "rel";
    case Op::Fork:
      return "fork";
    case Op::Join:
      return "join";
    case Op::ReadAcquire:
      return "racq";
    case Op::ReadRelease:
      return "rrel";
    case Op::Send:
      return "send";
    case Op::Recv:
      return "recv";
    case Op::Request:
      return "req";
    case Op::ReadRequest:
      return "rreq";
  }
  return "?";
}

std::string_view op_long_name(Op op) {
  switch (op) {
    case Op::Read:
      return "read";
    case Op::Write:
      return "write";
    case Op::Acquire:
      return "acquire";
    case Op::Release:
      return "release";
    case Op::Fork:
      return "fork";
    case Op::Join:
      return "join";
    case Op::ReadAcquire:
      return "read-acquire";
    case Op::ReadRelease:
      return "read-release";
    case Op::Send:
      return "send";
    case Op::Recv:
      return "receive";
    case Op::Request:
      return "request";
    case Op::ReadRequest:
      return "read-request";
  }
  return "?";
}

}  // namespace racepred
