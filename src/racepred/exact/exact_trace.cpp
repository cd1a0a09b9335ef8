#include "racepred/exact/exact_trace.hpp"

#include <algorithm>

namespace racepred::exact {

ExactTrace::ExactTrace(std::vector<Event> events, std::vector<EventId> ids, const Symbols* symbols)
    : events_(std::move(events)), ids_(std::move(ids)), symbols_(symbols) {
  if (ids_.size() != events_.size()) {
    ids_.resize(events_.size());
    for (size_t i = 0; i < ids_.size(); ++i) ids_[i] = i + 1;
  }
  if (events_.size() >= kNoIndex) throw InputError("exact: error: trace too large");
  const uint32_t n = static_cast<uint32_t>(events_.size());

  uint32_t threads = 0;
  for (const Event& e : events_) {
    threads = std::max(threads, e.thread + 1);
    if (e.op == Op::Fork || e.op == Op::Join) threads = std::max(threads, e.target + 1);
    if (e.is_access()) variable_count_ = std::max(variable_count_, e.target + 1);
    if (e.op == Op::Acquire || e.op == Op::Release)
      lock_count_ = std::max(lock_count_, e.target + 1);
  }
  thread_events_.resize(threads);
  fork_of_.assign(threads, kNoIndex);
  index_in_thread_.resize(n);
  last_write_.assign(n, kNoIndex);
  matching_.assign(n, kNoIndex);

  auto fail = [&](uint32_t i, const std::string& message) {
    throw InputError("exact: error: event " + std::to_string(ids_[i]) + " (" + describe(i) +
                     "): " + message);
  };

  std::vector<uint32_t> last_write_of(variable_count_, kNoIndex);
  std::vector<uint32_t> holder(lock_count_, kNoIndex);  // acquire event holding the lock
  std::vector<uint32_t> joined_at(threads, kNoIndex);
  for (uint32_t i = 0; i < n; ++i) {
    const Event& e = events_[i];
    const uint32_t t = e.thread;
    if (joined_at[t] != kNoIndex)
      fail(i, "event of a thread after it was joined by event " +
                  std::to_string(ids_[joined_at[t]]) + " (Def. 3.2 Join)");
    index_in_thread_[i] = static_cast<uint32_t>(thread_events_[t].size());
    thread_events_[t].push_back(i);
    switch (e.op) {
      case Op::Read:
        last_write_[i] = last_write_of[e.target];
        break;
      case Op::Write:
        last_write_of[e.target] = i;
        break;
      case Op::Acquire:
        if (holder[e.target] != kNoIndex) {
          const uint32_t a = holder[e.target];
          fail(i, events_[a].thread == t
                      ? "re-entrant acquire of a lock the thread already holds (event " +
                            std::to_string(ids_[a]) + "); normalise re-entrant locking first"
                      : "acquire of a lock held by another thread since event " +
                            std::to_string(ids_[a]) + " (Def. 3.2 Lock-1)");
        }
        holder[e.target] = i;
        break;
      case Op::Release: {
        const uint32_t a = holder[e.target];
        if (a == kNoIndex || events_[a].thread != t)
          fail(i, "release of a lock the thread does not hold (Def. 3.2 Lock-2)");
        matching_[a] = i;
        matching_[i] = a;
        holder[e.target] = kNoIndex;
        break;
      }
      case Op::Fork:
        if (e.target == t) fail(i, "a thread forks itself (Def. 3.2 Fork-1)");
        if (fork_of_[e.target] != kNoIndex)
          fail(i, "second fork of the same thread (Def. 3.2 Fork-1)");
        if (!thread_events_[e.target].empty())
          fail(i, "fork of a thread that already has events (Def. 3.2 Fork-2)");
        fork_of_[e.target] = i;
        break;
      case Op::Join:
        if (e.target == t) fail(i, "a thread joins itself (Def. 3.2 Join)");
        if (joined_at[e.target] == kNoIndex) joined_at[e.target] = i;
        break;
    }
  }
  // A thread joined by an event must not have been forked after it.
  for (uint32_t u = 0; u < threads; ++u)
    if (joined_at[u] != kNoIndex && fork_of_[u] != kNoIndex && fork_of_[u] > joined_at[u])
      fail(fork_of_[u], "fork of a thread that was joined before (Def. 3.2 Join)");
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
