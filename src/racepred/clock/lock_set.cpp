// Interned lock sets (clock/lock_set.hpp).
#include "racepred/clock/lock_set.hpp"

#include <algorithm>
#include <bit>
#include <iterator>

namespace racepred {

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
  // Lock ids from 2^31 (the read-hold tokens of engines/lockset/read_locks.hpp) take the sorted
  // children below, not the dense root array.
  if (node == kRoot && lock < (LockId{1} << 31)) {
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

LockSetTable::SetId LockSetTable::intersect_slow(SetId a, SetId b) {
  const uint64_t key = uint64_t{std::min(a, b)} << 32 | std::max(a, b);
  if (auto it = intersections_.find(key); it != intersections_.end()) return it->second;
  const auto la = locks(a);
  const auto lb = locks(b);
  std::vector<LockId> common;
  std::set_intersection(la.begin(), la.end(), lb.begin(), lb.end(), std::back_inserter(common));
  const SetId result = intern(common);
  intersections_.emplace(key, result);
  return result;
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

}  // namespace racepred
