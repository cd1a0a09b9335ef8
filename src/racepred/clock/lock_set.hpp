// Interned lock sets (Sulzmann, "Lock sets", "Lockset computation": ls(t), LS(e)), shared by the
// lock-set engines.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "racepred/trace/error.hpp"
#include "racepred/trace/event.hpp"

namespace racepred {

// Read-write locks, in every engine (docs/ENGINES.md, "Read-write locks"): lock l held or taken
// in read (shared) mode is the token l | kReadMode in lock sets and lists of held locks; in write
// mode it is l itself. Lock ids from 2^31 cannot be told apart from tokens: read_mode() refuses
// them.
inline constexpr LockId kReadMode = LockId{1} << 31;
inline LockId read_mode(LockId l) {
  if (l >= kReadMode) [[unlikely]]
    throw InputError("error: more than 2^31 locks: read locks need the top bit of a lock id");
  return l | kReadMode;
}
inline constexpr LockId lock_of(LockId token) {
  return token & ~kReadMode;
}
inline constexpr bool is_read_mode(LockId token) {
  return (token & kReadMode) != 0;
}

// Every distinct set of locks gets a dense id (kEmptySet = {}). A thread's current lock set is a
// node of a trie keyed by acquisition order: acquire follows a child edge (binary search in a
// small sorted vector; a dense array at the root), a release in LIFO order steps to the parent.
// Each node knows the id of its set, so the per-event path has no hashing and, once the sets a
// trace uses exist, no allocation.
//
// Storage is linear in the number of nodes, whatever the nesting depth: a node is (parent, lock)
// and a set is hash-consed from (parent's set, lock) with an order-independent hash, so creating
// the node at depth d costs O(1) (plus, only when the hash matches an existing set, one O(d)
// comparison). Only sets of at most kListed locks also keep their sorted lock list (the usual
// case: disjointness of two short sets is a merge of two short lists); a larger set is read
// through its representative node's parent chain. Disjointness is a bit test while lock ids are
// below 64; otherwise a merge of the lists or, for large sets, one O(|a| + |b|) pass whose
// result is memoised. Membership in a large set (acquire's test that a lock is not held) looks
// at a few large sets kept marked lock by lock: the set one lock larger or smaller than a marked
// one (a thread's next nested acquire or release) is marked from it in O(1), so acquiring and
// releasing N nested locks costs O(N), not O(N^2).
class LockSetTable {
 public:
  using NodeId = uint32_t;
  using SetId = uint32_t;
  static constexpr NodeId kRoot = 0;
  static constexpr SetId kEmptySet = 0;
  static constexpr uint32_t kListed = 16;  // sets up to this size keep a sorted lock list

  LockSetTable();

  // The node after acquiring `lock` in `node`; `node` itself if the lock is already held.
  NodeId acquire(NodeId node, LockId lock);
  // The node after releasing `lock` in `node`; `node` itself if the lock is not held.
  NodeId release(NodeId node, LockId lock);
  bool holds(NodeId node, LockId lock) const { return contains(nodes_[node].set, lock); }

  SetId set_of(NodeId node) const { return nodes_[node].set; }
  bool contains(SetId set, LockId lock) const;
  // Calls f(lock) for every lock of the set, in no particular order.
  template <typename F>
  void for_each_lock(SetId set, F f) const {
    const Set& s = sets_[set];
    if (s.size <= kListed) {
      for (uint32_t i = 0; i < s.size; ++i) f(pool_[s.begin + i]);
      return;
    }
    for (NodeId n = s.node; n != kRoot; n = nodes_[n].parent) f(nodes_[n].lock);
  }
  // The locks of a set, sorted by id.
  std::vector<LockId> sorted_locks(SetId set) const;
  // A non-empty set as (the set with one lock fewer, that lock): following the first member
  // down to kEmptySet visits a chain of subsets that adds one lock at a time.
  std::pair<SetId, LockId> split(SetId set) const {
    const Node& n = nodes_[sets_[set].node];
    return {nodes_[n.parent].set, n.lock};
  }

  bool disjoint(SetId a, SetId b) const {
    if (a == b) return a == kEmptySet;
    const Set& sa = sets_[a];
    const Set& sb = sets_[b];
    if ((sa.mask & sb.mask) == 0) return true;
    if (sa.exact && sb.exact) return false;
    return disjoint_slow(a, b);
  }
  size_t set_count() const { return sets_.size(); }
  // The set a ∩ b. O(1) when one contains the other and both are exact (lock ids below 64);
  // otherwise memoised, so a pair of sets is intersected once.
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
  // Lock ids stored in the sorted lists of the small sets (a measure of the table's memory).
  size_t listed_locks() const { return pool_.size(); }
  // Locks acquired again by releases out of order (a measure of their work).
  uint64_t replayed() const { return replayed_; }
  // Locks visited by membership tests of large sets (a measure of their work).
  uint64_t membership_steps() const { return member_steps_; }

 private:
  struct Node {
    NodeId parent;
    LockId lock;  // the lock acquired on the edge from the parent
    SetId set;
    std::vector<std::pair<LockId, NodeId>> children;  // sorted by lock (not used at the root)
  };
  // mask: bit (lock % 64) for each lock; exact when every lock id is below 64. `node`: the node
  // that created the set (its parent chain holds exactly the set's locks); `begin`: the sorted
  // list in pool_ when size <= kListed.
  struct Set {
    NodeId node;
    uint32_t size;
    uint32_t begin;
    bool exact;
    uint64_t mask;
    uint64_t hash;  // XOR of lock_hash(l) over the locks
  };

  NodeId child(NodeId node, LockId lock);
  NodeId make_node(NodeId parent, LockId lock);
  SetId intern(NodeId parent, LockId lock, NodeId node);
  bool same_set(SetId set, NodeId parent, LockId lock) const;
  bool disjoint_slow(SetId a, SetId b) const;
  SetId intersect_slow(SetId a, SetId b);
  // Marks the locks of `set` in stamp_ with a fresh stamp and returns it.
  uint32_t mark(SetId set) const;
  bool contains_large(SetId set, LockId lock) const;

  std::vector<Node> nodes_;
  // Stamps by lock, dense also for ids from 2^31 (read-hold tokens of the lock-set engines):
  // lock l < 2^31 at 2l, l = 2^31 + k at 2k + 1.
  static size_t stamp_index(LockId l) {
    constexpr LockId kHigh = LockId{1} << 31;
    return l < kHigh ? size_t{l} * 2 : size_t{l - kHigh} * 2 + 1;
  }
  bool stamped(LockId l, uint32_t stamp) const {
    const size_t i = stamp_index(l);
    return i < stamp_.size() && stamp_[i] == stamp;
  }
  std::vector<NodeId> root_children_;  // by lock id; 0 = none yet (the root is nobody's child)
  std::vector<Set> sets_;
  std::vector<LockId> pool_;                            // the sorted lock lists of the small sets
  std::unordered_multimap<uint64_t, SetId> set_index_;  // by hash; only when a node is created
  std::vector<LockId> scratch_;
  uint64_t replayed_ = 0;
  // Scratch for the large-set paths: a stamp per lock id, and memoised disjointness of pairs of
  // sets (key: smaller id << 32 | larger id), bounded by kMemo entries.
  mutable std::vector<uint32_t> stamp_;
  mutable uint32_t stamp_now_ = 0;
  mutable std::unordered_map<uint64_t, bool> memo_;
  static constexpr size_t kMemo = size_t{1} << 20;
  std::unordered_map<uint64_t, SetId> intersections_;  // (min, max) of the operands → result
  // Large sets kept marked for membership (contains_large): stamp[stamp_index(l)] == gen iff l
  // is in `set`; the least recently used one is marked anew.
  struct Marked {
    SetId set = kEmptySet;  // kEmptySet: none yet
    uint32_t gen = 0;
    uint64_t used = 0;
    std::vector<uint32_t> stamp;
  };
  static constexpr size_t kMarked = 4;
  mutable Marked marked_[kMarked];
  mutable uint64_t mark_clock_ = 0;
  mutable uint64_t member_steps_ = 0;
};

}  // namespace racepred
