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
// Read-write locks (docs/ENGINES.md, "Read-write locks"): LR_l joins the read releases of l,
// which a write acquire joins and a read acquire does not (read sections are not ordered):
//   racq(t,l):  C_t := C_t ⊔ L_l
//   rrel(t,l):  LR_l := LR_l ⊔ C_t;  C_t(t) += 1
//   acq(t,l):   C_t := C_t ⊔ L_l ⊔ LR_l
// Every reported pair is a race under the enabled notion (`exact --enabled`): both events are
// enabled after some correct reordering that keeps HB and every read's last write.
#include <bit>
#include <memory>
#include <vector>

#include "racepred/engines/po/plain.hpp"
#include "racepred/engines/po/po_common.hpp"

namespace racepred::po {
namespace {

// The plain version: VectorClocks, the rules as written above.
class ShbPlain final : public PoEngine<ShbPlain> {
 public:
  using PoEngine<ShbPlain>::PoEngine;

  void handle(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    ensure_thread(t);
    switch (e.op) {
      case Op::Acquire:
        if (e.target < l_.size()) c_[t].join(l_[e.target]);    // C_t := C_t ⊔ L_l
        if (e.target < lr_.size()) c_[t].join(lr_[e.target]);  // ⊔ LR_l
        break;
      case Op::ReadAcquire:
        if (e.target < l_.size()) c_[t].join(l_[e.target]);  // C_t := C_t ⊔ L_l
        break;
      case Op::ReadRelease:
        grow_to(lr_, e.target);
        lr_[e.target].join(c_[t]);  // LR_l := LR_l ⊔ C_t
        c_[t].increment(t);
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
  std::vector<VectorClock> lr_;  // LR_l
  std::vector<VectorClock> lw_;  // LW_x
  History hist_;
};

// The optimised version (engine `shb`): flat clock rows, and an O(1) test before the last-write
// join: LW_x is C_u at the write w, whose own entry k = C_u(u) ticks right after w, so a thread
// that knows u's time k already knows all of LW_x (LW_x ⊑ C_t iff k <= C_t(u)).
class Shb final : public PoEngine<Shb> {
 public:
  using PoEngine<Shb>::PoEngine;

  void handle(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    if (t >= threads_) [[unlikely]]
      add_thread(t);
    Clock* ct = c_.row(t);
    const size_t n = c_.stride();
    switch (e.op) {
      case Op::Acquire:
        if (e.target < l_.rows()) join_clocks(ct, l_.row(e.target), n);  // C_t := C_t ⊔ L_l
        if (e.target < lr_.rows()) [[unlikely]]
          join_clocks(ct, lr_.row(e.target), n);  // ⊔ LR_l
        break;
      case Op::ReadAcquire:
        if (e.target < l_.rows()) join_clocks(ct, l_.row(e.target), n);  // C_t := C_t ⊔ L_l
        break;
      case Op::ReadRelease:
        lr_.ensure_rows(size_t{e.target} + 1);
        join_clocks(lr_.row(e.target), ct, n);  // LR_l := LR_l ⊔ C_t
        ++ct[t];
        break;
      case Op::Release:
        l_.ensure_rows(size_t{e.target} + 1);
        copy_clock(l_.row(e.target), ct, n);  // L_l := C_t
        ++ct[t];
        break;
      case Op::Fork:
        if (e.target >= threads_) add_thread(e.target);
        ct = c_.row(t);
        join_clocks(c_.row(e.target), ct, n);  // C_u := C_u ⊔ C_t
        ++ct[t];
        break;
      case Op::Join:
        if (e.target >= threads_) add_thread(e.target);
        join_clocks(c_.row(t), c_.row(e.target), n);  // C_t := C_t ⊔ C_u
        break;
      case Op::Read: {
        hist_.check(*this, id, e, ct);  // before the last-write edge
        const size_t x = e.target;
        if (x < writer_.size() && writer_[x].thread != kNoThread &&
            writer_[x].time > ct[writer_[x].thread])
          join_clocks(ct, lw_.row(x), n);  // C_t := C_t ⊔ LW_x
        hist_.record(id, e, ct[t]);        // R_x(t) := C_t(t)
        break;
      }
      case Op::Write: {
        hist_.check(*this, id, e, ct);
        hist_.record(id, e, ct[t]);  // W_x(t) := C_t(t)
        const size_t x = e.target;
        if (x >= writer_.size()) [[unlikely]]
          grow_variables(x);
        copy_clock(lw_.row(x), ct, n);  // LW_x := C_t
        writer_[x] = Writer{t, ct[t]};
        ++ct[t];
        break;
      }
    }
  }

 protected:
  void columns(const Event& e, Annotation& row) override {
    const size_t w = width(e);
    const size_t n = c_.stride();
    row.push_back({"C_t", show_row(c_.row(e.thread), n, w)});
    const bool access = e.is_access();
    const bool has_lw =
        access && e.target < writer_.size() && writer_[e.target].thread != kNoThread;
    row.push_back({"LW_x", has_lw ? show_row(lw_.row(e.target), n, w) : ""});
    row.push_back({"W_x", access ? hist_.show(e.target, true) : ""});
    row.push_back({"R_x", access ? hist_.show(e.target, false) : ""});
  }

 private:
  struct Writer {  // the last write of x: its thread and its own entry C_u(u)
    ThreadId thread = kNoThread;
    Clock time = 0;
  };

  [[gnu::noinline]] void grow_variables(size_t x) {
    writer_.resize(std::max(x + 1, writer_.size() * 3 / 2));
    lw_.ensure_rows(writer_.size());
  }
  [[gnu::noinline]] void add_thread(ThreadId t) {
    const size_t need = size_t{t} + 1;
    if (need > c_.stride()) {
      const size_t s = std::bit_ceil(need);
      c_.set_stride(s);
      l_.set_stride(s);
      lr_.set_stride(s);
      lw_.set_stride(s);
      hist_.set_stride(s);
    }
    c_.ensure_rows(need);
    for (size_t u = threads_; u < need; ++u) c_.row(u)[u] = 1;
    threads_ = need;
  }

  size_t threads_ = 0;
  ClockRows c_;   // C_t
  ClockRows l_;   // L_l
  ClockRows lr_;  // LR_l (rows only up to the last lock taken in read mode)
  ClockRows lw_;  // LW_x
  std::vector<Writer> writer_;
  FlatHistory hist_;
};

}  // namespace

}  // namespace racepred::po

namespace racepred::po {
std::unique_ptr<Engine> make_shb_plain(EngineContext& context) {
  return std::make_unique<ShbPlain>(context);
}
}  // namespace racepred::po

namespace racepred {
std::unique_ptr<Engine> make_shb(EngineContext& context) {
  return std::make_unique<po::Shb>(context);
}
}  // namespace racepred
