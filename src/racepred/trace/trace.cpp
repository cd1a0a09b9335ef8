#include "racepred/trace/trace.hpp"

#include <algorithm>

namespace racepred {

std::string_view Trace::target_name(const Event& e) const {
  switch (e.op) {
    case Op::Read:
    case Op::Write:
      return symbols.variables.name(e.target);
    case Op::Acquire:
    case Op::Release:
    case Op::ReadAcquire:
    case Op::ReadRelease:
    case Op::Send:
    case Op::Recv:
    case Op::Request:
    case Op::ReadRequest:
      return symbols.locks.name(e.target);
    case Op::Fork:
    case Op::Join:
      return symbols.threads.name(e.target);
  }
  return {};
}

std::string Trace::to_std(const Event& e) const {
  std::string s(thread_name(e.thread));
  s += '|';
  s += op_name(e.op);
  s += '(';
  s += target_name(e);
  s += ")|";
  s += e.location < symbols.locations.size() ? location_name(e.location) : std::string_view("0");
  return s;
}

size_t Trace::index_of(EventId id) const {
  auto it = std::lower_bound(ids.begin(), ids.end(), id);
  if (it == ids.end() || *it != id) return SIZE_MAX;
  return static_cast<size_t>(it - ids.begin());
}

}  // namespace racepred
