#include "support/tree_clock.hpp"

#include <algorithm>

#include "racepred/trace/error.hpp"

namespace racepred {
namespace {

struct Frame {
  uint32_t node;   // a node of the other clock whose children are being walked
  uint32_t child;  // the next child to look at
};
// Scratch of collect_updated / take_updated: the updated entries in post-order, and the walk.
thread_local std::vector<uint32_t> t_updated;
thread_local std::vector<Frame> t_frames;

}  // namespace

void TreeClock::start(uint32_t t, Clock c) {
  reserve(t + 1);
  nodes_[t] = Node{};
  nodes_[t].clk = c;
  root_ = t;
}

void TreeClock::detach(uint32_t v) {
  Node& n = nodes_[v];
  if (n.parent == kNone) return;
  if (n.prev != kNone)
    nodes_[n.prev].next = n.next;
  else
    nodes_[n.parent].head = n.next;
  if (n.next != kNone) nodes_[n.next].prev = n.prev;
  n.parent = n.prev = n.next = kNone;
}

void TreeClock::push_child(uint32_t v, uint32_t parent) {
  Node& n = nodes_[v];
  Node& p = nodes_[parent];
  n.parent = parent;
  n.prev = kNone;
  n.next = p.head;
  if (p.head != kNone) nodes_[p.head].prev = v;
  p.head = v;
}

void TreeClock::insert_child(uint32_t v, uint32_t parent) {
  uint32_t before = kNone;  // the last child with aclk >= v's
  for (uint32_t c = nodes_[parent].head; c != kNone && nodes_[c].aclk >= nodes_[v].aclk;
       c = nodes_[c].next)
    before = c;
  if (before == kNone) return push_child(v, parent);
  Node& n = nodes_[v];
  n.parent = parent;
  n.prev = before;
  n.next = nodes_[before].next;
  if (n.next != kNone) nodes_[n.next].prev = v;
  nodes_[before].next = v;
}

// getUpdatedNodes of the paper, without recursion (a tree may be as deep as there are threads).
void TreeClock::collect_updated(const TreeClock& other) const {
  t_updated.clear();
  t_frames.clear();
  t_frames.push_back({other.root_, other.nodes_[other.root_].head});
  while (!t_frames.empty()) {
    Frame& f = t_frames.back();
    const uint32_t v = f.child;
    if (v == kNone) {
      t_updated.push_back(f.node);
      t_frames.pop_back();
      continue;
    }
    const Node& o = other.nodes_[v];
    f.child = o.next;
    if (get(v) < o.clk) {
      t_frames.push_back({v, o.head});  // f is not used after this
    } else if (o.aclk <= get(f.node)) {
      f.child = kNone;  // this clock knew f.node when v was attached, and every older child
    }
  }
}

// attachNodes of the paper: parents come out of the post-order before their children, and
// the children of one parent in increasing aclk, so pushing each to the front of its parent's
// list keeps the lists in decreasing aclk. An updated child's aclk exceeds this clock's old
// entry of its parent (else it would have been known), which bounds the aclk of the children
// the parent keeps.
void TreeClock::take_updated(const TreeClock& other) {
  for (const uint32_t v : t_updated) detach(v);
  for (auto it = t_updated.rbegin(); it != t_updated.rend(); ++it) {
    const uint32_t v = *it;
    const Node& o = other.nodes_[v];
    nodes_[v].clk = o.clk;
    if (v == other.root_) continue;  // placed by the caller
    nodes_[v].aclk = o.aclk;
    push_child(v, o.parent);
  }
}

void TreeClock::join(const TreeClock& other) {
  if (other.root_ == kNone) return;
  if (root_ == kNone) return monotone_copy(other);
  const uint32_t z = other.root_;
  if (other.nodes_[z].clk <= get(z)) return;  // this clock knows all of other
  reserve(other.capacity());
  collect_updated(other);
  take_updated(other);
  nodes_[z].aclk = nodes_[root_].clk;
  push_child(z, root_);
}

void TreeClock::monotone_copy(const TreeClock& other) {
  if (other.root_ == kNone) return;  // this ⊑ other: both empty
  reserve(other.capacity());
  const uint32_t old_root = root_;
  collect_updated(other);
  take_updated(other);
  root_ = other.root_;
  detach(root_);
  // The old root keeps its value but is no longer the root: it goes where other has it (its
  // parent there holds the same value here now; HB has no cycle, so it is not below it).
  if (old_root != kNone && old_root != root_ && nodes_[old_root].parent == kNone) {
    nodes_[old_root].aclk = other.nodes_[old_root].aclk;
    insert_child(old_root, other.nodes_[old_root].parent);
  }
}

bool TreeClock::well_formed() const {
  if (root_ == kNone) {
    return std::all_of(nodes_.begin(), nodes_.end(), [](const Node& n) {
      return n.clk == 0 && n.parent == kNone && n.head == kNone;
    });
  }
  if (nodes_[root_].parent != kNone) return false;
  std::vector<uint8_t> seen(nodes_.size(), 0);
  std::vector<uint32_t> todo{root_};
  seen[root_] = 1;
  size_t reached = 1;
  while (!todo.empty()) {
    const uint32_t u = todo.back();
    todo.pop_back();
    uint32_t prev = kNone;
    for (uint32_t c = nodes_[u].head; c != kNone; prev = c, c = nodes_[c].next) {
      const Node& n = nodes_[c];
      if (seen[c] || n.parent != u || n.prev != prev || n.clk == 0) return false;
      if (n.aclk > nodes_[u].clk) return false;
      if (prev != kNone && nodes_[prev].aclk < n.aclk) return false;
      seen[c] = 1;
      ++reached;
      todo.push_back(c);
    }
  }
  const auto nonzero = static_cast<size_t>(
      std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.clk != 0; }));
  return reached == nonzero;
}

TreeClock& TreeHbClocks::thread(ThreadId t) {
  if (t >= threads_.size()) threads_.resize(size_t{t} + 1);
  TreeClock& c = threads_[t];
  if (c.empty()) c.start(t, 1);  // Th(t) = [0, …, 1, …, 0], as ThreadClocks starts it
  return c;
}

void TreeHbClocks::apply(const Event& e) {
  TreeClock* th = &thread(e.thread);
  switch (e.op) {
    case Op::Acquire:
      if (e.target < locks_.size()) th->join(locks_[e.target]);
      break;
    case Op::Release:
      if (e.target >= locks_.size()) locks_.resize(size_t{e.target} + 1);
      locks_[e.target].monotone_copy(*th);
      break;
    case Op::Fork:
      if (e.target != e.thread) {
        TreeClock& child = thread(e.target);
        th = &threads_[e.thread];  // thread() may have moved the clocks
        child.join(*th);
      }
      break;
    case Op::Join:
      if (e.target != e.thread) {
        const TreeClock& child = thread(e.target);
        th = &threads_[e.thread];
        th->join(child);
      }
      break;
    case Op::ReadAcquire:
    case Op::ReadRelease:
      throw InputError("tree clocks: read-write locks are not supported");
    case Op::Send:
    case Op::Recv:
      throw InputError("tree clocks: synchronisation orders are not supported");
    case Op::Read:
    case Op::Write:
    case Op::Request:
    case Op::ReadRequest:
      break;
  }
  th->increment(e.thread);
}

}  // namespace racepred
