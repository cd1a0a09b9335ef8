#include "racepred/report/notation.hpp"

namespace racepred {

std::string event_text(const Symbols& symbols, const Event& event) {
  std::string s(op_name(event.op));
  s += '(';
  switch (event.op) {
    case Op::Read:
    case Op::Write:
      s += symbols.variables.name(event.target);
      break;
    case Op::Acquire:
    case Op::Release:
    case Op::ReadAcquire:
    case Op::ReadRelease:
    case Op::Send:
    case Op::Recv:
    case Op::Request:
    case Op::ReadRequest:
      s += symbols.locks.name(event.target);
      break;
    case Op::Fork:
    case Op::Join:
      s += symbols.threads.name(event.target);
      break;
  }
  s += ')';
  return s;
}

namespace {
std::string event_ref(const Symbols& symbols, EventId id, const Event& event, char sep) {
  std::string s = std::to_string(event.thread);
  s += sep;
  s += event_text(symbols, event);
  s += '_';
  s += std::to_string(id);
  return s;
}
}  // namespace

std::string event_ref_hash(const Symbols& symbols, EventId id, const Event& event) {
  return event_ref(symbols, id, event, '#');
}

std::string event_ref_colon(const Symbols& symbols, EventId id, const Event& event) {
  return event_ref(symbols, id, event, ':');
}

std::string pair_text(EventId first, EventId second) {
  return "(e" + std::to_string(first) + ",e" + std::to_string(second) + ")";
}

std::string races_text(const std::vector<EventId>& firsts, EventId second) {
  std::string s;
  for (EventId first : firsts) {
    if (!s.empty()) s += ' ';
    s += pair_text(first, second);
  }
  return s;
}

}  // namespace racepred
