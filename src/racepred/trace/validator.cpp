// Online check of Def. 3.2 (Sulzmann and Thiemann) with the policy of docs/WELLFORMEDNESS.md.
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
  // Its last event is a req of this lock (not yet followed by the acquire that grants it).
  LockId requested = kNobody;
  bool read_request = false;  // rreq: granted by racq only
  EventId request = kNoEvent;
  uint32_t request_line = 0;
};

// One holder of a lock: the writer, or one of the readers.
struct Hold {
  ThreadId thread = kNobody;
  uint32_t depth = 0;           // acquires not yet released (> 1: re-entrant)
  EventId acquired = kNoEvent;  // the outermost acquire
  uint32_t acquire_line = 0;
};

// A lock is held by one writer (`holder`) or by any number of readers (`readers`, allocated
// only for locks taken in read mode).
struct LockState {
  Hold writer;
  std::vector<Hold> readers;
  Hold* reader(ThreadId t) {
    for (Hold& h : readers)
      if (h.thread == t) return &h;
    return nullptr;
  }
  bool held() const { return writer.thread != kNobody || !readers.empty(); }
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
  // Per thread: 1 when it has run and is not joined (check_fast's test, one byte per thread).
  std::vector<uint8_t> running;
  std::vector<LockState> locks;
  // Per thread: acquires dropped as Lock-1 violations and not yet matched by a release of the
  // same mode. Their releases are dropped with them rather than reported as Lock-2.
  struct Dropped {
    LockId lock;
    bool read;  // read mode
    uint32_t count;
  };
  std::vector<std::vector<Dropped>> dropped_acquires;
  bool any_dropped = false;  // some acquire was ever dropped (the fast path then steps aside)

  uint32_t* dropped_count(ThreadId t, LockId l, bool read) {
    if (t >= dropped_acquires.size()) return nullptr;
    for (Dropped& d : dropped_acquires[t])
      if (d.lock == l && d.read == read && d.count > 0) return &d.count;
    return nullptr;
  }
  void add_dropped(ThreadId t, LockId l, bool read) {
    if (t >= dropped_acquires.size()) dropped_acquires.resize(static_cast<size_t>(t) + 1);
    if (uint32_t* c = dropped_count(t, l, read)) {
      ++*c;
      return;
    }
    dropped_acquires[t].push_back(Dropped{l, read, 1});
    any_dropped = true;
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
      throw WellFormednessError(validation_error(options.file_name, issue));
    if (report.errors.size() < options.max_issues) report.errors.push_back(std::move(issue));
  }

  bool check(EventId id, const Event& e, uint32_t line) {
    const bool kept = check_state(id, e, line);
    refresh(e.thread);
    if (e.op == Op::Fork || e.op == Op::Join) refresh(e.target);
    return kept;
  }
  bool check_state(EventId id, const Event& e, uint32_t line);
  void refresh(ThreadId t) {
    if (t >= threads.size()) return;
    if (running.size() < threads.size()) running.resize(threads.size(), 0);
    running[t] = threads[t].first != kNoEvent && threads[t].joined == kNoEvent &&
                 threads[t].requested == kNobody;
  }
  // check() for the common cases, inline: an access, an acquire of a free lock, the release
  // of the lock the thread holds once, by a thread that has run and is not joined. Everything
  // else (first events, rwlocks, re-entrancy, violations, dropped acquires) goes to check().
  [[gnu::always_inline]] bool check_fast(EventId id, const Event& e, uint32_t line) {
    const ThreadId t = e.thread;
    if (t < running.size() && running[t]) [[likely]] {
      if (e.op == Op::Read || e.op == Op::Write) return true;
      if (!any_dropped && e.target < locks.size()) {
        LockState& l = locks[e.target];
        if (e.op == Op::Acquire && l.writer.thread == kNobody && l.readers.empty()) {
          l.writer = Hold{t, 1, id, line};
          return true;
        }
        if (e.op == Op::Release && l.writer.thread == t && l.writer.depth == 1) {
          l.writer.thread = kNobody;
          l.writer.depth = 0;
          return true;
        }
      }
    }
    return check(id, e, line);
  }
  // Inlined into check(): lock events are a third of a typical trace. The rare paths
  // (re-entrancy, violations) are out of line.
  [[gnu::always_inline]] inline bool acquire(EventId id, const Event& e, uint32_t line);
  [[gnu::always_inline]] inline bool release(EventId id, const Event& e, uint32_t line);
  [[gnu::noinline, gnu::cold]] void reentrant(EventId id, const Event& e, uint32_t line, Hold& own);
  [[gnu::noinline, gnu::cold]] void held_elsewhere(EventId id, const Event& e, uint32_t line,
                                                   LockState& l);
  [[gnu::noinline, gnu::cold]] void released_elsewhere(EventId id, const Event& e, uint32_t line,
                                                       LockState& l);
  void first_event(ThreadId t, EventId id, uint32_t line) {
    ThreadState& self = thread(t);
    if (self.first == kNoEvent) self.first = id, self.first_line = line;
  }
};

// acq(L) / racq(L): true when forwarded. A lock is held by one writer or by any number of
// readers; a thread re-acquiring a lock in the mode it holds it in is re-entrant (normalised);
// every other acquire of a held lock breaks Lock-1 (docs/WELLFORMEDNESS.md, "Read-write locks").
inline bool Validator::State::acquire(EventId id, const Event& e, uint32_t line) {
  const bool read = e.op == Op::ReadAcquire;
  LockState& l = lock(e.target);
  Hold* own = read ? l.reader(e.thread) : (l.writer.thread == e.thread ? &l.writer : nullptr);
  if (own) [[unlikely]] {
    reentrant(id, e, line, *own);
    return false;
  }
  if (uint32_t* dropped = dropped_count(e.thread, e.target, read)) [[unlikely]] {
    ++*dropped;  // nested in an acquire dropped before: goes with it
    ++report.dropped_with_acquire;
    return false;
  }
  if (l.writer.thread != kNobody || (!read && !l.readers.empty())) [[unlikely]] {
    held_elsewhere(id, e, line, l);
    return false;
  }
  const Hold hold{e.thread, 1, id, line};
  if (read)
    l.readers.push_back(hold);
  else
    l.writer = hold;
  return true;
}

void Validator::State::reentrant(EventId id, const Event& e, uint32_t line, Hold& own) {
  ++own.depth;
  ++report.reentrant_acquires;
  if (report.notes.size() < kKeptIssues)
    report.notes.push_back(ValidationIssue{
        id, line, kNoteReentrant,
        where(id, line) + ": " + thread_name(e.thread) + " acquires " + lock_name(e.target) +
            (e.op == Op::ReadAcquire ? " in read mode" : "") + " again while holding it since " +
            where(own.acquired, own.acquire_line) +
            " (re-entrant); this acquire and its matching release are dropped"});
  first_event(e.thread, id, line);
}

void Validator::State::held_elsewhere(EventId id, const Event& e, uint32_t line, LockState& l) {
  const bool read = e.op == Op::ReadAcquire;
  std::string what = thread_name(e.thread) + " acquires " + lock_name(e.target);
  if (l.writer.thread != kNobody) {
    const bool mine = l.writer.thread == e.thread;
    what += std::string(read ? " in read mode" : "") + ", which " +
            (mine ? std::string("it") : thread_name(l.writer.thread)) + " holds" +
            (mine ? " in write mode" : "") + " since " +
            where(l.writer.acquired, l.writer.acquire_line);
  } else if (const Hold* mine = l.reader(e.thread)) {
    what += ", which it holds in read mode since " + where(mine->acquired, mine->acquire_line) +
            " (an upgrade from read to write mode)";
  } else {
    const Hold& r = l.readers.front();
    what += ", which " + thread_name(r.thread) + " holds in read mode since " +
            where(r.acquired, r.acquire_line);
  }
  violation(kRuleLock1, id, line, std::move(what));
  add_dropped(e.thread, e.target, read);
}

// rel(L) / rrel(L): true when forwarded. The release must match the mode the thread holds the
// lock in (Lock-2 otherwise).
inline bool Validator::State::release(EventId id, const Event& e, uint32_t line) {
  const bool read = e.op == Op::ReadRelease;
  LockState& l = lock(e.target);
  Hold* own = read ? l.reader(e.thread) : (l.writer.thread == e.thread ? &l.writer : nullptr);
  if (!own) [[unlikely]] {
    if (uint32_t* dropped = dropped_count(e.thread, e.target, read)) {
      --*dropped;  // matches an acquire dropped before
      ++report.dropped_with_acquire;
      return false;
    }
    released_elsewhere(id, e, line, l);
    return false;
  }
  if (--own->depth > 0) {  // matches a dropped re-entrant acquire
    first_event(e.thread, id, line);
    return false;
  }
  if (read) {
    *own = l.readers.back();
    l.readers.pop_back();
  } else {
    l.writer.thread = kNobody;
  }
  return true;
}

void Validator::State::released_elsewhere(EventId id, const Event& e, uint32_t line, LockState& l) {
  const bool read = e.op == Op::ReadRelease;
  std::string what = thread_name(e.thread) + " releases " + lock_name(e.target) +
                     (read ? " in read mode" : "") + ", which it does not hold";
  if (const Hold* other =
          read ? (l.writer.thread == e.thread ? &l.writer : nullptr) : l.reader(e.thread))
    what += std::string(" in that mode (it holds it in ") + (read ? "write" : "read") +
            " mode since " + where(other->acquired, other->acquire_line) + ")";
  else if (l.writer.thread != kNobody)
    what += " (" + thread_name(l.writer.thread) + " holds it since " +
            where(l.writer.acquired, l.writer.acquire_line) + ")";
  violation(kRuleLock2, id, line, std::move(what));
}

// True when the event may be forwarded; updates the state for it. Drops re-entrant pairs.
bool Validator::State::check_state(EventId id, const Event& e, uint32_t line) {
  ThreadState& self = thread(e.thread);
  if (self.joined != kNoEvent) {
    violation(kRuleJoin, id, line,
              thread_name(e.thread) + " has an event after it was joined at " +
                  where(self.joined, self.join_line));
    return false;
  }
  if (self.requested != kNobody) {
    // After req(l) the thread waits: its next event, if any, is the acquire of l granting it
    // (after rreq(l), a read acquire).
    const bool grants = self.read_request ? e.op == Op::ReadAcquire : is_acquire_op(e.op);
    if (!grants || e.target != self.requested) {
      violation(kRuleRequest, id, line,
                thread_name(e.thread) + " has an event other than the " +
                    (self.read_request ? "read acquire" : "acquire") + " of " +
                    lock_name(self.requested) + " after its " +
                    (self.read_request ? "read request" : "request") + " at " +
                    where(self.request, self.request_line));
      return false;
    }
    self.requested = kNobody;
  }
  switch (e.op) {
    case Op::Read:
    case Op::Write:
    case Op::Send:  // no constraints: a recv before any send orders nothing
    case Op::Recv:
      break;
    case Op::Request:
    case Op::ReadRequest:
      self.requested = e.target;
      self.read_request = e.op == Op::ReadRequest;
      self.request = id;
      self.request_line = line;
      break;
    case Op::Acquire:
    case Op::ReadAcquire:
      if (!acquire(id, e, line)) return false;
      break;
    case Op::Release:
    case Op::ReadRelease:
      if (!release(id, e, line)) return false;
      break;
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
      if (child.requested != kNobody) {
        violation(kRuleRequest, id, line,
                  thread_name(e.thread) + " joins " + thread_name(e.target) + ", which waits for " +
                      lock_name(child.requested) + " since its request at " +
                      where(child.request, child.request_line));
        return false;
      }
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
    : state_(new State{symbols, std::move(options), next, {}, {}, {}, {}, {}}) {}

Validator::~Validator() = default;

void Validator::on_event(EventId id, const Event& event, uint32_t line) {
  if (state_->check_fast(id, event, line)) {
    ++state_->report.forwarded;
    state_->next.on_event(id, event, line);
  }
}

// Checks a run of events (lines: their input lines, or empty for none) and forwards the runs
// of kept events as runs.
void Validator::check_run(std::span<const EventId> ids, std::span<const Event> events,
                          std::span<const uint32_t> lines) {
  size_t run = 0;  // start of the run of kept events not yet forwarded
  uint64_t kept = 0;
  auto forward = [&](size_t end) {
    if (end <= run) return;
    if (lines.empty())
      state_->next.on_events(ids.subspan(run, end - run), events.subspan(run, end - run));
    else
      state_->next.on_lines(ids.subspan(run, end - run), events.subspan(run, end - run),
                            lines.subspan(run, end - run));
  };
  size_t i = 0;
  try {
    for (; i < events.size(); ++i) {
      if (state_->check_fast(ids[i], events[i], lines.empty() ? 0 : lines[i])) {
        ++kept;
        continue;
      }
      forward(i);
      run = i + 1;
    }
  } catch (...) {  // a strict violation: what came before it is delivered, as one by one
    state_->report.forwarded += kept;
    forward(i);
    throw;
  }
  state_->report.forwarded += kept;
  forward(events.size());
}

void Validator::on_events(std::span<const EventId> ids, std::span<const Event> events) {
  check_run(ids, events, {});
}

void Validator::on_lines(std::span<const EventId> ids, std::span<const Event> events,
                         std::span<const uint32_t> lines) {
  check_run(ids, events, lines);
}

void Validator::on_end() {
  uint64_t held = 0;
  for (const LockState& l : state_->locks) held += l.held();
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
