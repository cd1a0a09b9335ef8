// Interned lock sets (seed 000 "Lockset computation": ls(t), LS(e)), shared by the lock-set
// engines.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "racepred/trace/event.hpp"

namespace racepred {

// Every distinct set of locks gets a dense id (kEmptySet = {}). A thread's current lock set is a
// node of a trie keyed by acquisition order: acquire follows a child edge (binary search in a
// small sorted vector; a dense array at the root), a release in LIFO order steps to the parent.
// Each node knows the id of its set, so the per-event path has no hashing and, once the sets a
// trace uses exist, no allocation. Disjointness is a bit test while lock ids are below 64 and a
// merge of two short sorted lists otherwise.
class LockSetTable {
 public:
  using NodeId = uint32_t;
  using SetId = uint32_t;
  static constexpr NodeId kRoot = 0;
  static constexpr SetId kEmptySet = 0;

  LockSetTable();

  // The node after acquiring `lock` in `node`; `node` itself if the lock is already held.
  NodeId acquire(NodeId node, LockId lock);
  // The node after releasing `lock` in `node`; `node` itself if the lock is not held.
  NodeId release(NodeId node, LockId lock);
  bool holds(NodeId node, LockId lock) const;

  SetId set_of(NodeId node) const { return nodes_[node].set; }
  // The locks of a set, sorted by id.
  std::span<const LockId> locks(SetId set) const {
    const Set& s = sets_[set];
    return {pool_.data() + s.begin, s.size};
  }
  bool disjoint(SetId a, SetId b) const {
    if (a == b) return a == kEmptySet;
    const Set& sa = sets_[a];
    const Set& sb = sets_[b];
    if ((sa.mask & sb.mask) == 0) return true;
    if (sa.exact && sb.exact) return false;
    return disjoint_slow(sa, sb);
  }
  size_t set_count() const { return sets_.size(); }
  // The set a ∩ b. O(1) when one contains the other and both are exact (lock ids below 64);
  // otherwise memoised, so a pair of sets is merged once.
  SetId intersect(SetId a, SetId b) {
    if (a == b || b == kEmptySet) return b;
    if (a == kEmptySet) return a;
    const Set& sa = sets_[a];
    const Set& sb = sets_[b];
    if (sa.exact && sb.exact) {
      const uint64_t common = sa.mask & sb.mask;
      if (common == sa.mask) return a;
      if (common == sb.mask) return b;
      if (common == 0) return kEmptySet;
    }
    return intersect_slow(a, b);
  }

  size_t size(SetId set) const { return sets_[set].size; }
  // Bit (lock % 64) for each lock of the set; exact() when every lock id is below 64.
  uint64_t mask(SetId set) const { return sets_[set].mask; }
  bool exact(SetId set) const { return sets_[set].exact; }
  size_t node_count() const { return nodes_.size(); }

 private:
  struct Node {
    NodeId parent;
    LockId lock;  // the lock acquired on the edge from the parent
    SetId set;
    std::vector<std::pair<LockId, NodeId>> children;  // sorted by lock (not used at the root)
  };
  // mask: bit (lock % 64) for each lock; exact when every lock id is below 64.
  struct Set {
    uint32_t begin;
    uint32_t size;
    uint64_t mask;
    bool exact;
  };

  NodeId child(NodeId node, LockId lock);
  NodeId make_node(NodeId parent, LockId lock);
  SetId intern(const std::vector<LockId>& sorted);
  bool disjoint_slow(const Set& a, const Set& b) const;
  SetId intersect_slow(SetId a, SetId b);

  std::vector<Node> nodes_;
  std::vector<NodeId> root_children_;  // by lock id; 0 = none yet (the root is nobody's child)
  std::vector<Set> sets_;
  std::vector<LockId> pool_;                        // the sorted lock lists of all sets
  std::map<std::vector<LockId>, SetId> set_index_;  // consulted only when a node is created
  std::vector<LockId> scratch_;
  std::unordered_map<uint64_t, SetId> intersections_;  // (min, max) of the operands → result
};

// The `lockset` engine (also reachable through the registry).

}  // namespace racepred
