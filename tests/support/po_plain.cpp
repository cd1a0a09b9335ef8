// The plain versions of the partial-order engines whose registered version is optimised: every
// clock a VectorClock, every rule as the engine's file writes it (engines/po/shb.cpp, wcp.cpp,
// dc_family.hpp). Not part of racepred: tests/properties/po_property_test.cpp checks them and the
// registered engines against the definitions on random traces.
#include <memory>

#include "racepred/engines/po/dc_family.hpp"
#include "racepred/engines/po/po_common.hpp"
#include "support/po_plain.hpp"

namespace racepred::po {
namespace {

// shb (Sulzmann and Thiemann §2.3; engines/po/shb.cpp states the rules).
// The plain version: VectorClocks, the rules as written above.
class ShbPlain final : public PoEngine<ShbPlain> {
 public:
  using PoEngine<ShbPlain>::PoEngine;

  void before(EventId, const Event& e) { ensure_thread(e.thread); }
  void acquire(EventId, const Event& e) {
    const ThreadId t = e.thread;
    if (e.target < l_.size()) c_[t].join(l_[e.target]);    // C_t := C_t ⊔ L_l
    if (e.target < lr_.size()) c_[t].join(lr_[e.target]);  // ⊔ LR_l
  }
  void read_acquire(EventId, const Event& e) {
    if (e.target < l_.size()) c_[e.thread].join(l_[e.target]);  // C_t := C_t ⊔ L_l
  }
  void read_release(EventId, const Event& e) {
    const ThreadId t = e.thread;
    grow_to(lr_, e.target);
    lr_[e.target].join(c_[t]);  // LR_l := LR_l ⊔ C_t
    c_[t].increment(t);
  }
  void release(EventId, const Event& e) {
    const ThreadId t = e.thread;
    grow_to(l_, e.target);
    l_[e.target].assign(c_[t]);  // L_l := C_t
    c_[t].increment(t);
  }
  void fork(EventId, const Event& e) {
    const ThreadId t = e.thread;
    ensure_thread(e.target);
    c_[e.target].join(c_[t]);  // C_u := C_u ⊔ C_t
    c_[t].increment(t);
  }
  void join(EventId, const Event& e) {
    ensure_thread(e.target);
    c_[e.thread].join(c_[e.target]);  // C_t := C_t ⊔ C_u
  }
  void send(EventId, const Event& e) {
    const ThreadId t = e.thread;
    grow_to(s_, e.target);
    s_[e.target].join(c_[t]);  // S_o := S_o ⊔ C_t
    c_[t].increment(t);
  }
  void request(EventId, const Event&) {}  // takes and orders nothing
  void recv(EventId, const Event& e) {
    if (e.target < s_.size()) c_[e.thread].join(s_[e.target]);  // C_t := C_t ⊔ S_o
  }
  void read(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    hist_.check(*this, id, e, c_[t]);                      // before the last-write edge
    if (e.target < lw_.size()) c_[t].join(lw_[e.target]);  // C_t := C_t ⊔ LW_x
    hist_.record(id, e, c_[t].get(t));                     // R_x(t) := C_t(t)
  }
  void write(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    hist_.check(*this, id, e, c_[t]);
    hist_.record(id, e, c_[t].get(t));  // W_x(t) := C_t(t)
    grow_to(lw_, e.target);
    lw_[e.target].assign(c_[t]);  // LW_x := C_t
    c_[t].increment(t);
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
  std::vector<VectorClock> s_;   // S_o
  std::vector<VectorClock> lw_;  // LW_x
  History hist_;
};

// wcp (Sulzmann and Thiemann Def. B.3; engines/po/wcp.cpp states the rules).
// The plain version: every clock a VectorClock, every rule as written above, and read-write
// locks by the literal reduction (PlainWcpState::reduced, po_common.hpp). The engine `wcp` is the
// flat version below (the reduction natively); tests check both against the definition.
class WcpPlain final : public PoEngine<WcpPlain>, private PlainWcpState<Section> {
 public:
  using PoEngine<WcpPlain>::PoEngine;

  void before(EventId, const Event& e) {
    ensure_thread(e.thread);
    ran_[e.thread] = true;
  }
  // H_t ⊔= H_l; P_t ⊔= P_l, for each reduced lock                                      (WCP-3)
  void acquire(EventId, const Event& e) {
    const ThreadId t = e.thread;
    for (LockId l : reduced(e, t, [](LockId, LockId, const auto&) {}))
      acquire_lock(t, l, Section{t, n_[t], false, {}});
  }
  void read_acquire(EventId id, const Event& e) { acquire(id, e); }
  // WCP-2 on every reduced lock until nothing is joined; close them
  void release(EventId, const Event& e) {
    const ThreadId t = e.thread;
    release_all(
        t, reduced(e, t, [](LockId, LockId, const auto&) {}), [](const OpenSections::Cs&) {},
        [](const OpenSections::Cs&) {});
  }
  void read_release(EventId id, const Event& e) { release(id, e); }
  void read(EventId id, const Event& e) { access(id, e); }
  void write(EventId id, const Event& e) { access(id, e); }
  void fork(EventId, const Event& e) {
    const ThreadId t = e.thread, u = e.target;
    ensure_thread(u);
    h_[u].join(h_[t]);  // H_u := H_u ⊔ H_t
    p_[u].join(h_[t]);  // P_u := P_u ⊔ H_t                                         (WCP-4)
    tick(t);
  }
  void join(EventId, const Event& e) {
    const ThreadId t = e.thread, u = e.target;
    ensure_thread(u);
    // WCP-5 needs an event of u: a thread that never ran orders nothing before the join (its
    // H_u is only its parent's time at the fork).
    if (ran_[u]) {
      h_[t].join(h_[u]);  // H_t := H_t ⊔ H_u
      p_[t].join(h_[u]);  // P_t := P_t ⊔ H_u                                       (WCP-5)
    }
  }
  void send(EventId, const Event& e) { send_on(e.thread, e.target); }
  void request(EventId, const Event&) {}  // takes and orders nothing
  void recv(EventId, const Event& e) { recv_on(e.thread, e.target); }

 protected:
  void columns(const Event& e, Annotation& row) override {
    clock_columns(e.thread, width(e), row);
    row.push_back({"W_x", e.is_access() ? hist_.show(e.target, true) : ""});
    row.push_back({"R_x", e.is_access() ? hist_.show(e.target, false) : ""});
  }

 private:
  [[gnu::always_inline]] void access(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    const VariableId x = e.target;
    // WCP-1: releases of earlier CSs on a held lock (other threads) with a conflicting access.
    for (const OpenSections::Cs& cs : open_.of(t)) {
      const auto* slot = find_rule_a(cs.lock, x);
      if (slot == nullptr) continue;
      if (const VectorClock* w = (*slot)[1].for_thread(t)) p_[t].join(*w);
      if (e.op == Op::Write)
        if (const VectorClock* r = (*slot)[0].for_thread(t)) p_[t].join(*r);
    }
    hist_.check(*this, id, e, p_[t]);  // race: N(e1) > P_t(u)
    hist_.record(id, e, n_[t]);
    open_.access(e);
  }

  History hist_;
};

}  // namespace

std::unique_ptr<Engine> make_shb_plain(EngineContext& context) {
  return std::make_unique<ShbPlain>(context);
}

std::unique_ptr<Engine> make_wcp_plain(EngineContext& context) {
  return std::make_unique<WcpPlain>(context);
}

std::unique_ptr<Engine> make_dc_plain(EngineContext& context) {
  return std::make_unique<DcFamily<DcConfig{.rule_b = true}>>(context);
}

std::unique_ptr<Engine> make_wdc_plain(EngineContext& context) {
  return std::make_unique<DcFamily<DcConfig{}>>(context);
}

std::unique_ptr<Engine> make_wdp_plain(EngineContext& context) {
  return std::make_unique<DcFamily<DcConfig{.write_read = true, .lockset = true}>>(context);
}

}  // namespace racepred::po
