// A vector clock whose copies share their storage: a radix tree over thread ids (32 entries a
// leaf, 32 children an inner node) with reference-counted, copy-on-write nodes. A copy takes one
// reference; set() copies the path to the entry if it is shared; join() walks only the subtrees
// whose nodes differ, and where one side's node is at least the other's it takes that node
// instead of a new one, so clocks that learned the same times through the same locks end up
// sharing it. For engines that keep a clock per critical section as wide as all threads seen
// (sdp on many short-lived threads): memory and join time follow the entries that differ, not
// the width. Not thread-safe (one engine's clocks are used by one thread).
//
// Seeds (seed()): a clock of a family where every clock is a join of "HB times" (a clock that
// holds an HB time's own entry holds all of it, as sdp's P clocks) can take an HB time lazily:
// it is kept aside, shared, and read by get() beside the body, until the body covers it (its own
// entry, one lookup) or a seed of another thread meets it. A thread forked by one that knows
// many threads starts with such a P; joining it into a lock's P walked every leaf where the old
// fork time and the lock's newer clock differ, for a result that is the lock's clock.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "racepred/clock/vector_clock.hpp"

namespace racepred {

class SharedClock {
  struct Node;

 public:
  SharedClock() = default;
  SharedClock(const SharedClock& o)
      : root_(share(o.root_)), height_(o.height_), seed_(share_seed(o.seed_)) {}
  SharedClock(SharedClock&& o) noexcept : root_(o.root_), height_(o.height_), seed_(o.seed_) {
    o.root_ = nullptr;
    o.height_ = 0;
    o.seed_ = nullptr;
  }
  SharedClock& operator=(const SharedClock& o) {
    if (o.root_ != root_) {
      Node* r = share(o.root_);
      drop(root_, height_);
      root_ = r;
    }
    height_ = o.height_;
    if (o.seed_ != seed_) {
      Seed* s = share_seed(o.seed_);
      drop_seed(seed_);
      seed_ = s;
    }
    return *this;
  }
  SharedClock& operator=(SharedClock&& o) noexcept {
    if (this != &o) {
      drop(root_, height_);
      drop_seed(seed_);
      root_ = o.root_;
      height_ = o.height_;
      seed_ = o.seed_;
      o.root_ = nullptr;
      o.height_ = 0;
      o.seed_ = nullptr;
    }
    return *this;
  }
  ~SharedClock() {
    drop(root_, height_);
    drop_seed(seed_);
  }

  Clock get(ThreadId t) const {
    const Clock v = lookup(root_, height_, t);
    if (seed_ == nullptr) [[likely]]
      return v;
    return std::max(v, lookup(seed_->root, seed_->height, t));
  }
  Clock operator[](ThreadId t) const { return get(t); }
  void set(ThreadId t, Clock v) {
    if (seed_ != nullptr && lookup(seed_->root, seed_->height, t) > v) [[unlikely]]
      fold_seed();  // the entry is set below the seed's: the seed joins the body first
    const Clock old = lookup(root_, height_, t);
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
  // Point-wise maximum; true if some entry grew (where a seed is adopted or replaced: true if
  // some entry may have grown).
  bool join(const SharedClock& o) {
    bool changed = join_body(o.root_, o.height_);
    if (o.seed_ != nullptr) [[unlikely]]
      changed = take_seed(o.seed_) || changed;
    if (seed_ != nullptr) [[unlikely]]
      drop_seed_if_covered();
    return changed;
  }
  // this ⊔= hb, lazily (see the top of the file): hb is the time of an event of thread t (it has
  // no seed), and in this clock's family a clock that holds hb(t) holds all of hb. A small hb
  // (one leaf) is joined at once.
  void seed(const SharedClock& hb, ThreadId t) {
    if (hb.seed_ != nullptr || hb.height_ == 0 || hb.root_ == nullptr) {
      join(hb);
      return;
    }
    ++seeds_made();
    Seed* s = new Seed{1, t, hb.get(t), hb.height_, share(hb.root_)};
    take_seed(s);
    drop_seed(s);
    if (seed_ != nullptr) drop_seed_if_covered();
  }
  // A seed is kept aside (for tests).
  bool has_seed() const { return seed_ != nullptr; }
  // Work statistics of this thread's clocks (tests bound them; never timings): the nodes join()
  // visited, and the seeds made.
  static uint64_t& join_visits() {
    static thread_local uint64_t visits = 0;
    return visits;
  }
  static uint64_t& seeds_made() {
    static thread_local uint64_t seeds = 0;
    return seeds;
  }
  // Reads entries as get() does, remembering the leaf of the last one: reading in thread order
  // (a race history's entries) walks the tree once per leaf, not once per entry. Valid while
  // the clock is not changed.
  class Reader {
   public:
    explicit Reader(const SharedClock& c) : c_(c) {
      if (c.seed_ == nullptr && c.height_ == 0)  // one leaf: read it directly
        flat_ = c.root_ == nullptr ? kZeros : static_cast<const Leaf*>(c.root_)->v;
    }
    Clock operator[](ThreadId t) const {
      if (flat_ != nullptr) [[likely]]
        return t < kFan ? flat_[t] : 0;
      const Clock v = body_.get(c_.root_, c_.height_, t);
      if (c_.seed_ == nullptr) [[likely]]
        return v;
      return std::max(v, seed_.get(c_.seed_->root, c_.seed_->height, t));
    }

   private:
    struct Cache {
      uint64_t base = UINT64_MAX;   // t >> kBits of the leaf below
      const Clock* leaf = nullptr;  // null: no leaf there (zeros)
      Clock get(const Node* root, unsigned height, ThreadId t) {
        const uint64_t b = uint64_t{t} >> kBits;
        if (b != base) {
          base = b;
          leaf = leaf_of(root, height, t);
        }
        return leaf == nullptr ? 0 : leaf[t & kMask];
      }
    };
    const SharedClock& c_;
    const Clock* flat_ = nullptr;  // the entries of a clock of one leaf and no seed
    mutable Cache body_, seed_;
  };
  Reader reader() const { return Reader(*this); }
  // fn(u, this(u)) for every u with this(u) > o(u), in no particular order, visiting only the
  // nodes where the two differ (neither clock may have a seed).
  template <class Fn>
  void for_each_above(const SharedClock& o, Fn&& fn) const {
    SharedClock a = *this, b = o;  // copies share the nodes; lifted to one height
    while (a.height_ < b.height_) a.lift();
    while (b.height_ < a.height_) b.lift();
    above(a.root_, b.root_, a.height_, 0, fn);
  }
  // 1 + the largest thread with a non-zero entry (0: the zero clock).
  size_t size() const {
    const size_t n = root_ == nullptr ? 0 : top(root_, height_, 0);
    return seed_ == nullptr ? n : std::max(n, top(seed_->root, seed_->height, 0));
  }
  bool is_zero() const { return size() == 0; }
  // No entry was ever set or joined in (then it is zero; a zero clock may also be non-empty).
  bool empty() const { return root_ == nullptr && seed_ == nullptr; }
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
  size_t cells(uint32_t mark) const {
    size_t n = count(root_, height_, mark);
    if (seed_ != nullptr) n += 1 + count(seed_->root, seed_->height, mark);
    return n;
  }

 private:
  static constexpr unsigned kBits = 5;
  static constexpr uint32_t kFan = uint32_t{1} << kBits;
  static constexpr uint32_t kMask = kFan - 1;
  static constexpr Clock kZeros[kFan] = {};  // a leaf of zeros (Reader)
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
  // A seed: an HB time of `thread` whose own entry is `time`, shared by the clocks that took
  // it (immutable; a reference to its root).
  struct Seed {
    uint32_t refs;
    ThreadId thread;
    Clock time;
    unsigned height;
    Node* root;
  };
  // The entries of the leaf that holds t, or null.
  static const Clock* leaf_of(const Node* n, unsigned height, ThreadId t) {
    if (n == nullptr || (uint64_t{t} >> (kBits * (height + 1))) != 0) return nullptr;
    for (unsigned h = height; h > 0; --h) {
      n = static_cast<const Inner*>(n)->c[(t >> (kBits * h)) & kMask];
      if (n == nullptr) return nullptr;
    }
    return static_cast<const Leaf*>(n)->v;
  }
  static Clock lookup(const Node* n, unsigned height, ThreadId t) {
    if (n == nullptr || (uint64_t{t} >> (kBits * (height + 1))) != 0) return 0;
    for (unsigned h = height; h > 0; --h) {
      n = static_cast<const Inner*>(n)->c[(t >> (kBits * h)) & kMask];
      if (n == nullptr) return 0;
    }
    return static_cast<const Leaf*>(n)->v[t & kMask];
  }
  static Seed* share_seed(Seed* s) {
    if (s != nullptr) ++s->refs;
    return s;
  }
  static void drop_seed(Seed* s) {
    if (s == nullptr || --s->refs != 0) return;
    drop(s->root, s->height);
    delete s;
  }
  // The body covers the seed: it holds the seed's own entry.
  void drop_seed_if_covered() {
    if (lookup(root_, height_, seed_->thread) < seed_->time) return;
    drop_seed(seed_);
    seed_ = nullptr;
  }
  // The seed joined into the body.
  bool fold_seed() {
    Seed* s = seed_;
    seed_ = nullptr;
    const bool changed = join_body(s->root, s->height);
    drop_seed(s);
    return changed;
  }
  // Takes s (borrowed) as this clock's seed, or joins it or the current seed into the body; true
  // if an entry may have grown.
  bool take_seed(Seed* s) {
    if (s == seed_ || lookup(root_, height_, s->thread) >= s->time) return false;
    if (seed_ != nullptr) {
      const bool s_covers = seed_->thread == s->thread
                                ? s->time >= seed_->time
                                : lookup(s->root, s->height, seed_->thread) >= seed_->time;
      if (!s_covers) {
        if (seed_->thread == s->thread || lookup(seed_->root, seed_->height, s->thread) >= s->time)
          return false;  // the seed covers s
        return join_body(s->root, s->height);
      }
      drop_seed(seed_);
    }
    seed_ = share_seed(s);
    return true;
  }
  // The body ⊔= the tree (root, height).
  bool join_body(const Node* o_root, unsigned o_height) {
    if (o_root == nullptr || o_root == root_) return false;
    while (height_ < o_height) lift();
    bool changed = false;
    Node** slot = &root_;
    for (unsigned h = height_; h > o_height; --h) {  // o lies in child 0 of each level
      Inner* in = *slot == nullptr ? new Inner{} : own_inner(*slot);
      in->serial = next_serial();  // may change below
      *slot = in;
      slot = &in->c[0];
    }
    *slot = join(*slot, o_root, o_height, changed);
    return changed;
  }

  // Unique over all threads (each takes blocks of serials), without an atomic operation per node.
  static uint64_t next_serial() {
    constexpr uint64_t kBlock = uint64_t{1} << 20;
    static std::atomic<uint64_t> blocks{1};  // 0: no serial (ge)
    static thread_local uint64_t next = 0, end = 0;
    if (next == end) [[unlikely]] {
      next = blocks.fetch_add(kBlock, std::memory_order_relaxed);
      end = next + kBlock;
    }
    return next++;
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
    ++join_visits();
    if (a == nullptr || a == b) return b;
    if (b == nullptr) {
      changed = true;
      return share(a);
    }
    if (b->ge == a->serial) return b;
    if (h == 0) {
      const Clock* va = static_cast<const Leaf*>(a)->v;
      const Clock* vb = static_cast<Leaf*>(b)->v;
      uint32_t a_lt = 0, b_lt = 0;           // some entry of a (of b) is below the other's
      for (uint32_t i = 0; i < kFan; ++i) {  // (a form the compiler vectorises)
        a_lt |= static_cast<uint32_t>(va[i] < vb[i]);
        b_lt |= static_cast<uint32_t>(vb[i] < va[i]);
      }
      const bool a_ge = a_lt == 0, b_ge = b_lt == 0;
      if (a_ge) {
        if (b_ge && b->serial < a->serial) {  // equal: keep the older node (clocks converge)
          b->ge = a->serial;
          return b;
        }
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
  template <class Fn>
  static void above(const Node* a, const Node* b, unsigned h, uint64_t base, Fn& fn) {
    if (a == nullptr || a == b || (b != nullptr && b->ge == a->serial)) return;
    if (h == 0) {
      const Clock* va = static_cast<const Leaf*>(a)->v;
      const Clock* vb = b == nullptr ? nullptr : static_cast<const Leaf*>(b)->v;
      for (uint32_t i = 0; i < kFan; ++i)
        if (va[i] > (vb == nullptr ? 0 : vb[i]))
          fn(static_cast<ThreadId>(base << kBits | i), va[i]);
      return;
    }
    const Inner* ia = static_cast<const Inner*>(a);
    const Inner* ib = static_cast<const Inner*>(b);
    for (uint32_t i = 0; i < kFan; ++i)
      above(ia->c[i], ib == nullptr ? nullptr : ib->c[i], h - 1, base << kBits | i, fn);
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
  Seed* seed_ = nullptr;
};

}  // namespace racepred
