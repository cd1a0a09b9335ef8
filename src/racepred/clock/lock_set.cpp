// Interned lock sets (clock/lock_set.hpp).
#include "racepred/clock/lock_set.hpp"

#include <algorithm>

namespace racepred {

namespace {
// splitmix64 of the lock id: the XOR of these over a set does not depend on acquisition order.
uint64_t lock_hash(LockId lock) {
  uint64_t z = uint64_t{lock} + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

LockSetTable::LockSetTable() {
  sets_.push_back(Set{kRoot, 0, 0, true, 0, 0});  // kEmptySet
  set_index_.emplace(0, kEmptySet);
  nodes_.push_back(Node{kRoot, 0, kEmptySet, {}});  // kRoot
}

bool LockSetTable::contains(SetId set, LockId lock) const {
  const Set& s = sets_[set];
  if (((s.mask >> (lock % 64)) & 1) == 0) return false;
  if (s.exact) return lock < 64;
  if (s.size <= kListed) {
    const LockId* p = pool_.data() + s.begin;
    return std::binary_search(p, p + s.size, lock);
  }
  return contains_large(set, lock);
}

bool LockSetTable::contains_large(SetId set, LockId lock) const {
  const auto in = [&](Marked& m) {
    const size_t i = stamp_index(lock);
    m.used = ++mark_clock_;
    return i < m.stamp.size() && m.stamp[i] == m.gen;
  };
  const auto stamp = [&](Marked& m, LockId l, uint32_t value) {
    const size_t i = stamp_index(l);
    if (i >= m.stamp.size()) m.stamp.resize(std::max(i + 1, m.stamp.size() * 2), 0);
    m.stamp[i] = value;
    ++member_steps_;
  };
  const Node& rep = nodes_[sets_[set].node];
  const SetId parent = nodes_[rep.parent].set;
  for (Marked& m : marked_) {
    if (m.set == kEmptySet) continue;
    if (m.set == set) return in(m);
    // set = m.set ∪ {rep.lock} (the next nested acquire): mark one lock more.
    if (m.set == parent) {
      stamp(m, rep.lock, m.gen);
      m.set = set;
      return in(m);
    }
    // m.set = set ∪ {the lock of its node} (a release in LIFO order): unmark it.
    const Node& top = nodes_[sets_[m.set].node];
    if (nodes_[top.parent].set == set) {
      stamp(m, top.lock, 0);
      m.set = set;
      return in(m);
    }
  }
  // Mark the set anew in the least recently used slot: O(|set|).
  Marked* lru = &marked_[0];
  for (Marked& m : marked_)
    if (m.used < lru->used) lru = &m;
  if (++lru->gen == 0) {  // wrapped: clear the old stamps
    std::fill(lru->stamp.begin(), lru->stamp.end(), 0);
    lru->gen = 1;
  }
  for (NodeId n = sets_[set].node; n != kRoot; n = nodes_[n].parent)
    stamp(*lru, nodes_[n].lock, lru->gen);
  lru->set = set;
  return in(*lru);
}

std::vector<LockId> LockSetTable::sorted_locks(SetId set) const {
  std::vector<LockId> locks;
  locks.reserve(sets_[set].size);
  for_each_lock(set, [&](LockId l) { locks.push_back(l); });
  std::sort(locks.begin(), locks.end());
  return locks;
}

LockSetTable::NodeId LockSetTable::acquire(NodeId node, LockId lock) {
  if (node != kRoot) {  // an existing edge means the lock is not held: no membership test
    const auto& children = nodes_[node].children;
    auto it =
        std::lower_bound(children.begin(), children.end(), lock,
                         [](const std::pair<LockId, NodeId>& c, LockId l) { return c.first < l; });
    if (it != children.end() && it->first == lock) return it->second;
  }
  if (holds(node, lock)) return node;
  return child(node, lock);
}

LockSetTable::NodeId LockSetTable::release(NodeId node, LockId lock) {
  if (nodes_[node].lock == lock && node != kRoot) return nodes_[node].parent;  // LIFO order
  if (!holds(node, lock)) return node;
  // Released out of order: the set without `lock` needs a node whose parent chain holds exactly
  // its locks. The locks acquired before `lock` keep their node; those after it are acquired
  // again from there, in the same order. But when `lock` is the first of the chain (the thread
  // releases in acquire order), the rest is acquired again in reverse order: the next lock of
  // the thread's order is then the last of the chain and its release a step to the parent, so
  // releasing N nested locks outermost first costs O(N), not O(N^2) nodes and time.
  scratch_.clear();
  NodeId n = node;
  for (; nodes_[n].lock != lock; n = nodes_[n].parent) scratch_.push_back(nodes_[n].lock);
  NodeId result = nodes_[n].parent;
  replayed_ += scratch_.size();
  if (result == kRoot && scratch_.size() > 1) {
    for (LockId l : scratch_) result = child(result, l);
  } else {
    for (auto it = scratch_.rbegin(); it != scratch_.rend(); ++it) result = child(result, *it);
  }
  return result;
}

LockSetTable::NodeId LockSetTable::child(NodeId node, LockId lock) {
  // Lock ids from 2^31 (the read-hold tokens of engines/lockset/read_locks.hpp) take the sorted
  // children below, not the dense root array.
  if (node == kRoot && lock < (LockId{1} << 31)) {
    if (lock >= root_children_.size()) root_children_.resize(size_t{lock} + 1, kRoot);
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
  const NodeId made = static_cast<NodeId>(nodes_.size());
  const SetId set = intern(parent, lock, made);
  nodes_.push_back(Node{parent, lock, set, {}});
  return made;
}

// The set of `parent` plus `lock` (not in it): an existing set with the same hash and the same
// locks, or a new one whose representative is `node` (about to be created as parent's child).
LockSetTable::SetId LockSetTable::intern(NodeId parent, LockId lock, NodeId node) {
  const Set& base = sets_[nodes_[parent].set];
  const uint64_t hash = base.hash ^ lock_hash(lock);
  const auto [first, last] = set_index_.equal_range(hash);
  for (auto it = first; it != last; ++it)
    if (same_set(it->second, parent, lock)) return it->second;
  Set s{node, base.size + 1, 0, base.exact && lock < 64, base.mask | uint64_t{1} << (lock % 64),
        hash};
  if (s.size <= kListed) {  // the parent's list (also listed: one lock shorter) plus `lock`
    s.begin = static_cast<uint32_t>(pool_.size());
    const uint32_t from = base.begin;
    // Geometric growth: reserving exactly the new size copied the whole pool for every new set
    // (quadratic: 47% of lockset's time on the tradebeans preset). The pushes below read the
    // pool itself, so it must not reallocate during them.
    if (pool_.capacity() < pool_.size() + s.size)
      pool_.reserve(std::max(2 * pool_.capacity(), pool_.size() + s.size));
    for (uint32_t i = 0; i < base.size; ++i) pool_.push_back(pool_[from + i]);
    const auto at = std::upper_bound(pool_.begin() + s.begin, pool_.end(), lock);
    pool_.insert(at, lock);
  }
  const SetId id = static_cast<SetId>(sets_.size());
  sets_.push_back(s);
  set_index_.emplace(hash, id);
  return id;
}

bool LockSetTable::same_set(SetId set, NodeId parent, LockId lock) const {
  const Set& s = sets_[set];
  const Set& base = sets_[nodes_[parent].set];
  if (s.size != base.size + 1 || s.mask != (base.mask | uint64_t{1} << (lock % 64))) return false;
  if (!contains(set, lock)) return false;
  // Equal sizes and distinct locks: the parent's locks all in `set` means equality.
  const uint32_t stamp = mark(set);
  bool all = true;
  for_each_lock(nodes_[parent].set, [&](LockId l) { all = all && stamped(l, stamp); });
  return all;
}

LockSetTable::SetId LockSetTable::intersect_slow(SetId a, SetId b) {
  const uint64_t key = uint64_t{std::min(a, b)} << 32 | std::max(a, b);
  if (auto it = intersections_.find(key); it != intersections_.end()) return it->second;
  // The common locks (mark one set, test the other), then the set reached by acquiring them in
  // sorted order from the root: O(|a| + |b|) and nodes only along that one path.
  const uint32_t stamp = mark(a);
  std::vector<LockId> common;
  for_each_lock(b, [&](LockId l) {
    if (stamped(l, stamp)) common.push_back(l);
  });
  std::sort(common.begin(), common.end());
  NodeId node = kRoot;
  for (LockId l : common) node = child(node, l);
  const SetId result = nodes_[node].set;
  intersections_.emplace(key, result);
  return result;
}

uint32_t LockSetTable::mark(SetId set) const {
  if (++stamp_now_ == 0) {  // wrapped: clear the old stamps
    std::fill(stamp_.begin(), stamp_.end(), 0);
    stamp_now_ = 1;
  }
  for_each_lock(set, [&](LockId l) {
    const size_t i = stamp_index(l);
    if (i >= stamp_.size()) stamp_.resize(i + 1, 0);
    stamp_[i] = stamp_now_;
  });
  return stamp_now_;
}

bool LockSetTable::disjoint_slow(SetId a, SetId b) const {
  const Set& sa = sets_[a];
  const Set& sb = sets_[b];
  if (sa.size <= kListed && sb.size <= kListed) {  // merge of two short sorted lists
    const LockId* p = pool_.data() + sa.begin;
    const LockId* pe = p + sa.size;
    const LockId* q = pool_.data() + sb.begin;
    const LockId* qe = q + sb.size;
    while (p != pe && q != qe) {
      if (*p == *q) return false;
      if (*p < *q)
        ++p;
      else
        ++q;
    }
    return true;
  }
  const uint64_t key = uint64_t{std::min(a, b)} << 32 | std::max(a, b);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  // Mark the larger set, test the smaller one: O(|a| + |b|).
  const SetId large = sa.size >= sb.size ? a : b;
  const SetId small = large == a ? b : a;
  const uint32_t stamp = mark(large);
  bool result = true;
  for_each_lock(small, [&](LockId l) { result = result && !stamped(l, stamp); });
  if (memo_.size() >= kMemo) memo_.clear();
  memo_.emplace(key, result);
  return result;
}

}  // namespace racepred
