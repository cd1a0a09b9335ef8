// Rule (a) of the optimised predictive engines (wcp, dc, wdc, dc-tp, wdp) at any nesting depth
// (docs/PERFORMANCE.md "Deep nesting"). Rule (a): an access f of x by t inside a critical section
// on l is ordered after the release of every earlier critical section on l that holds a
// conflicting access to x. The engines keep, per (lock, variable), the releases that rule needs
// (their "slots"); filled at each release from the variables the section accessed. Nested
// sections of one thread share their accesses, so N nested sections around N accesses made N^2
// slots, and every access under N locks looked at N slots. Three pieces keep the work per event
// independent of the depth:
//
//  - SectionLog: a thread logs each access once (reads and writes apart); an open section is
//    where the logs stood at its acquire, and what it accessed is the logs from there.
//  - Sections opened at a level (number of sections the thread had open at the acquire) below
//    the engine's deep level fill their slots at the release as before: an access lies in at most
//    that many of them. A section opened deeper leaves one record on its lock instead (thread,
//    release time and snapshot, and the ranges of its thread's logs it covers: DeepSections),
//    and the accesses made inside such sections are kept per (variable, thread) by log position.
//    Rule (a) from a record for x: does its thread's list for x meet the record's range (a binary
//    search). Every record of a lock is a release whose time a slot would have held, so joining
//    the records that qualify gives the same relation.
//  - Settled sections: while t holds l no other thread releases l, so once every release of l is
//    known to t's current event (LockReleaseTimes: the latest release time of l per clock slot),
//    no rule-(a) join through l can add anything until t releases it. The rule-(a) loop of an
//    access walks the thread's active sections only: those opened below the deep level and the
//    deeper ones not settled at their acquire or after a join. A deep section on a lock nobody
//    else released is settled at once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "racepred/engines/po/po_common.hpp"

namespace racepred::po {

// A growable array of trivially copyable values whose push_back is always inline (std::vector's
// is often left out of line in the large access handlers: a call per logged access).
template <class T>
class PodVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  PodVector() = default;
  PodVector(PodVector&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        cap_(std::exchange(o.cap_, 0)) {}
  PodVector& operator=(PodVector&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
    return *this;
  }
  ~PodVector() { std::free(data_); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  operator std::span<const T>() const { return {data_, size_}; }

  [[gnu::always_inline]] void push_back(T v) {
    if (size_ == cap_) [[unlikely]]
      grow();
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void resize_down(size_t n) { size_ = n; }  // n <= size()
  void erase(T* at) {
    std::memmove(at, at + 1, static_cast<size_t>(end() - at - 1) * sizeof(T));
    --size_;
  }

 private:
  [[gnu::noinline]] void grow() {
    cap_ = cap_ < 8 ? 8 : cap_ * 2;
    T* grown = static_cast<T*>(std::realloc(data_, cap_ * sizeof(T)));
    if (grown == nullptr) throw std::bad_alloc();
    data_ = grown;
  }
  T* data_ = nullptr;
  size_t size_ = 0, cap_ = 0;
};

// The open critical sections of each thread, with the accesses inside them as ranges of the
// thread's access logs, and the thread's active sections (see above).
class SectionLog {
 public:
  static constexpr uint64_t kNoPos = UINT64_MAX;
  struct Released {
    LockId lock = 0;
    uint32_t level = 0;         // open sections of the thread at the acquire
    uint64_t entry = 0;         // the engine's id of the section
    uint64_t from[2] = {0, 0};  // log positions of reads[0] and writes[0]
    std::span<const VariableId> reads, writes;
  };

  // lock_sets: keep the sorted lock set (locks()) for wdp's lock-set filter. A section opened at
  // level >= deep_level is deep.
  SectionLog(bool lock_sets, uint32_t deep_level)
      : lock_sets_(lock_sets), deep_level_(deep_level) {}

  uint32_t deep_level() const { return deep_level_; }
  // Open sections of t.
  uint32_t depth(ThreadId t) { return of(t).live; }
  // Open deep sections of t.
  bool in_deep(ThreadId t) { return of(t).deep != 0; }
  // The tokens of t's active sections.
  const PodVector<LockId>& active(ThreadId t) { return of(t).active; }
  // fn(token) for every open section of t.
  template <class Fn>
  void for_each(ThreadId t, Fn&& fn) {
    const Thread& th = of(t);
    for (size_t i = th.head; i < th.open.size(); ++i)
      if (th.open[i].lock != kGone) fn(th.open[i].lock);
  }
  const std::vector<LockId>& locks(ThreadId t) { return of(t).sorted; }
  // The annotated view's LH_t: "{l1,l2}" by name.
  AnnotationCell lock_set_column(ThreadId t, const Symbols& symbols) {
    return lock_set_cell(locks(t), symbols);
  }

  // A section on `token` opens; `active`: the rule-(a) loop looks at it.
  void acquire(ThreadId t, LockId token, uint64_t entry, bool active) {
    Thread& th = of(t);
    if (th.live == 0) {  // nothing open: the logs start afresh
      for (int k = 0; k < 2; ++k) {
        th.base[k] += th.log[k].size();
        th.log[k].clear();
      }
      th.open.clear();
      th.head = 0;
    }
    const uint32_t level = th.live++;
    th.deep += level >= deep_level_;
    th.open.push_back(
        Open{token, level, entry, {th.base[0] + th.log[0].size(), th.base[1] + th.log[1].size()}});
    if (active) th.active.push_back(token);
    if (lock_sets_)
      th.sorted.insert(std::upper_bound(th.sorted.begin(), th.sorted.end(), token), token);
  }
  // Logs the access for t's open sections (a repeat of the variable last logged inside the
  // innermost section is skipped: it is in every open section already). Its log position when
  // logged inside a deep section, else kNoPos.
  uint64_t access(const Event& e) {
    Thread& th = of(e.thread);
    if (th.live == 0) return kNoPos;
    return e.op == Op::Write ? access<1>(th, e.target) : access<0>(th, e.target);
  }

  // The per-access path of an engine looks a thread up once (thread()) and asks the rest of
  // that (a Thread stays valid until a thread not seen before is looked up).
  struct Thread;
  Thread& thread(ThreadId t) { return of(t); }
  // t has a section open.
  static bool holds(const Thread& th) { return th.live != 0; }
  static const PodVector<LockId>& active(const Thread& th) { return th.active; }
  // access(e) for an access of kind kKind (0: read, 1: write) while holds(th).
  template <int kKind>
  [[gnu::always_inline]] uint64_t access(Thread& th, VariableId x) {
    PodVector<VariableId>& log = th.log[kKind];
    const size_t n = log.size();
    if (n != 0 && log[n - 1] == x && th.base[kKind] + n > th.open.back().from[kKind]) return kNoPos;
    const uint64_t end = th.base[kKind] + n;
    log.push_back(x);
    return th.deep != 0 ? end : kNoPos;
  }
  // Closes t's section on `token` into `out` (its ranges stay valid until t's next acquire);
  // false when t does not hold it. `steps`: entries looked at.
  bool release(ThreadId t, LockId token, Released& out, uint64_t& steps) {
    Thread& th = of(t);
    size_t i = th.open.size();
    for (size_t seen = 0; i > th.head && seen < 4; ++seen)  // usually the innermost
      if (th.open[--i].lock == token) goto found;
    for (i = th.head; i < th.open.size(); ++i, ++steps)  // else usually the outermost
      if (th.open[i].lock == token) goto found;
    return false;
  found:
    const Open o = th.open[i];
    out.lock = token;
    out.level = o.level;
    out.entry = o.entry;
    for (int k = 0; k < 2; ++k) out.from[k] = o.from[k];
    out.reads = std::span<const VariableId>(th.log[0]).subspan(o.from[0] - th.base[0]);
    out.writes = std::span<const VariableId>(th.log[1]).subspan(o.from[1] - th.base[1]);
    th.open[i].lock = kGone;
    while (th.head < th.open.size() && th.open[th.head].lock == kGone) ++th.head;
    while (!th.open.empty() && th.open.back().lock == kGone) th.open.pop_back();
    --th.live;
    th.deep -= o.level >= deep_level_;
    remove(th.active, token, steps);
    if (lock_sets_) {
      auto& s = th.sorted;
      s.erase(std::lower_bound(s.begin(), s.end(), token));
    }
    return true;
  }
  // Drops the active sections of t for which settled(token) holds.
  template <class Settled>
  void settle(ThreadId t, Settled&& settled) {
    auto& a = of(t).active;
    a.resize_down(static_cast<size_t>(std::remove_if(a.begin(), a.end(), settled) - a.begin()));
  }

 private:
  static constexpr LockId kGone = UINT32_MAX;  // a section released out of order
  struct Open {
    LockId lock;  // token, kGone once released
    uint32_t level;
    uint64_t entry;
    uint64_t from[2];
  };

 public:
  struct Thread {
    std::vector<Open> open;  // in acquire order; open[..head) released
    size_t head = 0;
    uint32_t live = 0, deep = 0;
    PodVector<VariableId> log[2];  // [0] reads, [1] writes
    uint64_t base[2] = {0, 0};     // the position of log[k][0]
    PodVector<LockId> active;
    std::vector<LockId> sorted;
  };

 private:
  Thread& of(ThreadId t) {
    if (t >= threads_.size()) [[unlikely]]
      grow_to(threads_, t);
    return threads_[t];
  }
  static void remove(PodVector<LockId>& v, LockId token, uint64_t& steps) {
    if (!v.empty() && v.back() == token) {
      v.pop_back();
      return;
    }
    for (auto it = v.begin(); it != v.end(); ++it, ++steps)
      if (*it == token) {
        v.erase(it);
        return;
      }
  }

  std::vector<Thread> threads_;
  bool lock_sets_;
  uint32_t deep_level_;
};

// The rule-(a) records of deep sections (see the top of the file) and the accesses made inside
// deep sections, per (variable, thread) in log order.
class DeepSections {
 public:
  struct Release {
    ThreadId thread;
    uint32_t slot;            // the thread's clock slot
    Clock time;               // its local time at the release
    uint32_t snap;            // the engine's snapshot of the release's clock
    uint64_t from[2], to[2];  // the ranges of the thread's logs (reads, writes) inside
  };
  bool any() const { return any_; }
  // x was accessed inside a deep section.
  bool any(VariableId x) const { return x < vars_.size() && !vars_[x].empty(); }
  // t's access of x (kind 0: read, 1: write) at log position pos, inside a deep section.
  void accessed(ThreadId t, VariableId x, int kind, uint64_t pos) {
    any_ = true;
    grow_to(vars_, x);
    for (Accesses& a : vars_[x])
      if (a.thread == t) {
        a.pos[kind].push_back(pos);
        return;
      }
    vars_[x].push_back(Accesses{t, {}});
    vars_[x].back().pos[kind].push_back(pos);
  }
  void released(LockId l, const Release& r) {
    grow_to(locks_, l);
    locks_[l].push_back(r);
  }
  std::span<const Release> releases(LockId l) const {
    if (l >= locks_.size()) return {};
    return locks_[l];
  }
  // The section of r accessed x (kind).
  bool touched(const Release& r, VariableId x, int kind) const {
    if (r.from[kind] == r.to[kind] || x >= vars_.size()) return false;
    for (const Accesses& a : vars_[x])
      if (a.thread == r.thread) {
        const auto it = std::lower_bound(a.pos[kind].begin(), a.pos[kind].end(), r.from[kind]);
        return it != a.pos[kind].end() && *it < r.to[kind];
      }
    return false;
  }
  // fn(snapshot) for every record (to release the engine's references).
  template <class Fn>
  void for_each_snapshot(Fn&& fn) const {
    for (const auto& list : locks_)
      for (const Release& r : list) fn(r.snap);
  }

 private:
  struct Accesses {
    ThreadId thread;
    std::vector<uint64_t> pos[2];
  };
  std::vector<std::vector<Accesses>> vars_;
  std::vector<std::vector<Release>> locks_;
  bool any_ = false;
};

// The latest release time of each lock per clock slot (the releases of every mode), for the
// settled test: every release of l is known to a clock.
class LockReleaseTimes {
 public:
  void released(LockId l, uint32_t slot, ThreadId t, Clock time) {
    if (l >= by_lock_.size()) [[unlikely]]
      grow_to(by_lock_, l);
    std::vector<At>& v = by_lock_[l];
    if (slot >= v.size()) [[unlikely]]
      v.resize(size_t{slot} + 1);
    At& a = v[slot];
    if (a.last != t && a.last != kNoThread) a.mixed = true;
    a.last = t;
    a.time = time;
  }
  // Every release of l is known to `known` (by slot), t's own releases in its slot s aside.
  bool known(LockId l, const Clock* known, uint32_t s, ThreadId t, uint64_t& steps) const {
    if (l >= by_lock_.size()) return true;
    const std::vector<At>& v = by_lock_[l];
    steps += v.size();
    for (size_t u = 0; u < v.size(); ++u) {
      if (v[u].time <= known[u]) continue;
      if (u == s && v[u].last == t && !v[u].mixed) continue;
      return false;
    }
    return true;
  }

 private:
  struct At {
    Clock time = 0;
    ThreadId last = kNoThread;
    bool mixed = false;  // some earlier release in the slot was by another thread than `last`
  };
  std::vector<std::vector<At>> by_lock_;
};

}  // namespace racepred::po
