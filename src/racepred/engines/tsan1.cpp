// tsan1: the lockset-style data race predictor of seed 001's Go framework ("Lockset style data
// race predictor (similar to TSan V1)"). Vector clocks order events by program order, fork and
// join only (critical sections are not ordered); every thread keeps its lock set. Per variable,
// W(x) and R(x) hold the most recent writes and reads that are mutually concurrent, each with
// the lock set it held:
//
//   write(e)  concW = {w ∈ W(x) | w not before e};  concR = {r ∈ R(x) | r not before e}
//             race (a, e) for a ∈ concW ∪ concR whose lock set is disjoint from LS(e)
//             W(x) = concW ∪ {e};  R(x) = concR
//   read(e)   the same with concW only; W(x) = concW;  R(x) = concR ∪ {e}
//
// Members are epochs j#k (before e iff k <= Th(i)(j)); two never come from one thread. Only the
// latest concurrent accesses are kept (seed 001, trace2: "No race reported cause we only keep
// track of the latest write"), so its pairs are a subset of the lockset pairs.
#include <algorithm>

#include "racepred/engines/hb_clocks.hpp"
#include "racepred/engines/hb_pairs.hpp"
#include "racepred/report/notation.hpp"

namespace racepred {
namespace {

using LockList = std::vector<LockId>;  // sorted

bool disjoint(const LockList& a, const LockList& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) return false;
    if (a[i] < b[j])
      ++i;
    else
      ++j;
  }
  return true;
}

class Tsan1 final : public Engine {
 public:
  explicit Tsan1(EngineContext& context) : symbols_(context.symbols), sink_(context.sink) {}

  void on_event(EventId id, const Event& e) override {
    if (annotating_) {
      pre_.assign(clocks_.th(e.thread));
      pairs_.clear();
    }
    switch (e.op) {
      case Op::Acquire: {
        LockList& ls = lockset(e.thread);
        auto it = std::lower_bound(ls.begin(), ls.end(), e.target);
        if (it == ls.end() || *it != e.target) ls.insert(it, e.target);
        break;
      }
      case Op::Release: {
        LockList& ls = lockset(e.thread);
        auto it = std::lower_bound(ls.begin(), ls.end(), e.target);
        if (it != ls.end() && *it == e.target) ls.erase(it);
        break;
      }
      case Op::Read:
      case Op::Write:
        access(id, e);
        break;
      case Op::Fork:
      case Op::Join:
        break;
    }
    clocks_.apply(e);
    if (annotating_ && e.is_access()) pre_clocks_.push_back({id, pre_});
  }

  bool supports_annotation() const override { return true; }
  void before_event(EventId, const Event&) override { annotating_ = true; }
  // Lock set and vector clock at the event, W(x) and R(x) after it, races found at it.
  void annotate(EventId id, const Event& e, Annotation& row) override {
    std::string LS, W, R;
    if (e.is_access()) {
      const Variable& x = variables_[e.target];
      LS = locks_text(lockset(e.thread));
      W = set_text(x.W, e.target);
      R = set_text(x.R, e.target);
    }
    row.push_back({"Th(t)", pre_.to_string(symbols_.threads.size())});
    row.push_back({"LS(t)", LS});
    row.push_back({"W(x)", W});
    row.push_back({"R(x)", R});
    row.push_back({"races", races_text(pairs_, id)});
  }

 private:
  struct Entry {
    ThreadId thread = 0;
    Clock clock = 0;
    LocationId location = 0;
    EventId id = 0;
    Op op = Op::Read;
    LockList locks;
  };
  // Entries [0, size) are members; slots past size keep their lock-set storage for reuse.
  struct EntrySet {
    std::vector<Entry> slots;
    size_t size = 0;
    Entry& add() {
      if (size == slots.size()) slots.emplace_back();
      return slots[size++];
    }
    // Keeps the members that do not happen before C.
    void drop_ordered(const VectorClock& C) {
      for (size_t k = 0; k < size;) {
        if (slots[k].clock <= C.get(slots[k].thread))
          std::swap(slots[k], slots[--size]);
        else
          ++k;
      }
    }
  };
  struct Variable {
    EntrySet W, R;
  };

  LockList& lockset(ThreadId t) {
    if (t >= locksets_.size()) locksets_.resize(static_cast<size_t>(t) + 1);
    return locksets_[t];
  }

  void check(const EntrySet& set, const LockList& ls, EventId id, const Event& e) {
    for (size_t k = 0; k < set.size; ++k) {
      const Entry& a = set.slots[k];
      if (!disjoint(a.locks, ls)) continue;
      sink_.report(Race{Access{a.id, a.thread, a.location, a.op}, Access::of(id, e), e.target});
      if (annotating_) pairs_.push_back(a.id);
    }
  }

  void access(EventId id, const Event& e) {
    if (e.target >= variables_.size()) variables_.resize(static_cast<size_t>(e.target) + 1);
    Variable& x = variables_[e.target];
    const VectorClock& C = clocks_.th(e.thread);
    const LockList& ls = lockset(e.thread);
    x.W.drop_ordered(C);
    x.R.drop_ordered(C);
    check(x.W, ls, id, e);
    if (e.op == Op::Write) check(x.R, ls, id, e);
    Entry& self = (e.op == Op::Write ? x.W : x.R).add();
    self.thread = e.thread;
    self.clock = C.get(e.thread);
    self.location = e.location;
    self.id = id;
    self.op = e.op;
    self.locks.assign(ls.begin(), ls.end());
  }

  std::string locks_text(const LockList& ls) const {
    std::string s = "{";
    for (size_t k = 0; k < ls.size(); ++k) {
      if (k) s += ',';
      s += symbols_.locks.name(ls[k]);
    }
    return s + "}";
  }
  // "{0#w(x)_1 [1,0] {}, 1#w(x)_3 [0,1] {y}}" in trace order.
  std::string set_text(const EntrySet& set, VariableId x) const {
    std::vector<const Entry*> members;
    for (size_t k = 0; k < set.size; ++k) members.push_back(&set.slots[k]);
    std::sort(members.begin(), members.end(),
              [](const Entry* a, const Entry* b) { return a->id < b->id; });
    std::string s = "{";
    for (const Entry* a : members) {
      if (s.size() > 1) s += ", ";
      s += event_ref_hash(symbols_, a->id, Event{a->op, a->thread, x, a->location});
      auto it = std::lower_bound(pre_clocks_.begin(), pre_clocks_.end(), a->id,
                                 [](const auto& p, EventId k) { return p.first < k; });
      s += ' ' + it->second.to_string(symbols_.threads.size()) + ' ' + locks_text(a->locks);
    }
    return s + "}";
  }

  const Symbols& symbols_;
  RaceSink& sink_;
  ThreadClocks clocks_{/*lock_order=*/false};
  std::vector<LockList> locksets_;
  std::vector<Variable> variables_;

  bool annotating_ = false;
  std::vector<std::pair<EventId, VectorClock>> pre_clocks_;
  VectorClock pre_;
  std::vector<EventId> pairs_;
};

}  // namespace

std::unique_ptr<Engine> make_tsan1_engine(EngineContext& context) {
  return std::make_unique<Tsan1>(context);
}

}  // namespace racepred
