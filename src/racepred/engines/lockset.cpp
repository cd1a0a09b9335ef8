// The pure lock-set method of seed 000 ("Lockset data race check", "Lockset computation"):
// (e, f) is a race pair iff e and f conflict (same variable, different threads, at least one
// write) and LS(e) ∩ LS(f) = {}, where LS(e) is the set of locks e's thread holds at e.
//
// Comparing all pairs is quadratic. Instead, per variable the accesses are counted by thread,
// lock set and op, and for each lock set L the engine keeps how many accesses so far had a lock
// set disjoint from L: the races of a new access are that count minus its own thread's share,
// so race_count and the racy events are exact, and an access costs O(lock sets of its variable
// + lock sets its thread used on it). Pairs are listed only while the sink still keeps races:
// each (thread, lock set, op) class then remembers its first --max-races event ids, enough to
// list any kept race.
#include "racepred/engines/lockset.hpp"

#include <algorithm>
#include <array>
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
  const SetId set = intern(sorted);
  nodes_.push_back(Node{parent, lock, set, {}});
  return static_cast<NodeId>(nodes_.size() - 1);
}

LockSetTable::SetId LockSetTable::intern(const std::vector<LockId>& sorted) {
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
  return it->second;
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
  struct Count {
    uint64_t reads = 0;
    uint64_t writes = 0;
    // Accesses that conflict with an access of this op: writes, and reads too for a write.
    uint64_t conflicting(bool write) const { return writes + (write ? reads : 0); }
    void add(bool write, uint64_t n = 1) { (write ? writes : reads) += n; }
    Count& operator+=(const Count& o) {
      reads += o.reads;
      writes += o.writes;
      return *this;
    }
  };
  using Ids = std::vector<std::pair<EventId, LocationId>>;

  // Per variable x, the distinct lock sets its accesses held ("entries") and the threads that
  // accessed it ("slots"). For entry k with lock set L:
  //   A(k)  accesses so far (all threads) whose lock set is disjoint from L (`disjoint`),
  //   C(k)  accesses whose lock set is exactly L (`same`),
  // and per slot s the thread's classes (entry, op) with their counts. The races of an access
  // (thread s, entry k, op) with earlier accesses are A(k) minus thread s's own accesses with
  // lock sets disjoint from L (conflicting ops only); afterwards the access adds itself to A(j)
  // of every entry j whose lock set is disjoint from L. So an access costs O(entries of x +
  // classes of its thread on x): a handful in real traces, where a variable is accessed under
  // few distinct lock sets.
  struct Entry {
    uint64_t mask;  // LockSetTable's bit mask of the set
    SetId set;
    bool exact;      // the mask is the set
    Count disjoint;  // A(k)
    Count same;      // C(k)
  };
  struct Class {
    uint32_t entry;
    Count count;
  };
  struct Slot {
    ThreadId thread;
    std::vector<Class> classes;
    std::vector<std::array<Ids, 2>> ids;  // per class, by op: first event ids, while listing
  };
  struct Variable {
    std::vector<Entry> entries;
    std::vector<Slot> slots;
    uint32_t last_slot = 0;  // caches for the lookups
    uint32_t last_entry = 0;
  };

  NodeId& ls(ThreadId t) {
    if (t >= ls_.size()) ls_.resize(t + 1, LockSetTable::kRoot);
    return ls_[t];
  }
  NodeId ls(ThreadId t) const { return t < ls_.size() ? ls_[t] : LockSetTable::kRoot; }

  bool disjoint(const Entry& a, const Entry& b) const {
    if ((a.mask & b.mask) == 0) return true;
    if (a.exact && b.exact) return false;
    return table_.disjoint(a.set, b.set);
  }

  uint32_t slot_of(Variable& x, ThreadId t) {
    if (x.last_slot < x.slots.size() && x.slots[x.last_slot].thread == t) return x.last_slot;
    uint32_t s = 0;
    while (s < x.slots.size() && x.slots[s].thread != t) ++s;
    if (s == x.slots.size()) x.slots.push_back(Slot{t, {}, {}});
    return x.last_slot = s;
  }

  uint32_t entry_of(Variable& x, SetId set) {
    if (x.last_entry < x.entries.size() && x.entries[x.last_entry].set == set) return x.last_entry;
    uint32_t k = 0;
    while (k < x.entries.size() && x.entries[k].set != set) ++k;
    if (k == x.entries.size()) {
      Entry entry{table_.mask(set), set, table_.exact(set), {}, {}};
      for (const Entry& j : x.entries)
        if (disjoint(j, entry)) entry.disjoint += j.same;
      x.entries.push_back(entry);
    }
    return x.last_entry = k;
  }

  void access(EventId id, const Event& e) {
    if (e.target >= variables_.size()) variables_.resize(e.target + 1);
    Variable& x = variables_[e.target];
    const bool write = e.op == Op::Write;
    const uint32_t k = entry_of(x, table_.set_of(ls(e.thread)));  // LS(e)
    const uint32_t s = slot_of(x, e.thread);
    const Entry& entry = x.entries[k];

    // Thread s's own accesses with lock sets disjoint from LS(e), and its class (k, op).
    Slot& slot = x.slots[s];
    uint64_t own = 0;
    uint32_t ci = UINT32_MAX;
    for (uint32_t i = 0; i < slot.classes.size(); ++i) {
      const Class& c = slot.classes[i];
      if (c.entry == k) ci = i;
      if (disjoint(x.entries[c.entry], entry)) own += c.count.conflicting(write);
    }
    const uint64_t races = entry.disjoint.conflicting(write) - own;
    if (races > 0) {
      if (listing_) {
        list_races(x, id, e, s, entry, races);
        if (!sink_.accepting()) stop_listing();
      } else {
        sink_.add_uncounted_races(races);
        sink_.mark_racy(Access::of(id, e));
      }
    }

    for (Entry& j : x.entries)
      if (disjoint(j, entry)) j.disjoint.add(write);
    x.entries[k].same.add(write);
    if (ci == UINT32_MAX) {
      ci = static_cast<uint32_t>(slot.classes.size());
      slot.classes.push_back(Class{k, {}});
      if (listing_) slot.ids.emplace_back();
    }
    slot.classes[ci].count.add(write);
    if (listing_) {
      Ids& ids = slot.ids[ci][write];
      if (ids.size() < cap_) ids.emplace_back(id, e.location);
    }
  }

  // Reports the races of `e` with the smallest first events that the sink still keeps (a k-way
  // merge over the id lists of the conflicting classes of the other threads) and counts the rest.
  void list_races(const Variable& x, EventId id, const Event& e, uint32_t s, const Entry& entry,
                  uint64_t races) {
    const bool write = e.op == Op::Write;
    heap_.clear();
    for (uint32_t other = 0; other < x.slots.size(); ++other) {
      if (other == s) continue;
      const Slot& slot = x.slots[other];
      for (uint32_t i = 0; i < slot.classes.size(); ++i) {
        if (!disjoint(x.entries[slot.classes[i].entry], entry)) continue;
        for (int w = write ? 0 : 1; w < 2; ++w) {
          const Ids& ids = slot.ids[i][w];
          if (!ids.empty()) heap_.push_back({ids[0].first, other, i, static_cast<bool>(w), 0});
        }
      }
    }
    auto later = [](const Cursor& a, const Cursor& b) { return a.id > b.id; };
    std::make_heap(heap_.begin(), heap_.end(), later);
    const uint64_t room = cap_ - sink_.races().size();
    uint64_t listed = 0;
    const Access second = Access::of(id, e);
    while (listed < room && !heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      Cursor& cur = heap_.back();
      const Slot& slot = x.slots[cur.slot];
      const Ids& ids = slot.ids[cur.cls][cur.write];
      const Access first{cur.id, slot.thread, ids[cur.pos].second,
                         cur.write ? Op::Write : Op::Read};
      sink_.report(Race{first, second, e.target});
      ++listed;
      if (++cur.pos < ids.size()) {
        cur.id = ids[cur.pos].first;
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
      for (Slot& slot : x.slots) std::vector<std::array<Ids, 2>>().swap(slot.ids);
  }

  struct Cursor {
    EventId id;
    uint32_t slot;
    uint32_t cls;
    bool write;
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

std::unique_ptr<Engine> make_lockset_engine(EngineContext& context) {
  return std::make_unique<LocksetEngine>(context);
}

void register_lockset_engines(std::vector<EngineInfo>& out) {
  out.push_back(EngineInfo{
      "lockset", "Lock-set check: every pair of conflicting accesses whose lock sets are disjoint",
      "complete (no false negatives), unsound; race pairs",
      "000 (lecture: lock sets, \"Lockset data race check\", \"Lockset computation\")",
      EngineMode::Online, [](EngineContext& context) -> std::unique_ptr<Engine> {
        return make_lockset_engine(context);
      }});
}

}  // namespace racepred
