#include "racepred/exact/exact_trace.hpp"

#include <algorithm>

#include "racepred/trace/validator.hpp"

namespace racepred::exact {

namespace {

// Receives what the validator forwards and checks that it is every event: the validator drops
// only re-entrant pairs when it does not throw, and the exact analyses need them normalised away
// beforehand (indices must stay the caller's).
class ForwardCheck : public EventConsumer {
 public:
  void on_event(EventId, const Event&, uint32_t) override { ++forwarded; }
  size_t forwarded = 0;
};

// Def. 3.2 by the validator, strictly; throws InputError in the validator's format.
void validate(const std::vector<Event>& events, const std::vector<EventId>& ids,
              const Symbols* symbols, const std::vector<uint32_t>& lines) {
  static const Symbols kNoSymbols;
  ForwardCheck forwarded;
  Validator validator(symbols ? *symbols : kNoSymbols,
                      ValidationOptions{ValidationMode::Strict, ""}, forwarded);
  for (size_t i = 0; i < events.size(); ++i)
    validator.on_event(ids[i], events[i], i < lines.size() ? lines[i] : 0);
  validator.on_end();
  if (forwarded.forwarded != events.size()) {
    const ValidationReport& report = validator.report();
    ValidationIssue issue = report.notes.empty() ? ValidationIssue{} : report.notes.front();
    issue.rule = kNoteReentrant;
    issue.message += " (the exact analyses need re-entrant locking normalised first)";
    throw InputError(validation_error("", issue));
  }
}

}  // namespace

ExactTrace::ExactTrace(std::vector<Event> events, std::vector<EventId> ids, const Symbols* symbols,
                       const std::vector<uint32_t>& lines)
    : events_(std::move(events)), ids_(std::move(ids)), symbols_(symbols) {
  if (ids_.size() != events_.size()) {
    ids_.resize(events_.size());
    for (size_t i = 0; i < ids_.size(); ++i) ids_[i] = i + 1;
  }
  if (events_.size() >= kNoIndex) throw InputError("racepred: error: exact: trace too large");
  validate(events_, ids_, symbols_, lines);
  const uint32_t n = static_cast<uint32_t>(events_.size());

  uint32_t threads = 0;
  for (const Event& e : events_) {
    threads = std::max(threads, e.thread + 1);
    if (e.op == Op::Fork || e.op == Op::Join) threads = std::max(threads, e.target + 1);
    if (e.is_access()) variable_count_ = std::max(variable_count_, e.target + 1);
    if (is_lock_op(e.op)) lock_count_ = std::max(lock_count_, e.target + 1);
  }
  thread_events_.resize(threads);
  fork_of_.assign(threads, kNoIndex);
  index_in_thread_.resize(n);
  last_write_.assign(n, kNoIndex);
  matching_.assign(n, kNoIndex);

  // The trace is well-formed: every release has its acquire held by the same thread, in the
  // same mode. A lock has one writer or several readers: the open acquire is kept per thread.
  std::vector<uint32_t> last_write_of(variable_count_, kNoIndex);
  std::vector<std::vector<uint32_t>> open(threads);  // per thread: acquires not yet released
  for (uint32_t i = 0; i < n; ++i) {
    const Event& e = events_[i];
    index_in_thread_[i] = static_cast<uint32_t>(thread_events_[e.thread].size());
    thread_events_[e.thread].push_back(i);
    switch (e.op) {
      case Op::Read:
        last_write_[i] = last_write_of[e.target];
        break;
      case Op::Write:
        last_write_of[e.target] = i;
        break;
      case Op::Acquire:
      case Op::ReadAcquire:
        open[e.thread].push_back(i);
        break;
      case Op::Release:
      case Op::ReadRelease: {
        std::vector<uint32_t>& mine = open[e.thread];
        const auto a = std::find_if(mine.begin(), mine.end(),
                                    [&](uint32_t k) { return events_[k].target == e.target; });
        matching_[*a] = i;
        matching_[i] = *a;
        mine.erase(a);
        break;
      }
      case Op::Fork:
        fork_of_[e.target] = i;
        break;
      case Op::Join:
        break;
    }
  }
}

std::vector<std::pair<uint32_t, uint32_t>> ExactTrace::conflicting_pairs() const {
  std::vector<std::vector<uint32_t>> by_variable(variable_count_);
  for (uint32_t i = 0; i < size(); ++i)
    if (events_[i].is_access()) by_variable[events_[i].target].push_back(i);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (const auto& accesses : by_variable)
    for (size_t a = 0; a < accesses.size(); ++a)
      for (size_t b = a + 1; b < accesses.size(); ++b)
        if (conflicting(events_[accesses[a]], events_[accesses[b]]))
          pairs.emplace_back(accesses[a], accesses[b]);
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

namespace {
std::string name_or_number(const Symbols* symbols, const SymbolTable Symbols::*table,
                           const char* prefix, uint32_t id) {
  if (symbols && id < (symbols->*table).size()) return std::string((symbols->*table).name(id));
  std::string fallback(prefix);
  fallback += std::to_string(id);  // (appending avoids a bogus -Wrestrict of g++ 12)
  return fallback;
}
}  // namespace

std::string ExactTrace::thread_name(ThreadId t) const {
  return name_or_number(symbols_, &Symbols::threads, "T", t);
}
std::string ExactTrace::variable_name(VariableId x) const {
  return name_or_number(symbols_, &Symbols::variables, "V", x);
}
std::string ExactTrace::lock_name(LockId l) const {
  return name_or_number(symbols_, &Symbols::locks, "L", l);
}

std::string ExactTrace::describe(uint32_t i) const {
  const Event& e = events_[i];
  std::string target;
  switch (e.op) {
    case Op::Read:
    case Op::Write:
      target = variable_name(e.target);
      break;
    case Op::Acquire:
    case Op::Release:
    case Op::ReadAcquire:
    case Op::ReadRelease:
      target = lock_name(e.target);
      break;
    case Op::Fork:
    case Op::Join:
      target = thread_name(e.target);
      break;
  }
  std::string s = thread_name(e.thread);
  s += '|';
  s += op_name(e.op);
  s += '(';
  s += target;
  s += ')';
  return s;
}

}  // namespace racepred::exact
