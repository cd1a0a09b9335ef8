// shb: schedulable happens-before (Mathur, Kini, Viswanathan, OOPSLA 2018): HB (with fork and
// join) plus an edge from the last write of every read to the read. Seed 003 §8 recalls it
// ("all detected races have viable schedules") and notes that cross-thread critical sections do
// not affect it. Algorithm as in ALGORITHMS.md §3.2 (RAPID's SHB), with the race check of a read
// made before its last-write edge is joined.
//
// State (paper notation):
//   C_t    SHB time of thread t's current event (C_t(t) = 1 at start; +1 after each release,
//          fork and write, the events whose time escapes)
//   L_l    C of the last release of lock l
//   LW_x   C of the last write of x (a full vector clock)
//   W_x, R_x   C_u(u) of the latest write / read of x per thread u (race check)
//
//   acq(t,l):   C_t := C_t ⊔ L_l
//   rel(t,l):   L_l := C_t;  C_t(t) += 1
//   fork(t,u):  C_u := C_u ⊔ C_t;  C_t(t) += 1
//   join(t,u):  C_t := C_t ⊔ C_u
//   r(t,x):     race with every W_x(u) > C_t(u);  C_t := C_t ⊔ LW_x;  R_x(t) := C_t(t)
//   w(t,x):     race with every W_x(u), R_x(u) > C_t(u);  W_x(t) := C_t(t);  LW_x := C_t;
//               C_t(t) += 1
// Every reported pair is a race under the enabled notion (`exact --enabled`): both events are
// enabled after some correct reordering that keeps HB and every read's last write.
#include <memory>
#include <vector>

#include "racepred/engines/po/po_common.hpp"

namespace racepred::po {
namespace {

class Shb final : public PoEngine<Shb> {
 public:
  using PoEngine<Shb>::PoEngine;

  void handle(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    ensure_thread(t);
    switch (e.op) {
      case Op::Acquire:
        if (e.target < l_.size()) c_[t].join(l_[e.target]);  // C_t := C_t ⊔ L_l
        break;
      case Op::Release:
        grow_to(l_, e.target);
        l_[e.target].assign(c_[t]);  // L_l := C_t
        c_[t].increment(t);
        break;
      case Op::Fork:
        ensure_thread(e.target);
        c_[e.target].join(c_[t]);  // C_u := C_u ⊔ C_t
        c_[t].increment(t);
        break;
      case Op::Join:
        ensure_thread(e.target);
        c_[t].join(c_[e.target]);  // C_t := C_t ⊔ C_u
        break;
      case Op::Read:
        hist_.check(*this, id, e, c_[t]);                      // before the last-write edge
        if (e.target < lw_.size()) c_[t].join(lw_[e.target]);  // C_t := C_t ⊔ LW_x
        hist_.record(id, e, c_[t].get(t));                     // R_x(t) := C_t(t)
        break;
      case Op::Write:
        hist_.check(*this, id, e, c_[t]);
        hist_.record(id, e, c_[t].get(t));  // W_x(t) := C_t(t)
        grow_to(lw_, e.target);
        lw_[e.target].assign(c_[t]);  // LW_x := C_t
        c_[t].increment(t);
        break;
    }
  }

 protected:
  void columns(const Event& e, Annotation& row) override {
    const size_t w = width(e);
    row.push_back({"C_t", show(c_[e.thread], w)});
    const bool access = e.is_access();
    row.push_back({"LW_x", access && e.target < lw_.size() ? show(lw_[e.target], w) : ""});
    row.push_back({"W_x", access ? hist_.show(e.target, true) : ""});
    row.push_back({"R_x", access ? hist_.show(e.target, false) : ""});
  }

 private:
  void ensure_thread(ThreadId t) {
    while (c_.size() <= t) {
      c_.emplace_back();
      c_.back().set(static_cast<ThreadId>(c_.size() - 1), 1);
    }
  }

  std::vector<VectorClock> c_;   // C_t
  std::vector<VectorClock> l_;   // L_l
  std::vector<VectorClock> lw_;  // LW_x
  History hist_;
};

}  // namespace

}  // namespace racepred::po

namespace racepred {
std::unique_ptr<Engine> make_shb(EngineContext& context) {
  return std::make_unique<po::Shb>(context);
}
}  // namespace racepred
