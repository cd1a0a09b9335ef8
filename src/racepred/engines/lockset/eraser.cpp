// eraser: the lock-set algorithm of Eraser (Savage, Burrows, Nelson, Sobalvarro and Anderson,
// "Eraser: A Dynamic Data Race Detector for Multithreaded Programs", ACM TOCS 1997, §2), the
// classic baseline the cross-thread paper cites next to TSan v1. Unlike `lockset`, which
// compares every pair of accesses, Eraser keeps one candidate set C(x) per variable, refined at
// each access, and a state machine that leaves out initialisation and read-only sharing:
//
//   Virgin                 first access by t:                      Exclusive(t)
//   Exclusive(t)           access by t:                            Exclusive(t)
//                          read by u ≠ t:      C(x) := LS(u),      Shared
//                          write by u ≠ t:     C(x) := LS(u),      Shared-Modified
//   Shared                 read:               C(x) := C(x) ∩ LS,  Shared
//                          write:              C(x) := C(x) ∩ LS,  Shared-Modified
//   Shared-Modified        access:             C(x) := C(x) ∩ LS
//
// where LS is the set of locks the accessing thread holds. Every access in Shared-Modified after
// which C(x) is empty is reported: the discipline "some lock guards every access to x" is
// broken there. Eraser knows only the access, not a partner, so the unit is racy events.
//
// Neither sound nor complete: a variable first written by one thread and then by another under
// a lock stays quiet (the Exclusive state takes the unprotected first write for initialisation,
// even when a reordering makes the two writes race), and C(x) can be empty while every two
// accesses share a lock (LS {a,b}, {b,c}, {a,c}). Fork and join play no part, as in the paper.
//
// Read-write locks (the paper's §2.2; docs/ENGINES.md "Read-write locks"): a read refines C(x)
// with the locks its thread holds in any mode, a write only with those held in write mode.
// While a thread holds no lock in read mode the two sets are one (LS); WLS(t), the write-mode
// set, is kept only while it holds some.
#include <memory>
#include <string>

#include "racepred/clock/id_table.hpp"
#include "racepred/clock/lock_set.hpp"
#include "racepred/engines/dispatch.hpp"

namespace racepred {
namespace {

using SetId = LockSetTable::SetId;
using NodeId = LockSetTable::NodeId;

class Eraser final : public DispatchEngine<Eraser>, public Annotator {
 public:
  explicit Eraser(EngineContext& context) : symbols_(context.symbols), sink_(context.sink) {}

  // acq(t,y): LS(t) := LS(t) ∪ {y};  rel(t,y): LS(t) := LS(t) − {y}  (and WLS(t) alike)
  void acquire(EventId, const Event& e) {
    ls_[e.thread] = table_.acquire(ls_[e.thread], e.target);
    if (reading_[e.thread]) [[unlikely]]
      wls_[e.thread] = table_.acquire(wls_[e.thread], e.target);
  }
  void release(EventId, const Event& e) {
    ls_[e.thread] = table_.release(ls_[e.thread], e.target);
    if (reading_[e.thread]) [[unlikely]]
      wls_[e.thread] = table_.release(wls_[e.thread], e.target);
  }
  // racq(t,y): LS(t) := LS(t) ∪ {y}, WLS(t) unchanged;  rrel(t,y): LS(t) := LS(t) − {y}
  void read_acquire(EventId, const Event& e) {
    if (reading_[e.thread]++ == 0) wls_[e.thread] = ls_[e.thread];
    ls_[e.thread] = table_.acquire(ls_[e.thread], e.target);
  }
  void read_release(EventId, const Event& e) {
    ls_[e.thread] = table_.release(ls_[e.thread], e.target);
    --reading_[e.thread];
  }
  // Lock sets only: send/recv are ignored (pairs they order may be reported).
  void send(EventId, const Event&) {}
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event&) {}
  void read(EventId id, const Event& e) { access(id, e, false); }
  void write(EventId id, const Event& e) { access(id, e, true); }

  // Columns "state" (the variable's state after the access) and "C" (its candidate set).
  Annotator* annotator() override { return this; }
  void annotate(EventId, const Event& e, Annotation& row) override {
    std::string state, candidates;
    if (e.is_access()) {
      const Variable& v = variables_[e.target];
      switch (v.state) {
        case State::Virgin:
          break;
        case State::Exclusive:
          state = "Exclusive(";  // (appended: g++ 12 warns falsely on operator+ here)
          state.append(symbols_.threads.name(v.owner));
          state.push_back(')');
          break;
        case State::Shared:
          state = "Shared";
          break;
        case State::SharedModified:
          state = "Shared-Modified";
          break;
      }
      if (v.state == State::Shared || v.state == State::SharedModified) {
        candidates.push_back('{');
        for (LockId l : table_.sorted_locks(v.candidates)) {
          if (candidates.size() > 1) candidates.push_back(',');
          candidates.append(symbols_.locks.name(l));
        }
        candidates.push_back('}');
      }
    }
    row.push_back({"state", std::move(state)});
    row.push_back({"C", std::move(candidates)});
  }

 private:
  enum class State : uint8_t { Virgin, Exclusive, Shared, SharedModified };
  struct Variable {
    State state = State::Virgin;
    ThreadId owner = 0;  // Exclusive
    SetId candidates = LockSetTable::kEmptySet;
  };

  void access(EventId id, const Event& e, bool write) {
    Variable& v = variables_[e.target];
    const SetId held = table_.set_of(write && reading_[e.thread] ? wls_[e.thread] : ls_[e.thread]);
    switch (v.state) {
      case State::Virgin:
        v.state = State::Exclusive;
        v.owner = e.thread;
        return;
      case State::Exclusive:
        if (e.thread == v.owner) return;
        v.candidates = held;
        v.state = write ? State::SharedModified : State::Shared;
        break;
      case State::Shared:
        v.candidates = table_.intersect(v.candidates, held);
        if (write) v.state = State::SharedModified;
        break;
      case State::SharedModified:
        v.candidates = table_.intersect(v.candidates, held);
        break;
    }
    if (v.state == State::SharedModified && v.candidates == LockSetTable::kEmptySet)
      sink_.report(Race{Access{}, Access::of(id, e), e.target});
  }

  const Symbols& symbols_;
  RaceSink& sink_;
  LockSetTable table_;
  IdTable<NodeId> ls_{LockSetTable::kRoot};   // LS(t): locks held in any mode
  IdTable<NodeId> wls_{LockSetTable::kRoot};  // WLS(t): in write mode, while reading_(t) > 0
  IdTable<uint32_t> reading_;                 // locks t holds in read mode
  IdTable<Variable> variables_;
};

}  // namespace

std::unique_ptr<Engine> make_eraser(EngineContext& context) {
  return std::make_unique<Eraser>(context);
}

}  // namespace racepred
