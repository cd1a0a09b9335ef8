// wcp: weak causal precedence (Kini, Mathur, Viswanathan, PLDI 2017), as Def. B.3 of seed 003
// (Sulzmann, Thiemann: "Cross-thread critical sections and efficient dynamic race prediction
// methods", appendix B) defines it, composed with HB including fork/join: Def. B.2 leaves fork and
// join out of HB, which makes the relation intransitive across forks and joins and reports false
// first races on plain fork-join phases (examples/po/fork_join_phases.std); WCP's implementations
// treat fork/join as HB edges, and so does this engine (docs/ENGINES.md). The algorithm is
// the queue algorithm of the WCP paper with both precision pitfalls of public implementations
// fixed (rule (a) never imports the accessing thread's own releases: trace ownA; rule (b) needs
// a1 <wcp r2, not thread order: trace WCP-5).
//
// State (paper notation):
//   N_t        local time of thread t (1 at start; +1 after each release and fork)
//   H_t        HB time (with fork/join) of t's current event (H_t(t) = N_t)
//   P_t        WCP predecessors of t's current event: e <wcp current iff N(e) <= P_t(thread(e))
//   H_l, P_l   H and P of the last release of lock l
//   CS_l       the critical sections of l in trace order: (thread, N at the acquire, H at the
//              release); cursor_l(t): how far t's releases walked it (rule (b))
//   L^r_{l,x}, L^w_{l,x}
//              HB time of the latest release of a CS on l that read / wrote x, and the latest
//              one by another thread (rule (a))
//   W_x, R_x   N of the latest write / read of x per thread (race check)
//
// Rules (Def. B.3) and where they are applied:
//   WCP-1 (a)  access f of t inside a CS on l: P_t ⊔= L^w_{l,x} (and L^r_{l,x} if f writes),
//              from releases of other threads only                               [access]
//   WCP-2 (b)  at release r2 of l: every earlier CS (a1, r1) of l with a1 <wcp r2, i.e.
//              N(a1) <= P_t(thread(a1)), gives r1 <wcp r2: P_t ⊔= H(r1)         [release]
//   WCP-3 (c)  composition with HB: P values are joins of HB times, and P flows along
//              HB edges (P_t ⊔= P_l at acquires, P_u ⊔= H_t at forks)          [acq, fork]
//   WCP-4/5    fork/join: P_u ⊔= H_t at fork(t,u); P_t ⊔= H_u at join(t,u)   [fork, join]
//   race       conflicting e1 (earlier, thread u != t) not <wcp e2: N(e1) > P_t(u)
#include <memory>
#include <vector>

#include "racepred/engines/po/po_common.hpp"

namespace racepred::po {
namespace {

class Wcp final : public PoEngine {
 public:
  using PoEngine::PoEngine;

  void on_event(EventId id, const Event& e) override {
    const ThreadId t = e.thread;
    ensure_thread(t);
    ran_[t] = true;
    switch (e.op) {
      case Op::Acquire: {
        const LockId l = e.target;
        ensure_lock(l);
        h_[t].join(hl_[l]);  // H_t := H_t ⊔ H_l
        p_[t].join(pl_[l]);  // P_t := P_t ⊔ P_l                                   (WCP-3)
        sections_[l].push_back(Section{t, n_[t], false, {}});
        open_.acquire(t, l, sections_[l].size() - 1);
        break;
      }
      case Op::Release:
        release(t, e.target);
        break;
      case Op::Read:
      case Op::Write:
        access(id, e);
        break;
      case Op::Fork: {
        const ThreadId u = e.target;
        ensure_thread(u);
        h_[u].join(h_[t]);  // H_u := H_u ⊔ H_t
        p_[u].join(h_[t]);  // P_u := P_u ⊔ H_t                                     (WCP-4)
        tick(t);
        break;
      }
      case Op::Join: {
        const ThreadId u = e.target;
        ensure_thread(u);
        // WCP-5 needs an event of u: a thread that never ran orders nothing before the join
        // (its H_u is only its parent's time at the fork).
        if (ran_[u]) {
          h_[t].join(h_[u]);  // H_t := H_t ⊔ H_u
          p_[t].join(h_[u]);  // P_t := P_t ⊔ H_u                                   (WCP-5)
        }
        break;
      }
    }
  }

 protected:
  void columns(const Event& e, Annotation& row) override {
    const size_t w = width(e);
    row.push_back({"N_t", std::to_string(n_[e.thread])});
    row.push_back({"H_t", show(h_[e.thread], w)});
    row.push_back({"P_t", show(p_[e.thread], w)});
    row.push_back({"W_x", e.is_access() ? hist_.show(e.target, true) : ""});
    row.push_back({"R_x", e.is_access() ? hist_.show(e.target, false) : ""});
  }

 private:
  void access(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    const VariableId x = e.target;
    // WCP-1: releases of earlier CSs on a held lock (other threads) with a conflicting access.
    for (const OpenSections::Cs& cs : open_.of(t)) {
      const uint32_t s = slots_.find(cs.lock, x);
      if (s == PairSlots::kNone) continue;
      if (const VectorClock* w = rule_a_[s][1].for_thread(t)) p_[t].join(*w);
      if (e.op == Op::Write)
        if (const VectorClock* r = rule_a_[s][0].for_thread(t)) p_[t].join(*r);
    }
    hist_.check(*this, id, e, p_[t]);  // race: N(e1) > P_t(u)
    hist_.record(id, e, n_[t]);
    open_.access(e);
  }

  void release(ThreadId t, LockId l) {
    bool held = false;
    const OpenSections::Cs cs = open_.release(t, l, held);
    if (!held) return;
    ensure_lock(l);
    // WCP-2: walk CS_l from t's cursor while the acquire is WCP-before this release. The
    // satisfied sections form a prefix (acquires of l are HB-ordered and WCP composes with
    // HB); the HB times of their releases grow along the list, so the last one stands for all.
    auto& list = sections_[l];
    grow_to(cursor_[l], t);
    size_t i = cursor_[l][t];
    size_t last = SIZE_MAX;
    while (i < list.size() && list[i].closed && list[i].acq <= p_[t].get(list[i].thread)) {
      last = i;
      ++i;
    }
    cursor_[l][t] = i;
    if (last != SIZE_MAX) p_[t].join(list[last].rel);
    // WCP-1 bookkeeping: this release for every variable read / written inside.
    for (VariableId x : cs.reads) rule_a_slot(l, x)[0].update(t, h_[t]);
    for (VariableId x : cs.writes) rule_a_slot(l, x)[1].update(t, h_[t]);
    hl_[l].assign(h_[t]);  // H_l := H_t
    pl_[l].assign(p_[t]);  // P_l := P_t
    list[cs.entry].closed = true;
    list[cs.entry].rel.assign(h_[t]);
    tick(t);
  }

  std::array<LatestRelease, 2>& rule_a_slot(LockId l, VariableId x) {
    const uint32_t s = slots_.get_or_add(l, x);
    if (s >= rule_a_.size()) rule_a_.resize(size_t{s} + 1);
    return rule_a_[s];
  }

  // N_t += 1; H_t(t) := N_t
  void tick(ThreadId t) {
    ++n_[t];
    h_[t].set(t, n_[t]);
  }

  void ensure_thread(ThreadId t) {
    while (n_.size() <= t) {
      const ThreadId u = static_cast<ThreadId>(n_.size());
      n_.push_back(1);
      ran_.push_back(false);
      h_.emplace_back();
      h_.back().set(u, 1);
      p_.emplace_back();
    }
  }
  void ensure_lock(LockId l) {
    if (l >= hl_.size()) {
      hl_.resize(size_t{l} + 1);
      pl_.resize(size_t{l} + 1);
      sections_.resize(size_t{l} + 1);
      cursor_.resize(size_t{l} + 1);
    }
  }

  std::vector<Clock> n_;
  std::vector<bool> ran_;  // the thread had an event
  std::vector<VectorClock> h_, p_;
  std::vector<VectorClock> hl_, pl_;
  std::vector<std::vector<Section>> sections_;
  std::vector<std::vector<size_t>> cursor_;
  PairSlots slots_;
  std::vector<std::array<LatestRelease, 2>> rule_a_;  // [0]: read-releases, [1]: write-releases
  OpenSections open_;
  History hist_;
};

}  // namespace

std::unique_ptr<Engine> make_wcp(EngineContext& context) {
  return std::make_unique<Wcp>(context);
}

}  // namespace racepred::po
