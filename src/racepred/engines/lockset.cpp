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

std::span<const LockSetTable::SignedSubset> LockSetTable::subsets(SetId set) {
  if (set >= subsets_.size()) subsets_.resize(sets_.size());
  if (!subsets_[set].empty() || sets_[set].size > kMaxSubsetLocks) return subsets_[set];
  const std::vector<LockId> locks(pool_.begin() + sets_[set].begin,
                                  pool_.begin() + sets_[set].begin + sets_[set].size);
  std::vector<SignedSubset> out;
  std::vector<LockId> subset;
  for (uint32_t bits = 0; bits < (1u << locks.size()); ++bits) {
    subset.clear();
    for (size_t i = 0; i < locks.size(); ++i)
      if (bits >> i & 1) subset.push_back(locks[i]);
    out.push_back({intern(subset), subset.size() % 2 ? -1 : 1});
  }
  if (set >= subsets_.size()) subsets_.resize(sets_.size());
  subsets_[set] = std::move(out);
  return subsets_[set];
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
constexpr uint32_t kAllThreads = UINT32_MAX;

class LocksetEngine final : public Engine {
 public:
  LocksetEngine(EngineContext& context, size_t scan_limit)
      : symbols_(context.symbols),
        sink_(context.sink),
        cap_(context.sink.max_kept()),
        scan_limit_(scan_limit),
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
  // Accesses of one variable by one thread with one lock set and one op; 32 bytes, so that the
  // scan over a variable's classes reads few cache lines.
  struct Class {
    ThreadId thread;
    uint32_t set_write;  // set << 1 | write
    uint64_t count;
    // Earlier accesses that race with an access of this class, valid while only this class's
    // thread accessed the variable since access number `computed_at`.
    uint64_t races;
    uint64_t computed_at;
    SetId set() const { return set_write >> 1; }
    bool write() const { return set_write & 1; }
  };
  using Ids = std::vector<std::pair<EventId, LocationId>>;
  struct Counter {
    uint64_t key = kEmptyKey;
    uint64_t reads = 0;
    uint64_t writes = 0;
  };
  static constexpr uint64_t kEmptyKey = UINT64_MAX;
  static uint64_t counter_key(SetId set, uint32_t thread) { return uint64_t{set} << 33 | thread; }
  static uint64_t class_key(SetId set, ThreadId thread) {
    return uint64_t{set} << 33 | uint64_t{1} << 32 | thread;
  }

  // A variable starts in scan mode: the races of an access are found by one pass over the
  // variable's classes. Past `scan_limit_` classes it switches to counting mode: counters
  // N(S, thread, op) = number of accesses whose lock set contains S, for every subset S of each
  // access's lock set, give the accesses whose lock set meets LS(e) by inclusion-exclusion over
  // the subsets of LS(e), so an access costs O(2^|LS(e)|) instead of O(classes).
  // What a variable needs besides its classes only while listing or in counting mode.
  struct Extra {
    std::vector<Ids> ids;       // per class: its first event ids and locations, only while listing
    std::vector<uint32_t> big;  // counting mode: classes whose sets are too large to count
    // Counting mode: an open-addressing table (linear probing, power-of-two size) from
    // (subset S, thread or kAllThreads) to N(S, thread, read) and N(S, thread, write), and from
    // (set, thread) with the class flag to the index + 1 of the read and the write class.
    std::vector<Counter> counters;
    size_t counters_used = 0;
  };
  struct Variable {
    std::vector<Class> classes;
    uint64_t accesses = 0;
    uint64_t run_start = 0;                     // first access number of last_thread's current run
    ThreadId last_thread = UINT32_MAX;          // thread of the latest access
    uint32_t recent[2] = {kNoClass, kNoClass};  // the latest two classes used, latest first
    bool counting = false;
    std::unique_ptr<Extra> extra;
    Extra& more() {
      if (!extra) extra = std::make_unique<Extra>();
      return *extra;
    }
  };

  NodeId& ls(ThreadId t) {
    if (t >= ls_.size()) ls_.resize(t + 1, LockSetTable::kRoot);
    return ls_[t];
  }
  NodeId ls(ThreadId t) const { return t < ls_.size() ? ls_[t] : LockSetTable::kRoot; }

  // The access being analysed: its thread, LS(e) and op.
  struct Query {
    ThreadId thread;
    SetId set;
    bool write;
  };
  bool conflict(const Class& c, const Query& q) const {
    return c.thread != q.thread && (q.write || c.write()) && table_.disjoint(c.set(), q.set);
  }

  void access(EventId id, const Event& e) {
    const VariableId xid = e.target;
    if (xid >= variables_.size()) variables_.resize(xid + 1);
    Variable& x = variables_[xid];
    const ThreadId t = e.thread;
    const SetId set = table_.set_of(ls(t));  // LS(e)
    const bool write = e.op == Op::Write;
    const uint64_t index = x.accesses++;
    const Query q{t, set, write};
    const uint32_t set_write = set << 1 | write;

    // Fast path: one of the two classes used last on x (a thread that keeps accessing x, also
    // read-modify-write), with no other thread's access since its race count was computed.
    uint32_t ci = kNoClass;
    if (x.last_thread == t) {
      for (uint32_t r : x.recent) {
        if (r == kNoClass) continue;
        const Class& c = x.classes[r];
        if (c.thread == t && c.set_write == set_write && x.run_start <= c.computed_at) {
          ci = r;
          break;
        }
      }
    }
    if (ci == kNoClass) {
      uint64_t races = 0;
      if (!x.counting) {
        for (uint32_t i = 0; i < x.classes.size(); ++i) {
          const Class& c = x.classes[i];
          if (c.thread == t) {
            if (c.set_write == set_write) ci = i;
          } else if ((write || c.write()) && table_.disjoint(c.set(), set)) {
            races += c.count;
          }
        }
        if (ci == kNoClass) ci = add_class(x, t, set, write);
        if (x.classes.size() > scan_limit_) start_counting(x);
        if (x.counting) count_and_add(x, q, 1, false);
      } else {
        uint64_t& slot =
            write ? counter(x, class_key(set, t)).writes : counter(x, class_key(set, t)).reads;
        if (slot == 0) {
          ci = add_class(x, t, set, write);
          slot = uint64_t{ci} + 1;
        } else {
          ci = static_cast<uint32_t>(slot - 1);
        }
        races = count_and_add(x, q, 1, true);
      }
      x.classes[ci].races = races;
      x.classes[ci].computed_at = index;
    } else if (x.counting) {
      count_and_add(x, q, 1, false);
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
        list_races(x, id, e, q, races);
        if (!sink_.accepting()) stop_listing();
      } else {
        sink_.add_uncounted_races(races);
        sink_.mark_racy(Access::of(id, e));
      }
    }
    ++x.classes[ci].count;
    if (listing_) {
      Ids& ids = x.extra->ids[ci];
      if (ids.size() < cap_) ids.emplace_back(id, e.location);
    }
  }

  uint32_t add_class(Variable& x, ThreadId t, SetId set, bool write) {
    const uint32_t ci = static_cast<uint32_t>(x.classes.size());
    x.classes.push_back(Class{t, set << 1 | write, 0, 0, 0});
    if (listing_) x.more().ids.emplace_back();
    if (x.counting && table_.subsets(set).empty()) x.more().big.push_back(ci);
    return ci;
  }

  // Finds or inserts `key` in x's counter table.
  Counter& counter(Variable& x, uint64_t key) {
    Extra& m = *x.extra;
    if (2 * (m.counters_used + 1) > m.counters.size()) {
      std::vector<Counter> old(std::max<size_t>(16, 2 * m.counters.size()));
      old.swap(m.counters);
      m.counters_used = 0;
      for (const Counter& c : old)
        if (c.key != kEmptyKey) counter(x, c.key) = c;
    }
    const size_t mask = m.counters.size() - 1;
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    for (size_t i = (h ^ h >> 32) & mask;; i = (i + 1) & mask) {
      Counter& c = m.counters[i];
      if (c.key == key) return c;
      if (c.key == kEmptyKey) {
        c.key = key;
        ++m.counters_used;
        return c;
      }
    }
  }

  void start_counting(Variable& x) {
    x.counting = true;
    x.more();
    for (uint32_t i = 0; i < x.classes.size(); ++i) {
      const Class c = x.classes[i];
      Counter& entry = counter(x, class_key(c.set(), c.thread));
      (c.write() ? entry.writes : entry.reads) = uint64_t{i} + 1;
      if (table_.subsets(c.set()).empty())
        x.extra->big.push_back(i);
      else
        count_and_add(x, Query{c.thread, c.set(), c.write()}, c.count, false);
    }
  }

  // Counting mode. Adds n accesses of (t, set, op) to the counters of every subset of `set` and,
  // if `query`, returns the earlier accesses they race with: other threads, conflicting op, lock
  // set disjoint from `set` = Σ over subsets S of `set` of (-1)^|S| (N(S, all) − N(S, t)) (read
  // and write counts for a write, write counts for a read), plus the classes too large to count.
  uint64_t count_and_add(Variable& x, const Query& q, uint64_t n, bool query) {
    const ThreadId t = q.thread;
    const bool write = q.write;
    uint64_t races = 0;  // modulo 2^64: partial sums may go below 0
    const auto subsets = table_.subsets(q.set);
    for (const auto& [subset, sign] : subsets) {
      Counter& all = counter(x, counter_key(subset, kAllThreads));
      uint64_t m = all.writes + (write ? all.reads : 0);
      (write ? all.writes : all.reads) += n;
      Counter& mine = counter(x, counter_key(subset, t));  // may move `all`: done with it
      m -= mine.writes + (write ? mine.reads : 0);
      (write ? mine.writes : mine.reads) += n;
      races += sign > 0 ? m : -m;
    }
    if (!query) return 0;
    if (subsets.empty()) {
      races = 0;
      for (const Class& c : x.classes)
        if (conflict(c, q)) races += c.count;
      return races;
    }
    for (uint32_t i : x.extra->big)
      if (conflict(x.classes[i], q)) races += x.classes[i].count;
    return races;
  }

  // Reports the races of `e` with the smallest first events that the sink still keeps (a k-way
  // merge over the id lists of the conflicting classes) and counts the rest.
  void list_races(const Variable& x, EventId id, const Event& e, const Query& q, uint64_t races) {
    heap_.clear();
    const std::vector<Ids>& class_ids = x.extra->ids;
    for (uint32_t i = 0; i < x.classes.size(); ++i) {
      const Ids& ids = class_ids[i];
      if (!ids.empty() && conflict(x.classes[i], q)) heap_.push_back({ids[0].first, i, 0});
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
      const Ids& ids = class_ids[cur.cls];
      const Access first{cur.id, c.thread, ids[cur.pos].second, c.write() ? Op::Write : Op::Read};
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
      if (x.extra) std::vector<Ids>().swap(x.extra->ids);
  }

  struct Cursor {
    EventId id;
    uint32_t cls;
    uint32_t pos;
  };

  const Symbols& symbols_;
  RaceSink& sink_;
  const size_t cap_;
  const size_t scan_limit_;
  bool listing_;
  LockSetTable table_;
  std::vector<NodeId> ls_;  // ls(t): the node of thread t's current lock set
  std::vector<Variable> variables_;
  std::vector<Cursor> heap_;
};

}  // namespace

std::unique_ptr<Engine> make_lockset_engine(EngineContext& context, size_t scan_limit) {
  return std::make_unique<LocksetEngine>(context, scan_limit);
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
