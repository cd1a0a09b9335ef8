#include "racepred/witness/checker.hpp"

#include <algorithm>

namespace racepred::witness {

std::string_view rule_name(Rule rule) {
  switch (rule) {
    case Rule::None:
      return "none";
    case Rule::Unknown:
      return "unknown event";
    case Rule::PO:
      return "PO";
    case Rule::Lock1:
      return "Lock-1";
    case Rule::Lock2:
      return "Lock-2";
    case Rule::Fork:
      return "Fork";
    case Rule::Join:
      return "Join";
    case Rule::LW:
      return "LW";
    case Rule::Sync:
      return "Sync";
    case Rule::Conflict:
      return "conflict";
    case Rule::Meet:
      return "meet";
  }
  return "?";
}

Checker::Checker(const Trace& trace) : trace_(trace) {
  const size_t n = trace.size();
  dense_ids_ = n == 0 || (trace.ids.front() == 1 && trace.ids.back() == n);
  const size_t threads = trace.symbols.threads.size();
  rank_.resize(n);
  last_write_.assign(n, kNone);
  thread_events_.assign(threads, 0);
  fork_.assign(threads, kNone);
  std::vector<uint32_t> last(trace.symbols.variables.size(), kNone);
  const bool sync = std::any_of(trace.events.begin(), trace.events.end(),
                                [](const Event& e) { return e.op == Op::Recv; });
  std::vector<std::vector<uint32_t>> sent_on(sync ? trace.symbols.locks.size() : 0);
  if (sync) sends_at_.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const Event& e = trace.events[i];
    if (sync) sends_at_[i] = static_cast<uint32_t>(sends_.size());
    if (sync && is_sync_op(e.op)) {
      std::vector<uint32_t>& on = sent_on[e.target];
      if (e.op == Op::Recv) sends_.insert(sends_.end(), on.begin(), on.end());
      if (e.op == Op::Send) {
        const auto same = std::find_if(
            on.begin(), on.end(), [&](uint32_t k) { return trace.events[k].thread == e.thread; });
        if (same != on.end())
          *same = static_cast<uint32_t>(i);
        else
          on.push_back(static_cast<uint32_t>(i));
      }
    }
    rank_[i] = thread_events_[e.thread]++;
    if (e.op == Op::Read) last_write_[i] = last[e.target];
    if (e.op == Op::Write) last[e.target] = static_cast<uint32_t>(i);
    if (e.op == Op::Fork && fork_[e.target] == kNone) fork_[e.target] = static_cast<uint32_t>(i);
  }
  if (sync) sends_at_[n] = static_cast<uint32_t>(sends_.size());
  ran_.assign(threads, 0);
  writer_.assign(trace.symbols.locks.size(), 0);
  readers_.assign(trace.symbols.locks.size(), 0);
  seen_write_.assign(trace.symbols.variables.size(), kNone);
}

size_t Checker::position(EventId id) const {
  if (dense_ids_) return id >= 1 && id <= trace_.size() ? static_cast<size_t>(id - 1) : SIZE_MAX;
  return trace_.index_of(id);
}

std::string Checker::describe(size_t i) const {
  return trace_.to_std(trace_.events[i]) + " (event " + std::to_string(trace_.ids[i]) + ")";
}

Verdict Checker::check(const Witness& w) {
  // The state is reset for the next check from what this one touched.
  std::vector<uint32_t> touched_threads, touched_locks, touched_variables;
  const auto reset = [&] {
    for (uint32_t t : touched_threads) ran_[t] = 0;
    for (uint32_t l : touched_locks) writer_[l] = readers_[l] = 0;
    for (uint32_t x : touched_variables) seen_write_[x] = kNone;
    read_holds_.clear();
  };
  const auto fail = [&](Rule rule, EventId id, std::string message) {
    reset();
    return Verdict{rule, id, std::move(message)};
  };
  const auto started = [&](ThreadId t) {
    const uint32_t f = fork_[t];
    return f == kNone || rank_[f] < ran_[trace_.events[f].thread];
  };

  for (const EventId id : w.prefix) {
    const size_t i = position(id);
    if (i == SIZE_MAX)
      return fail(Rule::Unknown, id, "event " + std::to_string(id) + " is not in the trace");
    const Event& e = trace_.events[i];
    const ThreadId t = e.thread;
    if (rank_[i] != ran_[t]) {
      return fail(Rule::PO, id,
                  describe(i) + (rank_[i] < ran_[t] ? " runs a second time"
                                                    : " runs before earlier events of " +
                                                          std::string(trace_.thread_name(t))));
    }
    if (!started(t)) {
      return fail(Rule::Fork, id,
                  describe(i) + " runs before its thread is forked by " + describe(fork_[t]));
    }
    if (ran_[t]++ == 0) touched_threads.push_back(t);
    switch (e.op) {
      case Op::Acquire:
      case Op::ReadAcquire: {
        const LockId l = e.target;
        if (writer_[l] != 0)
          return fail(Rule::Lock1, id,
                      describe(i) + " while " + std::string(trace_.thread_name(writer_[l] - 1)) +
                          " holds it");
        if (e.op == Op::Acquire && readers_[l] != 0)
          return fail(Rule::Lock1, id,
                      describe(i) + " while " + std::to_string(readers_[l]) +
                          " thread(s) hold it in read mode");
        touched_locks.push_back(l);
        if (e.op == Op::Acquire) {
          writer_[l] = t + 1;
        } else {
          ++readers_[l];
          read_holds_.emplace_back(l, t);
        }
        break;
      }
      case Op::Release:
        if (writer_[e.target] != t + 1)
          return fail(Rule::Lock2, id, describe(i) + " releases a lock its thread does not hold");
        writer_[e.target] = 0;
        break;
      case Op::ReadRelease: {
        const auto held = std::find(read_holds_.begin(), read_holds_.end(),
                                    std::pair<uint32_t, uint32_t>(e.target, t));
        if (held == read_holds_.end())
          return fail(Rule::Lock2, id,
                      describe(i) + " releases a lock its thread does not hold in read mode");
        read_holds_.erase(held);
        --readers_[e.target];
        break;
      }
      case Op::Fork:
        break;
      case Op::Join:
        if (e.target < ran_.size() && ran_[e.target] != thread_events_[e.target]) {
          return fail(Rule::Join, id,
                      describe(i) + " before " + std::string(trace_.thread_name(e.target)) +
                          " ran all its events (" + std::to_string(ran_[e.target]) + " of " +
                          std::to_string(thread_events_[e.target]) + ")");
        }
        break;
      case Op::Read: {
        const uint32_t seen = seen_write_[e.target], want = last_write_[i];
        if (seen != want) {
          const auto what = [&](uint32_t k) {
            return k == kNone ? std::string("the initial value") : "the write " + describe(k);
          };
          return fail(
              Rule::LW, id,
              describe(i) + " reads " + what(seen) + "; in the trace it reads " + what(want));
        }
        break;
      }
      case Op::Write:
        if (seen_write_[e.target] == kNone) touched_variables.push_back(e.target);
        seen_write_[e.target] = static_cast<uint32_t>(i);
        break;
      case Op::Recv:
        for (uint32_t k = sends_at_[i]; k < sends_at_[i + 1]; ++k) {
          const uint32_t s = sends_[k];
          if (ran_[trace_.events[s].thread] <= rank_[s])
            return fail(Rule::Sync, id, describe(i) + " runs before " + describe(s));
        }
        break;
      case Op::Send:
      case Op::Request:  // a request changes nothing: the acquire that grants it checks the lock
        break;
    }
  }

  const size_t a = position(w.first), b = position(w.second);
  if (a == SIZE_MAX || b == SIZE_MAX) {
    const EventId missing = a == SIZE_MAX ? w.first : w.second;
    return fail(Rule::Unknown, missing,
                "racing event " + std::to_string(missing) + " is not in the trace");
  }
  if (!conflicting(trace_.events[a], trace_.events[b]))
    return fail(Rule::Conflict, w.second,
                describe(a) + " and " + describe(b) +
                    " do not conflict (one variable, two threads, a write)");
  if (w.notion == Notion::Adjacent) {
    const size_t k = w.prefix.size();
    if (k < 2 || w.prefix[k - 2] != w.first || w.prefix[k - 1] != w.second)
      return fail(Rule::Meet, w.second,
                  "the witness does not end with " + describe(a) + " then " + describe(b));
  } else {
    for (const size_t i : {a, b}) {
      const ThreadId t = trace_.events[i].thread;
      if (rank_[i] != ran_[t])
        return fail(Rule::Meet, trace_.ids[i],
                    describe(i) + " is not the next event of " +
                        std::string(trace_.thread_name(t)) + " after the witness");
      if (!started(t))
        return fail(Rule::Meet, trace_.ids[i],
                    describe(i) + " cannot run: its thread is not forked in the witness");
    }
  }
  reset();
  return {};
}

}  // namespace racepred::witness
