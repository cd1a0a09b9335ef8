// pwr-edges: PWR with edge constraints (PWR paper §4, PWR^{E+E}; bounded: PWR_L^{E+E}).
//
// State (besides pwr's, pwr_engine.hpp):
//   edges(x)  f ≺ e for every access f that e dropped from RW(x) (f <PWR e); bounded: the
//             `edges` most recent per variable (0: all)
//
// The paper's second pass, done online: when the access e meets a concurrent f in RW(x) (the
// pair (f,e) of conc(x)), every g with g ≺ … ≺ f in edges(x) forms the pair (g,e):
//   [pwr] g <PWR e (g ⪯ Th(i)): dropped with everything before it (all of it happens before e)
//   [ls]  LS(g) ∩ LSt(i) ≠ ∅: not reported, but its predecessors are explored (App. G.3)
//   else  race (g, e)
// The predecessors of f all exist when e is processed (f dropped them when f was processed),
// so the online walk sees what the second pass would. Each access has at most one successor,
// so edges(x) is a forest and every pair is generated once. With every edge kept this reports
// exactly the PWR races (concurrent, standard lock sets disjoint) plus the WRD races; a bound
// loses the races behind the dropped edges (27 writes in a row need 26 edges).
#include <algorithm>

#include "racepred/engines/pwr/pwr.hpp"
#include "racepred/engines/pwr/pwr_engine.hpp"

namespace racepred::pwr {
namespace {

class EdgeConstraints {
 public:
  explicit EdgeConstraints(const PwrOptions& options) : bound_(options.edges) {}

  void ensure_variable(VariableId x) {
    if (x >= vars_.size()) vars_.resize(static_cast<size_t>(x) + 1);
  }

  // f ≺ succ: f was dropped from RW(x) by the access succ.
  void replaced(VariableId x, const Entry& f, EventId succ) {
    Var& v = vars_[x];
    if (bound_ == kUnbounded || v.nodes.size() < bound_) {
      // Bounded: grow by half up to the bound (doubling would keep up to 2× the bound).
      if (bound_ != kUnbounded && v.nodes.size() == v.nodes.capacity())
        v.nodes.reserve(std::min<size_t>(bound_, v.nodes.size() + v.nodes.size() / 2 + 2));
      v.nodes.push_back(Node{f, succ});
    } else {  // overwrite the oldest edge
      v.nodes[v.next] = Node{f, succ};
      v.next = (v.next + 1) % bound_;
    }
  }

  // (f, cur) ∈ conc(x): walk the predecessors of f.
  template <class Report>
  void conc(VariableId x, const Entry& f, const Entry& cur, const Clock* th,
            const PwrClocks& clocks, Report&& report) {
    const Var& v = vars_[x];
    if (v.nodes.empty()) return;
    stack_.clear();
    stack_.push_back(f.id());
    while (!stack_.empty()) {
      const EventId s = stack_.back();
      stack_.pop_back();
      for (const Node& n : v.nodes) {
        if (n.succ != s) continue;
        const Entry& g = n.entry;
        if (g.epoch.clock() <= th[g.epoch.thread()]) continue;  // [pwr] g <PWR e: prune
        if (!cur.write() && !g.write()) continue;  // read-read: g and its predecessors are reads
        if (clocks.disjoint(g.lockset, cur.lockset)) report(g);  // [ls]
        stack_.push_back(g.id());
      }
    }
  }

 private:
  struct Node {
    Entry entry;
    EventId succ;
  };
  struct Var {
    std::vector<Node> nodes;
    uint32_t next = 0;
  };
  uint32_t bound_;
  std::vector<Var> vars_;
  std::vector<EventId> stack_;
};

}  // namespace

std::unique_ptr<Engine> make_pwr_edges(EngineContext& context, const PwrOptions& options) {
  return std::make_unique<PwrEngine<EdgeConstraints>>(context, options);
}

}  // namespace racepred::pwr

namespace racepred {
std::unique_ptr<Engine> make_pwr_edges(EngineContext& context) {
  return pwr::make_pwr_edges(context, pwr::bounded_options(context));
}
std::unique_ptr<Engine> make_pwr_edges_unbounded(EngineContext& context) {
  return pwr::make_pwr_edges(context, pwr::kUnboundedOptions);
}
}  // namespace racepred
