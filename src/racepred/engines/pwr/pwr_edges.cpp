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
#include <cstdlib>
#include <new>
#include <unordered_map>
#include <vector>

#include "racepred/engines/pwr/pwr.hpp"
#include "racepred/engines/pwr/pwr_engine.hpp"

namespace racepred::pwr {
namespace {

// Edges are 24-byte records (tradebeans keeps 5.3M of them over 675K variables; they
// were 32 bytes): g's epoch (unique per event), succ's event id (32 bits), g's location and
// lock set, and back = succ − g (event ids, 31 bits) with g's write flag. An edge whose succ or
// back does not fit (traces past 2^32 − 1 events) is "far": succ is kFarSucc and both ids are in
// far_ under g's epoch, so the edges are exact for every trace. A variable's edges are one heap
// block grown by an eighth (none while it has no edge), behind a 16-byte header.
class EdgeConstraints {
 public:
  explicit EdgeConstraints(const PwrOptions& options)
      : bound_(options.edges),
        edge_id_limit_(std::min<uint64_t>(options.edge_id_limit, UINT32_MAX)),
        back_limit_(std::min<uint64_t>(kWrite, edge_id_limit_)) {}
  EdgeConstraints(const EdgeConstraints&) = delete;
  EdgeConstraints& operator=(const EdgeConstraints&) = delete;
  ~EdgeConstraints() {
    for (Var& v : vars_) std::free(v.nodes);
  }

  void ensure_variable(VariableId x) {
    if (x >= vars_.size()) vars_.resize(static_cast<size_t>(x) + 1);
  }

  // x has no edge (conc() adds no race).
  bool none(VariableId x) const { return vars_[x].size == 0; }

  // f ≺ succ: f was dropped from RW(x) by the access succ.
  void replaced(VariableId x, const Entry& f, EventId succ) {
    Var& v = vars_[x];
    if (bound_ == kUnbounded || v.size < bound_) {
      if (v.size == v.cap) [[unlikely]]
        grow(v);
      set_node(v.nodes[v.size++], f, succ);
      if (v.size == bound_) v.cap = 0;  // full: from now on the oldest edge's position
    } else {  // overwrite the oldest edge (a full ring: cap holds the position of the oldest)
      Node& old = v.nodes[v.cap];
      if (old.succ == kFarSucc) [[unlikely]]
        forget_far(old);
      set_node(old, f, succ);
      if (++v.cap == bound_) v.cap = 0;
    }
  }

  // (f, cur) ∈ conc(x): walk the predecessors of f.
  template <class Report>
  void conc(VariableId x, const Entry& f, const Entry& cur, const Clock* th,
            const PwrClocks& clocks, Report&& report) {
    const Var& v = vars_[x];
    if (v.size == 0) return;
    const bool any_far = !far_.empty();
    stack_.clear();
    stack_.push_back(f.id());
    while (!stack_.empty()) {
      const EventId s = stack_.back();
      stack_.pop_back();
      for (const Node *n = v.nodes, *end = v.nodes + v.size; n != end; ++n) {
        const Far* far = nullptr;
        if (n->succ != s) [[likely]] {
          if (!any_far || n->succ != kFarSucc) continue;
          far = &far_.at(n->epoch);
          if (far->succ != s) continue;
        } else if (n->succ == kFarSucc) [[unlikely]] {  // s == 2^32 - 1
          far = &far_.at(n->epoch);
          if (far->succ != s) continue;
        }
        const Epoch epoch = Epoch::from_bits(n->epoch);
        if (epoch.clock() <= th[epoch.thread()]) continue;  // [pwr] g <PWR e: prune
        const bool write = (n->back & kWrite) != 0;
        if (!cur.write() && !write) continue;  // read-read: g and its predecessors are reads
        const EventId g = far != nullptr ? far->id : s - (n->back & ~kWrite);
        if (clocks.disjoint(n->lockset, cur.lockset))  // [ls]
          report(Entry{epoch, g, n->location, n->lockset, write});
        stack_.push_back(g);
      }
    }
  }

 private:
  struct Node {
    uint64_t epoch;       // g's epoch (bits)
    uint32_t succ;        // succ's event id, or kFarSucc
    LocationId location;  // g's
    SetId lockset;        // g's
    uint32_t back;        // succ − g (unless far) | kWrite if g is a write
  };
  static_assert(sizeof(Node) == 24);
  static constexpr uint32_t kWrite = uint32_t{1} << 31;
  static constexpr uint32_t kFarSucc = UINT32_MAX;
  struct Far {
    EventId id;    // g's
    EventId succ;  // succ's
  };
  struct Var {
    Node* nodes = nullptr;
    uint32_t size = 0;
    uint32_t cap = 0;  // capacity; once the bounded ring is full: the position of its oldest
  };
  void set_node(Node& n, const Entry& f, EventId succ) {
    const EventId back = succ - f.id();
    n.epoch = f.epoch.bits();
    n.succ = static_cast<uint32_t>(succ);
    n.location = f.location;
    n.lockset = f.lockset;
    n.back = static_cast<uint32_t>(back) | (f.write() ? kWrite : 0);
    if ((succ >= edge_id_limit_) | (back >= back_limit_)) [[unlikely]]
      make_far(n, f.id(), succ);
  }
  [[gnu::noinline, gnu::cold]] void make_far(Node& n, EventId id, EventId succ) {
    n.succ = kFarSucc;
    n.back &= kWrite;
    far_[n.epoch] = Far{id, succ};
  }
  [[gnu::noinline, gnu::cold]] void forget_far(const Node& n) { far_.erase(n.epoch); }
  // Growth by an eighth (no doubling): most variables keep a few edges.
  void grow(Var& v) {
    uint32_t cap = v.cap + v.cap / 8 + 1;
    if (bound_ != kUnbounded) cap = std::min(cap, bound_);
    Node* p = static_cast<Node*>(std::realloc(v.nodes, sizeof(Node) * cap));
    if (p == nullptr) throw std::bad_alloc();
    v.nodes = p;
    v.cap = cap;
  }

  uint32_t bound_;
  uint64_t edge_id_limit_;  // ids from here on make an edge far (2^32 - 1 but in tests)
  uint64_t back_limit_;     // the same for back, which has 31 bits
  std::vector<Var> vars_;
  std::vector<EventId> stack_;
  std::unordered_map<uint64_t, Far> far_;  // the far edges' ids, by g's epoch
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
  return pwr::make_pwr_edges(context, pwr::unbounded_options(context));
}
}  // namespace racepred
