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
// The calls are static (CRTP): the compiler inlines the handlers into the batch loop, so the
// driver pays one virtual call per batch, not per event.
#pragma once

#include <span>

#include "racepred/engines/engine.hpp"

namespace racepred {

template <class Self>
class DispatchEngine : public Engine {
 public:
  void on_events(std::span<const EventId> ids, std::span<const Event> events) final {
    Self& self = static_cast<Self&>(*this);
    for (size_t k = 0, n = events.size(); k < n; ++k) {
      const EventId id = ids[k];
      const Event& e = events[k];
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
      }
      self.after(id, e);
    }
  }

 protected:
  // The defaults: nothing happens. A handler of Self hides the one here.
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
