// A vector clock whose copies share their storage: a radix tree over thread ids (32 entries a
// leaf, 32 children an inner node) with reference-counted, copy-on-write nodes. A copy takes one
// reference; set() copies the path to the entry if it is shared; join() walks only the subtrees
// whose nodes differ, and where one side's node is at least the other's it takes that node
// instead of a new one, so clocks that learned the same times through the same locks end up
// sharing it. For engines that keep a clock per critical section as wide as all threads seen
// (sdp on many short-lived threads): memory and join time follow the entries that differ, not
// the width. Not thread-safe (one engine's clocks are used by one thread).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "racepred/clock/vector_clock.hpp"

namespace racepred {

class SharedClock {
 public:
  SharedClock() = default;
  SharedClock(const SharedClock& o) : root_(share(o.root_)), height_(o.height_) {}
  SharedClock(SharedClock&& o) noexcept : root_(o.root_), height_(o.height_) {
    o.root_ = nullptr;
    o.height_ = 0;
  }
  SharedClock& operator=(const SharedClock& o) {
    if (o.root_ != root_) {
      Node* r = share(o.root_);
      drop(root_, height_);
      root_ = r;
    }
    height_ = o.height_;
    return *this;
  }
  SharedClock& operator=(SharedClock&& o) noexcept {
    if (this != &o) {
      drop(root_, height_);
      root_ = o.root_;
      height_ = o.height_;
      o.root_ = nullptr;
      o.height_ = 0;
    }
    return *this;
  }
  ~SharedClock() { drop(root_, height_); }

  Clock get(ThreadId t) const {
    const Node* n = root_;
    if (n == nullptr || (uint64_t{t} >> (kBits * (height_ + 1))) != 0) return 0;
    for (unsigned h = height_; h > 0; --h) {
      n = static_cast<const Inner*>(n)->c[(t >> (kBits * h)) & kMask];
      if (n == nullptr) return 0;
    }
    return static_cast<const Leaf*>(n)->v[t & kMask];
  }
  Clock operator[](ThreadId t) const { return get(t); }
  void set(ThreadId t, Clock v) {
    const Clock old = get(t);
    if (old == v) return;
    while ((uint64_t{t} >> (kBits * (height_ + 1))) != 0) lift();
    Node** slot = &root_;
    for (unsigned h = height_; h > 0; --h) {
      Inner* in = *slot == nullptr ? new Inner{} : own_inner(*slot);
      in->serial = next_serial();  // its content changes: ge of other nodes must not match it
      if (v < old) in->ge = 0;
      *slot = in;
      slot = &in->c[(t >> (kBits * h)) & kMask];
    }
    Leaf* leaf = *slot == nullptr ? new Leaf{} : own_leaf(*slot);
    leaf->serial = next_serial();
    if (v < old) leaf->ge = 0;
    *slot = leaf;
    leaf->v[t & kMask] = v;
  }
  void assign(const SharedClock& o) { *this = o; }
  // Point-wise maximum; true if some entry grew.
  bool join(const SharedClock& o) {
    if (o.root_ == nullptr || o.root_ == root_) return false;
    while (height_ < o.height_) lift();
    bool changed = false;
    Node** slot = &root_;
    for (unsigned h = height_; h > o.height_; --h) {  // o lies in child 0 of each level
      Inner* in = *slot == nullptr ? new Inner{} : own_inner(*slot);
      in->serial = next_serial();  // may change below
      *slot = in;
      slot = &in->c[0];
    }
    *slot = join(*slot, o.root_, o.height_, changed);
    return changed;
  }
  // 1 + the largest thread with a non-zero entry (0: the zero clock).
  size_t size() const { return root_ == nullptr ? 0 : top(root_, height_, 0); }
  bool is_zero() const { return size() == 0; }
  // No entry was ever set or joined in (then it is zero; a zero clock may also be non-empty).
  bool empty() const { return root_ == nullptr; }
  VectorClock to_vector() const {
    VectorClock v;
    const size_t n = size();
    for (size_t u = 0; u < n; ++u)
      if (const Clock c = get(static_cast<ThreadId>(u)); c != 0) v.set(static_cast<ThreadId>(u), c);
    return v;
  }
  // "[1,0,2]" over `threads` entries (at least size()).
  std::string to_string(size_t threads = 0) const { return to_vector().to_string(threads); }
  friend bool operator==(const SharedClock& a, const SharedClock& b) {
    const size_t n = std::max(a.size(), b.size());
    for (size_t u = 0; u < n; ++u)
      if (a.get(static_cast<ThreadId>(u)) != b.get(static_cast<ThreadId>(u))) return false;
    return true;
  }

  // The memory of the clocks: a fresh mark, then cells(mark) of each clock counts the entries
  // and child pointers of the nodes no clock counted with that mark before (shared nodes once).
  static uint32_t new_mark() {
    static std::atomic<uint32_t> marks{0};
    return marks.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  size_t cells(uint32_t mark) const { return count(root_, height_, mark); }

 private:
  static constexpr unsigned kBits = 5;
  static constexpr uint32_t kFan = uint32_t{1} << kBits;
  static constexpr uint32_t kMask = kFan - 1;
  // ge: the serial of a node this one was found to be at least (values only grow in place;
  // set() lowering one clears it), so that joining the same node again costs one test. A node
  // changed in place gets a new serial (so no ge names its old content); serials are never
  // reused, unlike addresses.
  struct Node {
    uint32_t refs = 1;
    uint32_t mark = 0;
    uint64_t serial = next_serial();
    uint64_t ge = 0;
  };
  struct Leaf : Node {
    Clock v[kFan] = {};
  };
  struct Inner : Node {
    Node* c[kFan] = {};
  };

  static uint64_t next_serial() {
    static std::atomic<uint64_t> serials{0};
    return serials.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  static Node* share(Node* n) {
    if (n != nullptr) ++n->refs;
    return n;
  }
  static Node* share(const Node* n) { return share(const_cast<Node*>(n)); }
  // Gives up one reference to n, a node at level h.
  static void drop(Node* n, unsigned h) {
    if (n == nullptr || --n->refs != 0) return;
    if (h == 0) {
      delete static_cast<Leaf*>(n);
      return;
    }
    Inner* in = static_cast<Inner*>(n);
    for (Node* c : in->c) drop(c, h - 1);
    delete in;
  }
  // n, or a copy of it if shared (the caller's reference moves to the copy).
  static Leaf* own_leaf(Node* n) {
    Leaf* l = static_cast<Leaf*>(n);
    if (l->refs == 1) return l;
    --l->refs;
    Leaf* copy = new Leaf{};
    copy->ge = l->ge;
    std::copy(l->v, l->v + kFan, copy->v);
    return copy;
  }
  static Inner* own_inner(Node* n) {
    Inner* in = static_cast<Inner*>(n);
    if (in->refs == 1) return in;
    --in->refs;
    Inner* copy = new Inner{};
    copy->ge = in->ge;
    for (uint32_t i = 0; i < kFan; ++i) copy->c[i] = share(in->c[i]);
    return copy;
  }
  // One level more: the tree becomes child 0 of a new root.
  void lift() {
    if (root_ != nullptr) {
      Inner* in = new Inner{};
      in->c[0] = root_;
      root_ = in;
    }
    ++height_;
  }
  // The join of b (the caller's reference, given up) and a (borrowed), both at level h; returns
  // a reference. A side at least the other is taken as it is (a when equal: clocks converge).
  static Node* join(Node* b, const Node* a, unsigned h, bool& changed) {
    if (a == nullptr || a == b) return b;
    if (b == nullptr) {
      changed = true;
      return share(a);
    }
    if (b->ge == a->serial) return b;
    if (h == 0) {
      const Clock* va = static_cast<const Leaf*>(a)->v;
      const Clock* vb = static_cast<Leaf*>(b)->v;
      bool a_ge = true, b_ge = true;
      for (uint32_t i = 0; i < kFan; ++i) {
        a_ge &= va[i] >= vb[i];
        b_ge &= vb[i] >= va[i];
      }
      if (a_ge) {
        changed = changed || !b_ge;
        drop(b, 0);
        return share(a);
      }
      if (!b_ge) {
        changed = true;
        b = own_leaf(b);
        b->serial = next_serial();
        Clock* out = static_cast<Leaf*>(b)->v;
        for (uint32_t i = 0; i < kFan; ++i) out[i] = std::max(out[i], va[i]);
      }
      b->ge = a->serial;
      return b;
    }
    const Inner* ia = static_cast<const Inner*>(a);
    Inner* ib = static_cast<Inner*>(b);
    bool all_a = true;
    if (ib->refs == 1) {  // b is ours: join the children in place
      bool grew = false;  // a child changed (a new node, or one changed in place)
      uint64_t serial_before[kFan];
      for (uint32_t i = 0; i < kFan; ++i) serial_before[i] = ib->c[i] ? ib->c[i]->serial : 0;
      for (uint32_t i = 0; i < kFan; ++i) {
        const Node* ac = ia->c[i];
        if (ac == nullptr || ac == ib->c[i]) {
          all_a = all_a && ac == ib->c[i];
          continue;
        }
        Node* const before = ib->c[i];
        ib->c[i] = join(before, ac, h - 1, changed);
        grew = grew || ib->c[i] != before || ib->c[i]->serial != serial_before[i];
        all_a = all_a && ib->c[i] == ac;
      }
      if (!all_a) {
        if (grew) b->serial = next_serial();
        b->ge = a->serial;
        return b;
      }
      drop(b, h);
      return share(a);
    }
    Node* r[kFan];
    uint32_t fresh = 0;  // the children of r that are new references
    for (uint32_t i = 0; i < kFan; ++i) {
      Node* bc = ib->c[i];
      const Node* ac = ia->c[i];
      r[i] = bc;
      if (ac == nullptr || ac == bc) {
        all_a = all_a && ac == bc;
        continue;
      }
      Node* x = join(share(bc), ac, h - 1, changed);
      if (x == bc) {
        --bc->refs;  // b still holds it
        all_a = false;
        continue;
      }
      r[i] = x;
      fresh |= uint32_t{1} << i;
      all_a = all_a && x == ac;
    }
    if (fresh == 0) {
      b->ge = a->serial;
      return b;
    }
    if (all_a) {
      for (uint32_t i = 0; i < kFan; ++i)
        if ((fresh >> i & 1) != 0) drop(r[i], h - 1);
      drop(b, h);
      return share(a);
    }
    Inner* out = new Inner{};
    for (uint32_t i = 0; i < kFan; ++i) out->c[i] = (fresh >> i & 1) != 0 ? r[i] : share(r[i]);
    out->ge = a->serial;
    --ib->refs;  // shared: not the last reference
    return out;
  }
  static size_t top(const Node* n, unsigned h, size_t base) {
    for (uint32_t i = kFan; i-- > 0;) {
      if (h == 0) {
        if (static_cast<const Leaf*>(n)->v[i] != 0) return (base << kBits | i) + 1;
        continue;
      }
      const Node* c = static_cast<const Inner*>(n)->c[i];
      if (c == nullptr) continue;
      if (const size_t s = top(c, h - 1, base << kBits | i); s != 0) return s;
    }
    return 0;
  }
  static size_t count(Node* n, unsigned h, uint32_t mark) {
    if (n == nullptr || n->mark == mark) return 0;
    n->mark = mark;
    size_t cells = 1 + kFan;
    if (h > 0)
      for (Node* c : static_cast<Inner*>(n)->c) cells += count(c, h - 1, mark);
    return cells;
  }

  Node* root_ = nullptr;
  unsigned height_ = 0;  // inner levels above the leaves: 32^(height_ + 1) threads
};

}  // namespace racepred
