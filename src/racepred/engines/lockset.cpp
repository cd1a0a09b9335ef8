// The pure lock-set method of seed 000 ("Lockset data race check", "Lockset computation"):
// (e, f) is a race pair iff e and f conflict (same variable, different threads, at least one
// write) and LS(e) ∩ LS(f) = {}, where LS(e) is the set of locks e's thread holds at e.
//
// Comparing all pairs is quadratic. Instead, the accesses of each variable are grouped into
// classes (thread, lock set, op) with counts: the races of a new access e are the accesses of the
// classes that conflict with e's class, so race_count and the racy events are exact while the
// work per access is the number of classes of its variable (and O(1) while one thread keeps
// accessing the variable). Pairs are listed only while the sink still keeps races: each class
// then remembers its first --max-races event ids, enough to list any kept race.
#include "racepred/engines/lockset.hpp"

#include <algorithm>
#include <string>

#include "racepred/engines/engine.hpp"

namespace racepred {

// ---------------------------------------------------------------------------------------------
// LockSetTable

LockSetTable::LockSetTable() {
  sets_.push_back(Set{0, 0, 0, true});  // kEmptySet
  set_index_.emplace(std::vector<LockId>{}, kEmptySet);
  nodes_.push_back(Node{kRoot, 0, kEmptySet, {}});  // kRoot
}

bool LockSetTable::holds(NodeId node, LockId lock) const {
  const Set& s = sets_[nodes_[node].set];
  if (s.exact && lock < 64) return (s.mask >> lock) & 1;
  const auto l = locks(nodes_[node].set);
  return std::binary_search(l.begin(), l.end(), lock);
}

LockSetTable::NodeId LockSetTable::acquire(NodeId node, LockId lock) {
  if (holds(node, lock)) return node;
  return child(node, lock);
}

LockSetTable::NodeId LockSetTable::release(NodeId node, LockId lock) {
  if (nodes_[node].lock == lock && node != kRoot) return nodes_[node].parent;  // LIFO order
  if (!holds(node, lock)) return node;
  // Released out of order: replay the other acquisitions from the root.
  scratch_.clear();
  for (NodeId n = node; n != kRoot; n = nodes_[n].parent) scratch_.push_back(nodes_[n].lock);
  NodeId result = kRoot;
  for (auto it = scratch_.rbegin(); it != scratch_.rend(); ++it)
    if (*it != lock) result = child(result, *it);
  return result;
}

LockSetTable::NodeId LockSetTable::child(NodeId node, LockId lock) {
  if (node == kRoot) {
    if (lock >= root_children_.size()) root_children_.resize(lock + 1, kRoot);
    if (root_children_[lock] == kRoot) {
      const NodeId made = make_node(kRoot, lock);
      root_children_[lock] = made;
    }
    return root_children_[lock];
  }
  auto& children = nodes_[node].children;
  auto it =
      std::lower_bound(children.begin(), children.end(), lock,
                       [](const std::pair<LockId, NodeId>& c, LockId l) { return c.first < l; });
  if (it != children.end() && it->first == lock) return it->second;
  const size_t pos = static_cast<size_t>(it - children.begin());
  const NodeId made = make_node(node, lock);  // may reallocate nodes_: re-fetch the vector
  auto& kids = nodes_[node].children;
  kids.insert(kids.begin() + static_cast<std::ptrdiff_t>(pos), {lock, made});
  return made;
}

LockSetTable::NodeId LockSetTable::make_node(NodeId parent, LockId lock) {
  std::vector<LockId> sorted;
  sorted.push_back(lock);
  for (NodeId n = parent; n != kRoot; n = nodes_[n].parent) sorted.push_back(nodes_[n].lock);
  std::sort(sorted.begin(), sorted.end());
  auto [it, inserted] = set_index_.try_emplace(sorted, static_cast<SetId>(sets_.size()));
  if (inserted) {
    Set s{static_cast<uint32_t>(pool_.size()), static_cast<uint32_t>(sorted.size()), 0, true};
    for (LockId l : sorted) {
      s.mask |= uint64_t{1} << (l % 64);
      if (l >= 64) s.exact = false;
    }
    pool_.insert(pool_.end(), sorted.begin(), sorted.end());
    sets_.push_back(s);
  }
  nodes_.push_back(Node{parent, lock, it->second, {}});
  return static_cast<NodeId>(nodes_.size() - 1);
}

bool LockSetTable::disjoint_slow(const Set& a, const Set& b) const {
  const LockId* p = pool_.data() + a.begin;
  const LockId* pe = p + a.size;
  const LockId* q = pool_.data() + b.begin;
  const LockId* qe = q + b.size;
  while (p != pe && q != qe) {
    if (*p == *q) return false;
    if (*p < *q)
      ++p;
    else
      ++q;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The engine

namespace {

using SetId = LockSetTable::SetId;
using NodeId = LockSetTable::NodeId;
constexpr uint32_t kNoClass = UINT32_MAX;

class LocksetEngine final : public Engine {
 public:
  explicit LocksetEngine(EngineContext& context)
      : symbols_(context.symbols),
        sink_(context.sink),
        cap_(context.sink.max_kept()),
        listing_(context.sink.accepting()) {}

  void on_event(EventId id, const Event& e) override {
    switch (e.op) {
      case Op::Acquire: {
        NodeId& n = ls(e.thread);
        n = table_.acquire(n, e.target);
        break;
      }
      case Op::Release: {
        NodeId& n = ls(e.thread);
        n = table_.release(n, e.target);
        break;
      }
      case Op::Read:
      case Op::Write:
        access(id, e);
        break;
      case Op::Fork:
      case Op::Join:
        break;  // lock sets are agnostic of fork and join (seed 000)
    }
  }

  bool supports_annotation() const override { return true; }
  // Column "LS": the event's lock set LS(e) for reads and writes, as in the seed's tables.
  void annotate(EventId, const Event& e, Annotation& row) override {
    std::string value;
    if (e.is_access()) {
      std::vector<std::string_view> names;
      for (LockId l : table_.locks(table_.set_of(ls(e.thread))))
        names.push_back(symbols_.locks.name(l));
      std::sort(names.begin(), names.end());
      value.push_back('{');
      for (size_t i = 0; i < names.size(); ++i) {
        if (i) value.push_back(',');
        value.append(names[i]);
      }
      value.push_back('}');
    }
    row.push_back({"LS", std::move(value)});
  }

 private:
  // Accesses of one variable by one thread with one lock set and one op.
  struct Class {
    ThreadId thread;
    SetId set;
    bool write;
    uint64_t count = 0;
    // Cached number of earlier accesses that race with an access of this class, valid while
    // only this class's thread accessed the variable since access number `computed_at`.
    uint64_t races = 0;
    uint64_t computed_at = 0;
    std::vector<std::pair<EventId, LocationId>> ids;  // first ids, only while listing
  };
  struct Variable {
    std::vector<Class> classes;
    uint64_t accesses = 0;
    ThreadId last_thread = UINT32_MAX;          // thread of the latest access
    uint64_t run_start = 0;                     // first access number of last_thread's current run
    uint32_t recent[2] = {kNoClass, kNoClass};  // the latest two classes used, latest first
  };

  NodeId& ls(ThreadId t) {
    if (t >= ls_.size()) ls_.resize(t + 1, LockSetTable::kRoot);
    return ls_[t];
  }
  NodeId ls(ThreadId t) const { return t < ls_.size() ? ls_[t] : LockSetTable::kRoot; }

  bool conflict(const Class& c, ThreadId t, SetId set, bool write) const {
    return c.thread != t && (write || c.write) && table_.disjoint(c.set, set);
  }

  void access(EventId id, const Event& e) {
    if (e.target >= variables_.size()) variables_.resize(e.target + 1);
    Variable& x = variables_[e.target];
    const ThreadId t = e.thread;
    const SetId set = table_.set_of(ls(t));  // LS(e)
    const bool write = e.op == Op::Write;
    const uint64_t index = x.accesses++;

    // Fast path: one of the two classes this thread used last on x (a thread that keeps
    // accessing x, also read-modify-write), with no other thread's access since its count.
    uint32_t ci = kNoClass;
    if (x.last_thread == t) {
      for (uint32_t r : x.recent) {
        if (r == kNoClass) continue;
        const Class& c = x.classes[r];
        if (c.thread == t && c.set == set && c.write == write && x.run_start <= c.computed_at) {
          ci = r;
          break;
        }
      }
    }
    if (ci == kNoClass) {
      uint64_t races = 0;
      for (uint32_t i = 0; i < x.classes.size(); ++i) {
        const Class& c = x.classes[i];
        if (c.thread == t) {
          if (c.set == set && c.write == write) ci = i;
        } else if ((write || c.write) && table_.disjoint(c.set, set)) {
          races += c.count;
        }
      }
      if (ci == kNoClass) {
        ci = static_cast<uint32_t>(x.classes.size());
        x.classes.push_back(Class{t, set, write, 0, 0, 0, {}});
      }
      x.classes[ci].races = races;
      x.classes[ci].computed_at = index;
    }
    if (x.last_thread != t) {
      x.last_thread = t;
      x.run_start = index;
    }
    if (x.recent[0] != ci) {
      x.recent[1] = x.recent[0];
      x.recent[0] = ci;
    }

    const uint64_t races = x.classes[ci].races;
    if (races > 0) {
      if (listing_) {
        list_races(x, id, e, set, races);
        if (!sink_.accepting()) stop_listing();
      } else {
        sink_.add_uncounted_races(races);
        sink_.mark_racy(Access::of(id, e));
      }
    }
    Class& c = x.classes[ci];
    ++c.count;
    if (listing_ && c.ids.size() < cap_) c.ids.emplace_back(id, e.location);
  }

  // Reports the races of `e` with the smallest first events that the sink still keeps (a k-way
  // merge over the id lists of the conflicting classes) and counts the rest.
  void list_races(const Variable& x, EventId id, const Event& e, SetId set, uint64_t races) {
    const bool write = e.op == Op::Write;
    heap_.clear();
    for (uint32_t i = 0; i < x.classes.size(); ++i) {
      const Class& c = x.classes[i];
      if (!c.ids.empty() && conflict(c, e.thread, set, write))
        heap_.push_back({c.ids[0].first, i, 0});
    }
    auto later = [](const Cursor& a, const Cursor& b) { return a.id > b.id; };
    std::make_heap(heap_.begin(), heap_.end(), later);
    const uint64_t room = cap_ - sink_.races().size();
    uint64_t listed = 0;
    const Access second = Access::of(id, e);
    while (listed < room && !heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      Cursor& cur = heap_.back();
      const Class& c = x.classes[cur.cls];
      const Access first{cur.id, c.thread, c.ids[cur.pos].second, c.write ? Op::Write : Op::Read};
      sink_.report(Race{first, second, e.target});
      ++listed;
      if (++cur.pos < c.ids.size()) {
        cur.id = c.ids[cur.pos].first;
        std::push_heap(heap_.begin(), heap_.end(), later);
      } else {
        heap_.pop_back();
      }
    }
    sink_.add_uncounted_races(races - listed);
  }

  // The sink keeps no more races: from now on only counts matter.
  void stop_listing() {
    listing_ = false;
    for (Variable& x : variables_)
      for (Class& c : x.classes) std::vector<std::pair<EventId, LocationId>>().swap(c.ids);
  }

  struct Cursor {
    EventId id;
    uint32_t cls;
    uint32_t pos;
  };

  const Symbols& symbols_;
  RaceSink& sink_;
  const size_t cap_;
  bool listing_;
  LockSetTable table_;
  std::vector<NodeId> ls_;  // ls(t): the node of thread t's current lock set
  std::vector<Variable> variables_;
  std::vector<Cursor> heap_;
};

}  // namespace

void register_lockset_engines(std::vector<EngineInfo>& out) {
  out.push_back(EngineInfo{
      "lockset", "Lock-set check: every pair of conflicting accesses whose lock sets are disjoint",
      "complete (no false negatives), unsound; race pairs",
      "000 (lecture: lock sets, \"Lockset data race check\", \"Lockset computation\")",
      EngineMode::Online, [](EngineContext& context) -> std::unique_ptr<Engine> {
        return std::make_unique<LocksetEngine>(context);
      }});
}

}  // namespace racepred
