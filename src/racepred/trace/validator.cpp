// Online check of Def. 3.2 (seed 003) with DESIGN.md's policy; see docs/WELLFORMEDNESS.md.
//
// State is one record per thread and per lock, grown on demand (ids are dense), so memory is
// O(threads + locks) and the per-event path allocates nothing once the ids have been seen.
// The validator forwards exactly the events that keep the forwarded trace well-formed: an
// offending event is dropped (Lenient, Collect) before it changes any state.
#include "racepred/trace/validator.hpp"

#include <string_view>

#include "racepred/trace/printable.hpp"

namespace racepred {
namespace {

constexpr ThreadId kNobody = UINT32_MAX;

struct ThreadState {
  EventId first = kNoEvent;  // first forwarded event of the thread
  uint32_t first_line = 0;
  EventId forked = kNoEvent;  // its fork event
  uint32_t fork_line = 0;
  EventId joined = kNoEvent;  // the first join of it
  uint32_t join_line = 0;
};

struct LockState {
  ThreadId holder = kNobody;
  uint32_t depth = 0;           // acquires by the holder not yet released (> 1: re-entrant)
  EventId acquired = kNoEvent;  // the outermost acquire
  uint32_t acquire_line = 0;
};

std::string where(EventId id, uint32_t line) {
  std::string s = "event " + std::to_string(id);
  if (line) s += " (line " + std::to_string(line) + ")";
  return s;
}

}  // namespace

struct Validator::State {
  const Symbols& symbols;
  ValidationOptions options;
  EventConsumer& next;
  ValidationReport report;
  std::vector<ThreadState> threads;
  std::vector<LockState> locks;
  // Per thread: acquires dropped as Lock-1 violations and not yet matched by a release, as
  // (lock, count). Their releases are dropped with them rather than reported as Lock-2.
  std::vector<std::vector<std::pair<LockId, uint32_t>>> dropped_acquires;

  uint32_t* dropped_count(ThreadId t, LockId l) {
    if (t >= dropped_acquires.size()) return nullptr;
    for (auto& [lock, count] : dropped_acquires[t])
      if (lock == l && count > 0) return &count;
    return nullptr;
  }
  void add_dropped(ThreadId t, LockId l) {
    if (t >= dropped_acquires.size()) dropped_acquires.resize(static_cast<size_t>(t) + 1);
    if (uint32_t* c = dropped_count(t, l)) {
      ++*c;
      return;
    }
    dropped_acquires[t].emplace_back(l, 1);
  }

  ThreadState& thread(ThreadId t) {
    if (t >= threads.size()) threads.resize(static_cast<size_t>(t) + 1);
    return threads[t];
  }
  LockState& lock(LockId l) {
    if (l >= locks.size()) locks.resize(static_cast<size_t>(l) + 1);
    return locks[l];
  }
  // Names in messages: control characters escaped, long names cut (trace/printable.hpp).
  std::string thread_name(ThreadId t) const {
    return t < symbols.threads.size() ? printable(symbols.threads.name(t))
                                      : "thread#" + std::to_string(t);
  }
  std::string lock_name(LockId l) const {
    return l < symbols.locks.size() ? printable(symbols.locks.name(l))
                                    : "lock#" + std::to_string(l);
  }

  // Records a violation; throws under Strict. The caller drops the event.
  void violation(const char* rule, EventId id, uint32_t line, std::string what) {
    ValidationIssue issue{id, line, rule, where(id, line) + ": " + what};
    ++report.violations;
    ++report.violations_by_rule[rule];
    if (options.mode == ValidationMode::Strict)
      throw InputError(validation_error(options.file_name, issue));
    if (report.errors.size() < options.max_issues) report.errors.push_back(std::move(issue));
  }

  bool check(EventId id, const Event& e, uint32_t line);
};

// True when the event may be forwarded; updates the state for it. Drops re-entrant pairs.
bool Validator::State::check(EventId id, const Event& e, uint32_t line) {
  ThreadState& self = thread(e.thread);
  if (self.joined != kNoEvent) {
    violation(kRuleJoin, id, line,
              thread_name(e.thread) + " has an event after it was joined at " +
                  where(self.joined, self.join_line));
    return false;
  }
  switch (e.op) {
    case Op::Read:
    case Op::Write:
      break;
    case Op::Acquire: {
      LockState& l = lock(e.target);
      if (l.holder == e.thread) {
        ++l.depth;
        ++report.reentrant_acquires;
        if (report.notes.size() < kKeptIssues)
          report.notes.push_back(ValidationIssue{
              id, line, kNoteReentrant,
              where(id, line) + ": " + thread_name(e.thread) + " acquires " + lock_name(e.target) +
                  " again while holding it since " + where(l.acquired, l.acquire_line) +
                  " (re-entrant); this acquire and its matching release are dropped"});
        if (self.first == kNoEvent) self.first = id, self.first_line = line;
        return false;
      }
      if (uint32_t* dropped = dropped_count(e.thread, e.target)) {
        ++*dropped;  // nested in an acquire dropped before: goes with it
        ++report.dropped_with_acquire;
        return false;
      }
      if (l.holder != kNobody) {
        violation(kRuleLock1, id, line,
                  thread_name(e.thread) + " acquires " + lock_name(e.target) + ", which " +
                      thread_name(l.holder) + " holds since " + where(l.acquired, l.acquire_line));
        add_dropped(e.thread, e.target);
        return false;
      }
      l.holder = e.thread;
      l.depth = 1;
      l.acquired = id;
      l.acquire_line = line;
      break;
    }
    case Op::Release: {
      LockState& l = lock(e.target);
      if (l.holder != e.thread) {
        if (uint32_t* dropped = dropped_count(e.thread, e.target)) {
          --*dropped;  // matches an acquire dropped before
          ++report.dropped_with_acquire;
          return false;
        }
        std::string what =
            thread_name(e.thread) + " releases " + lock_name(e.target) + ", which it does not hold";
        if (l.holder != kNobody)
          what += " (" + thread_name(l.holder) + " holds it since " +
                  where(l.acquired, l.acquire_line) + ")";
        violation(kRuleLock2, id, line, std::move(what));
        return false;
      }
      if (--l.depth > 0) {  // matches a dropped re-entrant acquire
        if (self.first == kNoEvent) self.first = id, self.first_line = line;
        return false;
      }
      l.holder = kNobody;
      break;
    }
    case Op::Fork: {
      if (e.target == e.thread) {
        violation(kRuleFork1, id, line, thread_name(e.thread) + " forks itself");
        return false;
      }
      ThreadState& child = thread(e.target);
      ThreadState& me = threads[e.thread];  // `self` may have moved when `threads` grew
      if (child.forked != kNoEvent) {
        violation(kRuleFork1, id, line,
                  thread_name(e.thread) + " forks " + thread_name(e.target) +
                      ", which was already forked at " + where(child.forked, child.fork_line));
        return false;
      }
      if (child.first != kNoEvent) {
        violation(kRuleFork2, id, line,
                  thread_name(e.thread) + " forks " + thread_name(e.target) +
                      ", which already ran from " + where(child.first, child.first_line));
        return false;
      }
      child.forked = id;
      child.fork_line = line;
      if (me.first == kNoEvent) me.first = id, me.first_line = line;
      return true;
    }
    case Op::Join: {
      if (e.target == e.thread) {
        violation(kRuleJoin, id, line, thread_name(e.thread) + " joins itself");
        return false;
      }
      ThreadState& child = thread(e.target);
      if (child.joined == kNoEvent) {
        child.joined = id;
        child.join_line = line;
      }
      ThreadState& me = threads[e.thread];
      if (me.first == kNoEvent) me.first = id, me.first_line = line;
      return true;
    }
  }
  if (self.first == kNoEvent) self.first = id, self.first_line = line;
  return true;
}

std::string validation_error(const std::string& file_name, const ValidationIssue& issue) {
  // Appending (not operator+) avoids a bogus -Wrestrict of g++ 12.
  std::string s;
  if (!file_name.empty()) {
    s.append(file_name);
    if (issue.line != 0) s.append(":").append(std::to_string(issue.line)).append(":1");
    s.append(": ");
  }
  s.append("error: trace is not well-formed (").append(issue.rule).append("): ");
  s.append(issue.message);
  return s;
}

Validator::Validator(const Symbols& symbols, ValidationOptions options, EventConsumer& next)
    : state_(new State{symbols, std::move(options), next, {}, {}, {}, {}}) {}

Validator::~Validator() = default;

void Validator::on_event(EventId id, const Event& event, uint32_t line) {
  if (state_->check(id, event, line)) {
    ++state_->report.forwarded;
    state_->next.on_event(id, event, line);
  }
}

void Validator::on_end() {
  uint64_t held = 0;
  for (const LockState& l : state_->locks) held += l.holder != kNobody;
  state_->report.unreleased_locks = held;
  ValidationReport& r = state_->report;
  for (size_t t = 0; t < state_->threads.size(); ++t) {
    const ThreadState& ts = state_->threads[t];
    if (ts.first == kNoEvent && (ts.forked != kNoEvent || ts.joined != kNoEvent)) {
      ++r.threads_without_events;
      if (r.threads_without_events_examples.size() < kKeptIssues)
        r.threads_without_events_examples.push_back(state_->thread_name(static_cast<ThreadId>(t)));
    }
  }
  state_->next.on_end();
}

const ValidationReport& Validator::report() const {
  return state_->report;
}

}  // namespace racepred
