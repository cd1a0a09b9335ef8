// Tree clocks (Mathur, Pavlogiannis, Tunç, Viswanathan, "A Tree Clock Data Structure for Causal
// Orderings in Concurrent Executions", ASPLOS 2022), kept to measure them against the flat
// clocks of ThreadClocks (docs/PERFORMANCE.md, "Tree clocks"); no engine uses them.
//
// A tree clock holds the same values as a vector clock, one entry per thread, and arranges the
// threads it knows in a tree rooted at the clock's owner: a node v below u with attachment time
// aclk(v) records that u's thread, at its local time aclk(v), knew v's thread up to clk(v) —
// and, transitively, everything in v's subtree. Children are kept in decreasing aclk. A join
// (or monotone copy) walks the other clock from its root and descends only into nodes that
// bring something new: a child whose value this clock knows already is skipped with its
// subtree, and once a child's aclk is at most this clock's entry of its parent, all later
// (older) children are known too. So joins and copies cost the entries that change, not the
// number of threads.
//
// The pruning is sound when every clock is a consistent cut of a causal order (knowing thread u
// up to k means knowing everything u knew at k), as the happens-before clocks of TreeHbClocks
// are. `join` needs this clock's root entry to be the largest any clock has for that thread (a
// thread's own clock); `monotone_copy` needs this ⊑ other (a release of a lock the thread
// acquired).
#pragma once

#include <cstdint>
#include <vector>

#include "racepred/clock/thread_clocks.hpp"
#include "racepred/clock/vector_clock.hpp"
#include "racepred/trace/event.hpp"

namespace racepred {

class TreeClock {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Entries for threads [0, capacity) (grows on demand).
  void reserve(uint32_t capacity) {
    if (capacity > nodes_.size()) nodes_.resize(capacity);
  }
  uint32_t capacity() const { return static_cast<uint32_t>(nodes_.size()); }
  Clock get(uint32_t t) const { return t < nodes_.size() ? nodes_[t].clk : 0; }
  uint32_t root() const { return root_; }
  bool empty() const { return root_ == kNone; }

  // The clock of thread t when it starts: t is the root, with value c > 0.
  void start(uint32_t t, Clock c);
  // clk(root) + 1: the owner's next event.
  void increment(ThreadId owner) { increment_clock(nodes_[root_].clk, owner); }
  // this := this ⊔ other.
  void join(const TreeClock& other);
  // this := other, given this ⊑ other.
  void monotone_copy(const TreeClock& other);

  // Tests: every entry > 0 is the root or in its tree, the tree has no cycle, children are in
  // decreasing aclk and no child was attached after its parent's current time.
  bool well_formed() const;

 private:
  struct Node {
    Clock clk = 0;
    Clock aclk = 0;  // the parent's time when this entry was attached below it
    uint32_t parent = kNone;
    uint32_t head = kNone;  // first (most recently attached) child
    uint32_t next = kNone;
    uint32_t prev = kNone;
  };
  // The entries of `other` larger than this clock's, children before parents (post-order).
  void collect_updated(const TreeClock& other) const;
  // Gives the collected entries the values of `other` and hangs each below its parent there.
  void take_updated(const TreeClock& other);
  void detach(uint32_t v);
  void push_child(uint32_t v, uint32_t parent);    // v becomes the first child
  void insert_child(uint32_t v, uint32_t parent);  // v goes to its place in aclk order

  std::vector<Node> nodes_;
  uint32_t root_ = kNone;
};

// The happens-before synchronisation of ThreadClocks (acquire, release, fork, join, tick) on
// tree clocks, one per thread and one per lock. Exclusive locks only (a read release joins
// into a lock's clock, which is not a monotone copy).
class TreeHbClocks {
 public:
  // The event's synchronisation, then the tick of its thread.
  void apply(const Event& e);
  // Th(i)(t).
  Clock get(ThreadId i, ThreadId t) const {
    return i < threads_.size() ? threads_[i].get(t) : (i == t ? 1 : 0);
  }
  const TreeClock& thread_clock(ThreadId i) const { return threads_[i]; }

 private:
  TreeClock& thread(ThreadId t);

  std::vector<TreeClock> threads_;
  std::vector<TreeClock> locks_;
};

}  // namespace racepred
