// The dispatch base of online engines: one switch over the event kinds, written once.
//
// An engine derives from DispatchEngine<Self> and defines the handlers it needs, named like the
// seeds' procedures; each takes the event id and the event (e.thread is the thread i, e.target
// the variable x, lock y or thread j). Handlers it does not define do nothing:
//
//   void read(EventId id, const Event& e);      r(i,x)
//   void write(EventId id, const Event& e);     w(i,x)
//   void acquire(EventId id, const Event& e);   acq(i,y)
//   void release(EventId id, const Event& e);   rel(i,y)
//   void fork(EventId id, const Event& e);      fork(i,j)
//   void join(EventId id, const Event& e);      join(i,j)
//   void before(EventId id, const Event& e);    before every event (e.g. grow per-thread state)
//   void after(EventId id, const Event& e);     after every event (e.g. inc(Th(i), i))
//
// Read-write locks have no default: every engine defines
//
//   void read_acquire(EventId id, const Event& e);   racq(i,y): y taken in read (shared) mode
//   void read_release(EventId id, const Event& e);   rrel(i,y)
//
// saying how its method treats a read section (docs/ENGINES.md, "Read-write locks"), so that no
// engine treats read locks as exclusive, or ignores them, by accident: without them it does not
// compile. Synchronisation orders have no default either: every engine defines
//
//   void send(EventId id, const Event& e);   send(i,o): i publishes its past on sync object o
//   void recv(EventId id, const Event& e);   recv(i,o): after every earlier send(o)
//
// saying how its method treats them (docs/ENGINES.md, "Synchronisation orders"), an empty
// handler included (a lock-set method that has no order). Lock requests have no default either:
//
//   void request(EventId id, const Event& e);   req(i,y): i waits for y (not granted yet)
//
// a request orders nothing and takes nothing, so race engines define it empty; deadlock engines
// see in it a thread that waits for a lock (docs/FORMATS.md, "Lock requests").
//
// The calls are static (CRTP): the compiler inlines the handlers into the batch loop, so the
// driver pays one virtual call per batch, not per event.
#pragma once

#include <concepts>
#include <span>
#include <string>

#include "racepred/engines/engine.hpp"
#include "racepred/trace/error.hpp"

namespace racepred {

// For an engine whose method has no rule for read-write locks yet (docs/ENGINES.md,
// "Read-write locks"): stops the analysis at the first read-lock event with an InputError that
// names the engine and the event (exit code 2), rather than treating the lock as exclusive.
[[noreturn, gnu::cold, gnu::noinline]] inline void read_locks_unsupported(const char* engine,
                                                                          EventId id,
                                                                          const Event& e) {
  throw InputError("error: event " + std::to_string(id) + " (" + std::string(op_name(e.op)) +
                   "): engine " + engine +
                   " has no rule for read-write locks yet; run an engine that has (e.g. hb, "
                   "fasttrack, lockset, shb, exact: `racepred engines`)");
}

// One event through Self's handlers: before, the handler of its kind, after. DispatchEngine's
// batch loop, and the loop of an offline engine that walks the index with the same handlers
// (hb-sets), so the switch over the event kinds is written once.
template <class Self>
[[gnu::always_inline]] inline void dispatch_event(Self& self, EventId id, const Event& e) {
  self.before(id, e);
  switch (e.op) {
    case Op::Read:
      self.read(id, e);
      break;
    case Op::Write:
      self.write(id, e);
      break;
    case Op::Acquire:
      self.acquire(id, e);
      break;
    case Op::Release:
      self.release(id, e);
      break;
    case Op::Fork:
      self.fork(id, e);
      break;
    case Op::Join:
      self.join(id, e);
      break;
    case Op::ReadAcquire:
      self.read_acquire(id, e);
      break;
    case Op::ReadRelease:
      self.read_release(id, e);
      break;
    case Op::Send:
      self.send(id, e);
      break;
    case Op::Recv:
      self.recv(id, e);
      break;
    case Op::Request:
    case Op::ReadRequest:
      self.request(id, e);
      break;
  }
  self.after(id, e);
}

template <class Self>
class DispatchEngine : public Engine {
 public:
  static constexpr size_t kPrefetchAhead = 8;
  void on_events(std::span<const EventId> ids, std::span<const Event> events) final {
    static_assert(
        requires(Self & s, EventId id, const Event& e) {
          s.read_acquire(id, e);
          s.read_release(id, e);
        },
        "an engine defines read_acquire and read_release (engines/dispatch.hpp)");
    static_assert(
        requires(Self & s, EventId id, const Event& e) {
          s.send(id, e);
          s.recv(id, e);
        },
        "an engine defines send and recv (engines/dispatch.hpp)");
    static_assert(
        requires(Self & s, EventId id, const Event& e) { s.request(id, e); },
        "an engine defines request (engines/dispatch.hpp)");
    // An engine whose per-variable state outgrows the caches may define prefetching() (asked
    // once per batch) and prefetch(const Event&): while prefetching() holds, prefetch is called
    // kPrefetchAhead events ahead and starts loading that event's state, so the cache misses
    // of consecutive events overlap instead of each stalling its event. Other batches, and
    // other engines, run the loop without it.
    if constexpr (requires(Self & s, const Event& e) {
                    s.prefetch(e);
                    { s.prefetching() } -> std::same_as<bool>;
                  }) {
      if (static_cast<Self&>(*this).prefetching()) return run<true>(ids, events);
    }
    run<false>(ids, events);
  }

 private:
  template <bool kPrefetch>
  [[gnu::always_inline]] inline void run(std::span<const EventId> ids,
                                         std::span<const Event> events) {
    Self& self = static_cast<Self&>(*this);
    for (size_t k = 0, n = events.size(); k < n; ++k) {
      const EventId id = ids[k];
      const Event& e = events[k];
      if constexpr (kPrefetch)
        if (k + kPrefetchAhead < n) self.prefetch(events[k + kPrefetchAhead]);
      dispatch_event(self, id, e);
    }
  }

 public:
  // The defaults: nothing happens. A handler of Self hides the one here (public: dispatch_event
  // calls them).
  void read(EventId, const Event&) {}
  void write(EventId, const Event&) {}
  void acquire(EventId, const Event&) {}
  void release(EventId, const Event&) {}
  void fork(EventId, const Event&) {}
  void join(EventId, const Event&) {}
  void before(EventId, const Event&) {}
  void after(EventId, const Event&) {}
};

}  // namespace racepred
