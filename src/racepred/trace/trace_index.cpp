#include "racepred/trace/trace_index.hpp"

#include <algorithm>
#include <mutex>

#include "racepred/trace/error.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred {

struct TraceIndex::Lazy {
  std::once_flag once;
  Links links;
};

namespace {

// Receives what the validator forwards and checks that it is every event: the validator drops
// only re-entrant pairs when it does not throw, and positions must stay the caller's.
class ForwardCheck : public EventConsumer {
 public:
  void on_event(EventId, const Event&, uint32_t) override { ++forwarded; }
  size_t forwarded = 0;
};

void validate(const std::vector<Event>& events, const std::vector<EventId>& ids,
              const Symbols* symbols, const std::vector<uint32_t>& lines) {
  static const Symbols kNoSymbols;
  ForwardCheck forwarded;
  Validator validator(symbols ? *symbols : kNoSymbols,
                      ValidationOptions{ValidationMode::Strict, ""}, forwarded);
  for (size_t i = 0; i < events.size(); ++i)
    validator.on_event(ids.empty() ? i + 1 : ids[i], events[i], i < lines.size() ? lines[i] : 0);
  validator.on_end();
  if (forwarded.forwarded != events.size()) {
    const ValidationReport& report = validator.report();
    ValidationIssue issue = report.notes.empty() ? ValidationIssue{} : report.notes.front();
    issue.rule = kNoteReentrant;
    issue.message += " (the offline analyses need re-entrant locking normalised first)";
    throw InputError(validation_error("", issue));
  }
}

}  // namespace

TraceIndex::TraceIndex(Validated, std::vector<Event> events, std::vector<EventId> ids,
                       const Symbols* symbols)
    : events_(std::move(events)),
      ids_(std::move(ids)),
      symbols_(symbols),
      lazy_(std::make_unique<Lazy>()) {
  build_summary();
}

TraceIndex::TraceIndex(std::vector<Event> events, std::vector<EventId> ids, const Symbols* symbols,
                       const std::vector<uint32_t>& lines)
    : events_(std::move(events)),
      ids_(std::move(ids)),
      symbols_(symbols),
      lazy_(std::make_unique<Lazy>()) {
  if (!ids_.empty() && ids_.size() != events_.size())
    throw InputError("error: " + std::to_string(events_.size()) + " events but " +
                     std::to_string(ids_.size()) + " ids");
  if (events_.size() >= kNoIndex) throw InputError("racepred: error: trace too large to index");
  validate(events_, ids_, symbols_, lines);
  build_summary();
}

TraceIndex::TraceIndex(TraceIndex&&) noexcept = default;
TraceIndex& TraceIndex::operator=(TraceIndex&&) noexcept = default;
TraceIndex::~TraceIndex() = default;

void TraceIndex::build_summary() {
  if (events_.size() >= kNoIndex) throw InputError("racepred: error: trace too large to index");
  // Ids 1, 2, 3, … are not stored.
  bool dense = true;
  for (size_t i = 0; i < ids_.size() && dense; ++i) dense = ids_[i] == i + 1;
  if (dense) {
    ids_.clear();
    ids_.shrink_to_fit();
  }
  uint32_t threads = 0;
  for (const Event& e : events_) {
    threads = std::max(threads, e.thread + 1);
    if (e.op == Op::Fork || e.op == Op::Join) threads = std::max(threads, e.target + 1);
    if (e.is_access()) variable_count_ = std::max(variable_count_, e.target + 1);
    if (targets_lock(e.op)) lock_count_ = std::max(lock_count_, e.target + 1);
    has_sync_ops_ |= is_sync_op(e.op);
  }
  threads_.assign(threads, Thread{});
  const uint32_t n = static_cast<uint32_t>(events_.size());
  for (uint32_t i = 0; i < n; ++i) {
    const Event& e = events_[i];
    Thread& t = threads_[e.thread];
    if (t.first == kNoIndex) t.first = i;
    t.last = i;
    if (e.op == Op::Fork && threads_[e.target].fork == kNoIndex) threads_[e.target].fork = i;
    if (e.op == Op::Join && threads_[e.target].join == kNoIndex) threads_[e.target].join = i;
  }
}

const TraceIndex::Links& TraceIndex::links() const {
  std::call_once(lazy_->once, [this] {
    Links& l = lazy_->links;
    const uint32_t n = static_cast<uint32_t>(events_.size());
    l.threads.resize(threads_.size());
    l.index_in_thread.resize(n);
    l.last_write.assign(n, kNoIndex);
    l.matching.assign(n, kNoIndex);
    // Well-formed: every release has its acquire held by the same thread, in the same mode. A
    // lock has one writer or several readers: the open acquires are kept per thread.
    std::vector<uint32_t> last_write_of(variable_count_, kNoIndex);
    std::vector<std::vector<uint32_t>> open(threads_.size());
    // Per sync object: the last send of each thread that sent on it so far.
    std::vector<std::vector<uint32_t>> sent_on(has_sync_ops_ ? lock_count_ : 0);
    if (has_sync_ops_) l.sends_at.assign(size_t{n} + 1, 0);
    for (uint32_t i = 0; i < n; ++i) {
      const Event& e = events_[i];
      l.index_in_thread[i] = static_cast<uint32_t>(l.threads[e.thread].size());
      l.threads[e.thread].push_back(i);
      if (has_sync_ops_) l.sends_at[i] = static_cast<uint32_t>(l.sends.size());
      switch (e.op) {
        case Op::Read:
          l.last_write[i] = last_write_of[e.target];
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
          if (a == mine.end()) break;  // not well-formed; the validator rejects it
          l.matching[*a] = i;
          l.matching[i] = *a;
          mine.erase(a);
          break;
        }
        case Op::Send: {
          std::vector<uint32_t>& last = sent_on[e.target];
          const auto same = std::find_if(last.begin(), last.end(),
                                         [&](uint32_t k) { return events_[k].thread == e.thread; });
          if (same != last.end())
            *same = i;
          else
            last.push_back(i);
          break;
        }
        case Op::Recv: {
          const std::vector<uint32_t>& last = sent_on[e.target];
          l.sends.insert(l.sends.end(), last.begin(), last.end());
          break;
        }
        case Op::Fork:
        case Op::Join:
        case Op::Request:
        case Op::ReadRequest:
          break;
      }
    }
    if (has_sync_ops_) l.sends_at[n] = static_cast<uint32_t>(l.sends.size());
  });
  return lazy_->links;
}

std::vector<CriticalSection> TraceIndex::critical_sections() const {
  std::vector<CriticalSection> sections;
  for (uint32_t i = 0; i < size(); ++i) {
    const Event& e = events_[i];
    if (is_acquire_op(e.op))
      sections.push_back({i, matching(i), e.target, e.thread, e.op == Op::ReadAcquire});
  }
  return sections;
}

std::vector<std::pair<uint32_t, uint32_t>> TraceIndex::conflicting_pairs() const {
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

std::string TraceIndex::thread_name(ThreadId t) const {
  return name_or_number(symbols_, &Symbols::threads, "T", t);
}
std::string TraceIndex::variable_name(VariableId x) const {
  return name_or_number(symbols_, &Symbols::variables, "V", x);
}
std::string TraceIndex::lock_name(LockId l) const {
  return name_or_number(symbols_, &Symbols::locks, "L", l);
}

std::string TraceIndex::describe(uint32_t i) const {
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
    case Op::Send:
    case Op::Recv:
    case Op::Request:
    case Op::ReadRequest:
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

}  // namespace racepred
