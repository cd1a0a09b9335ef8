// osr: optimistic synchronisation-reversal races (Shi, Mathur and Pavlogiannis, "Optimistic
// prediction of synchronization-reversal data races", ICSE 2024), an offline engine on the run's
// TraceIndex. The definitions and the plan are in osr.hpp; docs/ENGINES.md ("osr") has the costs.
#include "racepred/engines/osr/osr.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>

#include "racepred/engines/engine.hpp"
#include "racepred/engines/index_race.hpp"
#include "racepred/engines/pair_check_engine.hpp"
#include "racepred/engines/witness_source.hpp"

namespace racepred {
namespace osr {
namespace {

// A critical section, in its thread's list of sections (all locks, in acquire order).
struct Section {
  uint32_t acquire_pos = 0;         // position of the acquire in the thread
  uint32_t release_pos = kNoIndex;  // position of the release, or none (held at the end)
  uint32_t acquire = 0;             // index of the acquire in the trace
  uint32_t outer = kNoIndex;        // the latest section of the thread held at the acquire
  LockId lock = 0;
  bool write = true;
};

// A forward-only position in a sorted list while one thread's successors are built (valid when
// `stamp` is that thread + 1).
struct Cursor {
  uint32_t stamp = 0;
  uint32_t at = 0;
};

// One thread's released sections of one lock, in order (they do not overlap).
struct LockThread {
  ThreadId thread = 0;
  std::vector<uint32_t> release_pos;    // positions in the thread
  std::vector<uint32_t> release;        // trace indices
  std::vector<uint32_t> latest_write;   // the latest write-section release up to here, or none
  std::vector<uint32_t> acquire;        // trace indices of its acquires (all sections)
  std::vector<uint32_t> write_acquire;  // trace indices of its write-section acquires
  Cursor succ[2];                       // into acquire, write_acquire
};

// The direct P-successors in one thread `to` of the events of another (the paper's successor
// queries): for each event with a P edge into `to`, its position and the position in `to` of
// its earliest P-successor there; `tree` is a minimum segment tree over those targets.
struct Successors {
  ThreadId to = 0;
  std::vector<uint32_t> source;
  std::vector<uint32_t> tree;  // leaves at [m, 2m)

  // The earliest target of the sources in positions [lo, hi), or kNoIndex.
  uint32_t earliest(uint32_t lo, uint32_t hi) const {
    const uint32_t m = static_cast<uint32_t>(source.size());
    uint32_t a =
        static_cast<uint32_t>(std::lower_bound(source.begin(), source.end(), lo) - source.begin()) +
        m;
    uint32_t b =
        static_cast<uint32_t>(std::lower_bound(source.begin(), source.end(), hi) - source.begin()) +
        m;
    uint32_t best = kNoIndex;
    for (; a < b; a >>= 1, b >>= 1) {
      if (a & 1) best = std::min(best, tree[a++]);
      if (b & 1) best = std::min(best, tree[--b]);
    }
    return best;
  }
};

// A lock an access holds, and the first later candidate of its list that does not hold it
// (next_any) or does not hold it in write mode (next_write).
struct Hold {
  LockId lock = 0;
  bool write = true;
  uint32_t next_any = 0;
  uint32_t next_write = 0;
};

// u's reads (kind 0) or writes (kind 1) of one variable: positions in u, the locks each holds.
struct Candidates {
  std::vector<uint32_t> pos;
  // The holds of candidate c: holds_[hold_begin[c], hold_end[c]).
  std::vector<uint32_t> hold_begin, hold_end;
  uint32_t visible = 0;  // candidates before the current event (second pass)
  Cursor succ;
};

// The cursor of one key (t, kind): candidates before it are TRF-before t's current access.
struct Key {
  ThreadId thread = 0;
  uint8_t kind = 0;
  uint32_t cursor = 0;
  // A closure kept to resume from: S(candidate `stored`, an earlier access of t), T words at
  // `ideal` in the keys' pool (S grows with both accesses, so it lies inside later ones).
  uint32_t stored = kNoIndex;
  uint32_t ideal = kNoIndex;
};

struct VarThread {
  ThreadId thread = 0;
  Candidates lists[2];
  std::vector<Key> keys;
};

// An open section after the fixpoint.
struct Open {
  LockId lock = 0;
  bool write = true;
  uint32_t acquire = 0;
  ThreadId thread = 0;
};

constexpr uint32_t kMaxThreads = 8192;  // the TRF clocks are dense: T words per thread

class Analysis {
 public:
  explicit Analysis(const TraceIndex& index)
      : index_(index),
        threads_(index.thread_count()),
        clock_(size_t{threads_} * threads_, 0),
        snapshot_pos_(threads_),
        snapshots_(threads_),
        sections_(threads_),
        held_(threads_),
        locks_(index.lock_count()),
        variables_(index.variable_count()),
        v_(threads_, 0) {
    build();
  }

  // The second pass: report(e1, e2) for every race (index positions), in order of e2, then e1.
  template <class Report>
  void run(Report&& report) {
    std::vector<uint32_t> found;
    std::vector<std::pair<LockId, bool>> mine;
    for (uint32_t i = 0; i < index_.size(); ++i) {
      const Event& e = index_.event(i);
      if (!e.is_access() || !shared_[e.target]) continue;
      const ThreadId t = e.thread;
      const uint32_t p2 = index_.index_in_thread(i);
      held_at(t, p2, mine);
      found.clear();
      for (VarThread& other : variables_[e.target]) {
        if (other.thread == t) continue;
        for (uint8_t kind = e.op == Op::Write ? 0 : 1; kind < 2; ++kind) {
          Candidates& list = other.lists[kind];
          if (list.visible == 0) continue;
          const uint32_t c = next_race(key_of(other, t, kind), list, other.thread, t, p2, mine);
          if (c != kNoIndex) found.push_back(index_.thread_events(other.thread)[list.pos[c]]);
        }
      }
      std::sort(found.begin(), found.end());
      for (const uint32_t first : found) report(first, i);
      VarThread& own = var_thread(e.target, t);
      ++own.lists[e.op == Op::Write ? 1 : 0].visible;
    }
  }

  // S(e1, e2) and whether (e1, e2) is a race; `order` (when not null) gets the witness prefix.
  bool check(uint32_t e1, uint32_t e2, std::vector<uint32_t>* order) {
    return check(index_.event(e1).thread, index_.index_in_thread(e1), index_.event(e2).thread,
                 index_.index_in_thread(e2), order);
  }
  const std::vector<uint32_t>& closure(uint32_t e1, uint32_t e2) {
    const ThreadId u = index_.event(e1).thread, t = index_.event(e2).thread;
    const uint32_t p1 = index_.index_in_thread(e1), p2 = index_.index_in_thread(e2);
    close(u, p1, t, p2);
    return v_;
  }

 private:
  // The first pass: TRF snapshots, sections, lock lists, candidate lists with their holds.
  void build() {
    // The variables that two threads access (the others are thread-local: no pair, no edge).
    {
      std::vector<ThreadId> first(variables_.size(), kNoIndex);
      shared_.assign(variables_.size(), 0);
      for (uint32_t i = 0; i < index_.size(); ++i) {
        const Event& e = index_.event(i);
        if (!e.is_access()) continue;
        ThreadId& f = first[e.target];
        if (f == kNoIndex)
          f = e.thread;
        else if (f != e.thread)
          shared_[e.target] = 1;
      }
    }
    for (uint32_t i = 0; i < index_.size(); ++i) {
      const Event& e = index_.event(i);
      const ThreadId t = e.thread;
      const uint32_t p = index_.index_in_thread(i);
      uint32_t* th = clock_.data() + size_t{t} * threads_;
      if (p == 0) push_snapshot(t, 0);
      bool changed = false;
      switch (e.op) {
        case Op::Read:
        case Op::Write: {
          // A variable of one thread has neither candidates nor P edges between threads.
          if (shared_[e.target]) {
            Candidates& list = var_thread(e.target, t).lists[e.op == Op::Write ? 1 : 0];
            list.pos.push_back(p);
            list.hold_begin.push_back(static_cast<uint32_t>(holds_.size()));
            for (const uint32_t h : held_[t]) {
              const Section& s = sections_[t][h];
              holds_.push_back(Hold{s.lock, s.write, 0, 0});
            }
            list.hold_end.push_back(static_cast<uint32_t>(holds_.size()));
          }
          if (e.op == Op::Read) {
            const uint32_t w = index_.last_write(i);
            if (w != kNoIndex) changed |= raise_to(th, index_.event(w).thread, w);
          }
          break;
        }
        case Op::Acquire:
        case Op::ReadAcquire: {
          LockThread& lt = lock_thread(e.target, t);
          lt.acquire.push_back(i);
          if (e.op == Op::Acquire) lt.write_acquire.push_back(i);
          const uint32_t r = index_.matching(i);
          Section s;
          s.acquire_pos = p;
          s.release_pos = r == kNoIndex ? kNoIndex : index_.index_in_thread(r);
          s.acquire = i;
          s.outer = held_[t].empty() ? kNoIndex : held_[t].back();
          s.lock = e.target;
          s.write = e.op == Op::Acquire;
          held_[t].push_back(static_cast<uint32_t>(sections_[t].size()));
          sections_[t].push_back(s);
          break;
        }
        case Op::Release:
        case Op::ReadRelease: {
          auto& held = held_[t];
          const uint32_t a = index_.matching(i);
          for (size_t k = held.size(); k-- > 0;) {
            if (sections_[t][held[k]].acquire == a) {
              held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
              break;
            }
          }
          LockThread& lt = lock_thread(e.target, t);
          const uint32_t before = lt.latest_write.empty() ? kNoIndex : lt.latest_write.back();
          lt.release_pos.push_back(p);
          lt.release.push_back(i);
          lt.latest_write.push_back(e.op == Op::Release ? i : before);
          break;
        }
        case Op::Fork: {
          uint32_t* child = clock_.data() + size_t{e.target} * threads_;
          for (uint32_t w = 0; w < threads_; ++w) child[w] = std::max(child[w], th[w]);
          child[t] = std::max(child[t], p + 1);
          break;
        }
        case Op::Join: {
          const uint32_t n = clock_[size_t{e.target} * threads_ + e.target];
          if (n > 0 && th[e.target] < n) {
            join_row(th, clock_.data() + size_t{e.target} * threads_);
            changed = true;
          }
          break;
        }
        case Op::Recv:
          for (const uint32_t s : index_.sends_before(i))
            if (index_.event(s).thread != t) changed |= raise_to(th, index_.event(s).thread, s);
          break;
        case Op::Send:
        case Op::Request:
        case Op::ReadRequest:
          break;
      }
      th[t] = p + 1;
      if (changed) push_snapshot(t, p + 1);
    }
    // The skip links, backwards through each list.
    for (auto& vars : variables_) {
      for (VarThread& vt : vars) {
        for (Candidates& list : vt.lists) {
          const uint32_t n = static_cast<uint32_t>(list.pos.size());
          for (uint32_t c = n; c-- > 0;) {
            for (uint32_t h = list.hold_begin[c]; h < list.hold_end[c]; ++h) {
              Hold& hold = holds_[h];
              hold.next_any = hold.next_write = c + 1;
              if (c + 1 == n) continue;
              for (uint32_t g = list.hold_begin[c + 1]; g < list.hold_end[c + 1]; ++g) {
                if (holds_[g].lock != hold.lock) continue;
                hold.next_any = holds_[g].next_any;
                if (holds_[g].write) hold.next_write = holds_[g].next_write;
              }
            }
          }
        }
      }
    }
    build_successors();
  }

  // The successor lists: every P edge between two threads, by its source thread. P's edges
  // between threads: a write to every later access of its variable and a read to every later
  // write; a release to every later acquire of its lock (not from a read release to a read
  // acquire); a fork to the child's first event; a thread's last event to its join; a send to
  // every later recv on its object. Only the earliest target in each thread is kept.
  void build_successors() {
    // Fork, join and send edges, by source.
    struct Extra {
      uint32_t source = 0;
      ThreadId to = 0;
      uint32_t target = 0;
    };
    std::vector<Extra> extra;
    for (uint32_t i = 0; i < index_.size(); ++i) {
      const Event& e = index_.event(i);
      const uint32_t p = index_.index_in_thread(i);
      if (e.op == Op::Fork && e.target != e.thread && !index_.thread_events(e.target).empty()) {
        extra.push_back(Extra{i, e.target, 0});
      } else if (e.op == Op::Join && e.target != e.thread &&
                 !index_.thread_events(e.target).empty()) {
        const uint32_t last = index_.thread_events(e.target).back();
        if (last < i) extra.push_back(Extra{last, e.thread, p});
      } else if (e.op == Op::Recv) {
        for (const uint32_t s : index_.sends_before(i))
          if (index_.event(s).thread != e.thread) extra.push_back(Extra{s, e.thread, p});
      }
    }
    std::sort(extra.begin(), extra.end(), [](const Extra& a, const Extra& b) {
      return a.source != b.source ? a.source < b.source : a.target < b.target;
    });
    succ_.assign(threads_, {});
    std::vector<uint32_t> best(threads_, kNoIndex);
    std::vector<uint32_t> slot(threads_, kNoIndex);
    std::vector<ThreadId> touched;
    const auto offer = [&](ThreadId j, uint32_t target) {
      if (best[j] == kNoIndex) touched.push_back(j);
      best[j] = std::min(best[j], target);
    };
    // The events of w come in trace order, so each list is searched from where the previous
    // event of w left it (a cursor per list and w).
    ThreadId stamp = 0;
    // The first position of `list` (positions in thread j) whose event is after trace index i.
    const auto first_after = [&](Candidates& list, ThreadId j, uint32_t i) {
      const auto& events = index_.thread_events(j);
      Cursor& c = list.succ;
      if (c.stamp != stamp) c = Cursor{stamp, 0};
      while (c.at < list.pos.size() && events[list.pos[c.at]] < i) ++c.at;
      return c.at == list.pos.size() ? kNoIndex : list.pos[c.at];
    };
    const auto first_index_after = [&](const std::vector<uint32_t>& list, Cursor& c, uint32_t i) {
      if (c.stamp != stamp) c = Cursor{stamp, 0};
      while (c.at < list.size() && list[c.at] < i) ++c.at;
      return c.at == list.size() ? kNoIndex : index_.index_in_thread(list[c.at]);
    };
    for (ThreadId w = 0; w < threads_; ++w) {
      stamp = w + 1;
      auto& out = succ_[w];
      const auto& events = index_.thread_events(w);
      for (uint32_t p = 0; p < events.size(); ++p) {
        const uint32_t i = events[p];
        const Event& e = index_.event(i);
        touched.clear();
        switch (e.op) {
          case Op::Read:
          case Op::Write:
            for (VarThread& vt : variables_[e.target]) {
              if (vt.thread == w) continue;
              uint32_t t = first_after(vt.lists[1], vt.thread, i);
              if (e.op == Op::Write) t = std::min(t, first_after(vt.lists[0], vt.thread, i));
              if (t != kNoIndex) offer(vt.thread, t);
            }
            break;
          case Op::Release:
          case Op::ReadRelease:
            for (LockThread& lt : locks_[e.target]) {
              if (lt.thread == w) continue;
              const uint32_t t = e.op == Op::Release
                                     ? first_index_after(lt.acquire, lt.succ[0], i)
                                     : first_index_after(lt.write_acquire, lt.succ[1], i);
              if (t != kNoIndex) offer(lt.thread, t);
            }
            break;
          default:
            break;
        }
        const auto from = std::lower_bound(extra.begin(), extra.end(), i,
                                           [](const Extra& x, uint32_t v) { return x.source < v; });
        for (auto it = from; it != extra.end() && it->source == i; ++it)
          if (it->to != w) offer(it->to, it->target);
        for (const ThreadId j : touched) {
          if (slot[j] == kNoIndex) {
            slot[j] = static_cast<uint32_t>(out.size());
            out.emplace_back().to = j;
          }
          Successors& s = out[slot[j]];
          s.source.push_back(p);
          s.tree.push_back(best[j]);
          best[j] = kNoIndex;
        }
      }
      for (Successors& s : out) {
        slot[s.to] = kNoIndex;
        const size_t m = s.source.size();
        s.tree.insert(s.tree.begin(), m, kNoIndex);
        for (size_t k = m; k-- > 1;) s.tree[k] = std::min(s.tree[2 * k], s.tree[2 * k + 1]);
        s.tree.shrink_to_fit();
      }
    }
  }

  // The earliest position in each thread that the event at position p of w reaches by P within
  // S (v_), into reach_ (kNoIndex: none). Threads are settled in the trace order of the earliest
  // event reached in them, as P's edges go forward in the trace (Dijkstra's order).
  void reach_from(ThreadId w, uint32_t p) {
    reach_.assign(threads_, kNoIndex);
    settled_.assign(threads_, 0);
    reach_[w] = p;
    for (;;) {
      ThreadId x = kNoIndex;
      uint32_t at = kNoIndex;
      for (ThreadId y = 0; y < threads_; ++y) {
        if (settled_[y] || reach_[y] >= v_[y]) continue;
        const uint32_t i = index_.thread_events(y)[reach_[y]];
        if (i < at) {
          at = i;
          x = y;
        }
      }
      if (x == kNoIndex) return;
      settled_[x] = 1;
      for (const Successors& s : succ_[x]) {
        if (settled_[s.to]) continue;
        reach_[s.to] = std::min(reach_[s.to], s.earliest(reach_[x], v_[x]));
      }
    }
  }

  // Whether P ∪ B on S (v_) has a cycle, by the abstract graph over the reversed sections: a
  // cycle of P ∪ B takes some B edge (P goes forward in the trace), so there is one iff the
  // graph with an edge o -> o' whenever o's acquire reaches by P, within S, a release with a B
  // edge into o' has a cycle. `reversed_` holds those releases per open section.
  // `cycle` (when not null) gets the open sections (indices into open_) on a cycle found.
  bool cyclic(std::vector<uint32_t>* cycle) {
    const size_t k = open_.size();
    abstract_.assign(k * k, 0);
    for (size_t a = 0; a < k; ++a) {
      if (rev_begin_[a] == rev_begin_[a + 1]) continue;
      reach_from(open_[a].thread, index_.index_in_thread(open_[a].acquire));
      for (size_t b = 0; b < k; ++b)
        for (uint32_t r = rev_begin_[b]; r < rev_begin_[b + 1]; ++r)
          if (reach_[reversed_[r].first] <= reversed_[r].second) abstract_[a * k + b] = 1;
    }
    // Cycle detection on k nodes (k is small: the sections open at S's frontier).
    color_.assign(k, 0);
    std::vector<uint32_t> path;
    const auto dfs = [&](auto&& self, size_t a) -> bool {
      color_[a] = 1;
      if (cycle != nullptr) path.push_back(static_cast<uint32_t>(a));
      for (size_t b = 0; b < k; ++b) {
        if (!abstract_[a * k + b]) continue;
        if (color_[b] == 1) {
          if (cycle != nullptr)
            cycle->assign(std::find(path.begin(), path.end(), static_cast<uint32_t>(b)),
                          path.end());
          return true;
        }
        if (color_[b] == 0 && self(self, b)) return true;
      }
      color_[a] = 2;
      if (cycle != nullptr) path.pop_back();
      return false;
    };
    for (size_t a = 0; a < k; ++a)
      if (color_[a] == 0 && dfs(dfs, a)) return true;
    return false;
  }

  // th joined with pre(w, position of event j + 1); whether th changed.
  bool raise_to(uint32_t* th, ThreadId w, uint32_t j) {
    const uint32_t q = index_.index_in_thread(j) + 1;
    if (th[w] >= q) return false;
    join_pre(th, w, q);
    return true;
  }
  void join_row(uint32_t* th, const uint32_t* row) const {
    for (uint32_t w = 0; w < threads_; ++w) th[w] = std::max(th[w], row[w]);
  }

  void push_snapshot(ThreadId t, uint32_t p) {
    const uint32_t* th = clock_.data() + size_t{t} * threads_;
    if (!snapshot_pos_[t].empty() && snapshot_pos_[t].back() == p) {
      std::copy(th, th + threads_, snapshots_[t].end() - threads_);
      return;
    }
    snapshot_pos_[t].push_back(p);
    snapshots_[t].insert(snapshots_[t].end(), th, th + threads_);
  }

  // pre(u, p) joined into v_. A thread's stored clocks only grow along it, so a clock no later
  // than the latest one of u already joined (joined_[u], 1-based) adds nothing but v_[u]. The
  // callers reset joined_ whenever v_ is set otherwise than by joins.
  void join_into_v(ThreadId u, uint32_t p) {
    const auto& pos = snapshot_pos_[u];
    const auto k = static_cast<uint32_t>(std::upper_bound(pos.begin(), pos.end(), p) - pos.begin());
    if (k > joined_[u]) {
      joined_[u] = k;
      const uint32_t* row = snapshots_[u].data() + size_t{k - 1} * threads_;
      uint32_t* v = v_.data();
      for (uint32_t w = 0, n = threads_; w < n; ++w)
        if (w != u) v[w] = std::max(v[w], row[w]);
    }
    v_[u] = std::max(v_[u], p);
  }

  // The stored TRF clock in effect for pre(u, p), or nullptr (nothing before the thread's start).
  const uint32_t* snapshot(ThreadId u, uint32_t p) const {
    const auto& pos = snapshot_pos_[u];
    const size_t k = static_cast<size_t>(std::upper_bound(pos.begin(), pos.end(), p) - pos.begin());
    return k == 0 ? nullptr : snapshots_[u].data() + (k - 1) * threads_;
  }

  // pre(u, p) joined into v: the first p events of u with their TRF-predecessors.
  void join_pre(uint32_t* v, ThreadId u, uint32_t p) const {
    if (const uint32_t* s = snapshot(u, p))
      for (uint32_t w = 0; w < threads_; ++w)
        if (w != u) v[w] = std::max(v[w], s[w]);
    v[u] = std::max(v[u], p);
  }

  // Whether pre(w, q) holds position p of thread x.
  bool pre_holds(ThreadId w, uint32_t q, ThreadId x, uint32_t p) const {
    if (x == w) return q > p;
    const uint32_t* s = snapshot(w, q);
    return s != nullptr && s[x] > p;
  }

  VarThread& var_thread(VariableId x, ThreadId t) {
    auto& list = variables_[x];
    for (VarThread& r : list)
      if (r.thread == t) return r;
    list.emplace_back().thread = t;
    return list.back();
  }
  LockThread& lock_thread(LockId l, ThreadId t) {
    auto& list = locks_[l];
    for (LockThread& r : list)
      if (r.thread == t) return r;
    list.emplace_back().thread = t;
    return list.back();
  }
  static Key& key_of(VarThread& other, ThreadId t, uint8_t kind) {
    for (Key& k : other.keys)
      if (k.thread == t && k.kind == kind) return k;
    Key& k = other.keys.emplace_back();
    k.thread = t;
    k.kind = kind;
    return k;
  }

  // The sections of w whose acquire is before position q: their count.
  size_t started(ThreadId w, uint32_t q) const {
    const auto& s = sections_[w];
    return static_cast<size_t>(
        std::lower_bound(s.begin(), s.end(), q,
                         [](const Section& c, uint32_t x) { return c.acquire_pos < x; }) -
        s.begin());
  }

  // The locks (with their mode) that thread t holds at position p.
  void held_at(ThreadId t, uint32_t p, std::vector<std::pair<LockId, bool>>& out) const {
    out.clear();
    const auto& s = sections_[t];
    const size_t n = started(t, p);
    for (uint32_t c = n == 0 ? kNoIndex : static_cast<uint32_t>(n - 1); c != kNoIndex;
         c = s[c].outer)
      if (s[c].release_pos == kNoIndex || s[c].release_pos > p)
        out.emplace_back(s[c].lock, s[c].write);
  }

  // The earliest candidate of `list` (from the key's cursor) racing with e2 (position p2 of
  // t, holding `mine`), or kNoIndex.
  uint32_t next_race(Key& key, const Candidates& list, ThreadId u, ThreadId t, uint32_t p2,
                     const std::vector<std::pair<LockId, bool>>& mine) {
    const uint32_t* pre2 = snapshot(t, p2);
    const uint32_t before = pre2 == nullptr ? 0 : pre2[u];
    while (key.cursor < list.visible && list.pos[key.cursor] < before) ++key.cursor;
    uint32_t c = key.cursor;
    bool first = true;
    while (c < list.visible) {
      const uint32_t skip = blocked(list, c, mine);
      if (skip != kNoIndex) {
        c = std::max(skip, c + 1);
        continue;
      }
      // The first check of this e2 resumes from the key's closure when that is for an earlier
      // candidate; the next ones from the previous check's (candidates only move forward).
      if (first) {
        if (key.stored != kNoIndex && key.stored <= c)
          std::copy_n(ideals_.data() + key.ideal, threads_, v_.data());
        else
          std::fill(v_.begin(), v_.end(), 0);
        joined_.assign(threads_, 0);
      }
      const bool racy = check(u, list.pos[c], t, p2, nullptr, true, !first);
      if (first) {
        if (key.ideal == kNoIndex) {
          key.ideal = static_cast<uint32_t>(ideals_.size());
          ideals_.resize(ideals_.size() + threads_, 0);
        }
        std::copy_n(v_.data(), threads_, ideals_.data() + key.ideal);
        key.stored = c;
        first = false;
      }
      if (racy) return c;
      ++c;
    }
    return kNoIndex;
  }

  // When candidate c holds a lock that e2 holds too, not both in read mode (two open sections
  // of one lock): the next candidate that does not hold it so; otherwise kNoIndex.
  uint32_t blocked(const Candidates& list, uint32_t c,
                   const std::vector<std::pair<LockId, bool>>& mine) const {
    for (uint32_t h = list.hold_begin[c]; h < list.hold_end[c]; ++h) {
      const Hold& hold = holds_[h];
      for (const auto& [lock, write] : mine) {
        if (lock != hold.lock || (!write && !hold.write)) continue;
        return write ? hold.next_any : hold.next_write;
      }
    }
    return kNoIndex;
  }

  // S(e1, e2) into v_: e1 at position p1 of u, e2 at p2 of t.
  // `resume`: v_ already holds a subset of S (a closure for earlier accesses of u and t).
  // `keep`: v_ is the previous closure's result for an earlier candidate of the same second
  // access, and seen_ still holds for it.
  void close(ThreadId u, uint32_t p1, ThreadId t, uint32_t p2, bool resume = false,
             bool keep = false) {
    if (!resume) {
      std::fill(v_.begin(), v_.end(), 0);
      joined_.assign(threads_, 0);
    }
    join_into_v(t, p2);
    join_into_v(u, p1);
    // A thread whose frontier lies in no section that a later candidate could close (each is
    // closed in S or never released) is looked at again only when its frontier moves.
    if (!keep) seen_.assign(threads_, kNoIndex);
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t w = 0; w < threads_; ++w) {
        const uint32_t q = v_[w];
        if (seen_[w] == q) continue;
        bool open = false;
        const auto& s = sections_[w];
        const size_t n = started(w, q);
        for (uint32_t c = n == 0 ? kNoIndex : static_cast<uint32_t>(n - 1); c != kNoIndex;
             c = s[c].outer) {
          const Section& sec = s[c];
          if (sec.release_pos != kNoIndex && sec.release_pos < q) continue;  // closed in S
          if (sec.release_pos == kNoIndex) continue;                         // never released
          const uint32_t end = sec.release_pos + 1;
          if (pre_holds(w, end, u, p1) || pre_holds(w, end, t, p2)) {  // open
            open = true;
            continue;
          }
          join_into_v(w, end);
          changed = true;
          open = true;  // w's frontier moved: looked at again
          break;
        }
        if (!open) seen_[w] = q;
      }
    }
  }

  bool check(ThreadId u, uint32_t p1, ThreadId t, uint32_t p2, std::vector<uint32_t>* order,
             bool resume = false, bool keep = false) {
    close(u, p1, t, p2, resume, keep);
    if (v_[u] > p1 || v_[t] > p2) return false;
    if (!find_open(nullptr)) return false;
    if (!find_reversed()) {
      if (order != nullptr) {
        order->clear();
        for (uint32_t i = 0; i < index_.size(); ++i)
          if (index_.index_in_thread(i) < v_[index_.event(i).thread]) order->push_back(i);
      }
      return true;
    }
    if (order == nullptr) return !cyclic(nullptr);
    return linearise(order);
  }

 public:
  // The same verdict as check, with its reasons.
  Explanation explain(uint32_t e1, uint32_t e2) {
    Explanation x;
    const ThreadId u = index_.event(e1).thread, t = index_.event(e2).thread;
    const uint32_t p1 = index_.index_in_thread(e1), p2 = index_.index_in_thread(e2);
    close(u, p1, t, p2);
    x.closure = v_;
    if (v_[u] > p1 || v_[t] > p2) {
      x.verdict = Explanation::Verdict::Ordered;
      return x;
    }
    LockId bad = 0;
    const bool one_each = find_open(&bad);
    for (const Open& o : open_) x.open.push_back(o.acquire);
    if (!one_each) {
      x.verdict = Explanation::Verdict::TwoOpen;
      x.lock = bad;
      return x;
    }
    if (!find_reversed()) return x;
    for (const auto& [w, q] : reversed_) x.reversed.push_back(index_.thread_events(w)[q]);
    std::vector<uint32_t> cycle;
    if (cyclic(&cycle)) {
      x.verdict = Explanation::Verdict::Cycle;
      for (const uint32_t a : cycle) x.cycle.push_back(open_[a].acquire);
    }
    return x;
  }

 private:
  // The open sections of S (v_), those held at each thread's frontier, into open_ (by lock);
  // false when a lock has two of them, not all read sections (that lock into `bad`).
  bool find_open(LockId* bad) {
    open_.clear();
    for (uint32_t w = 0; w < threads_; ++w) {
      const uint32_t q = v_[w];
      const auto& s = sections_[w];
      const size_t n = started(w, q);
      for (uint32_t c = n == 0 ? kNoIndex : static_cast<uint32_t>(n - 1); c != kNoIndex;
           c = s[c].outer)
        if (s[c].release_pos == kNoIndex || s[c].release_pos >= q)
          open_.push_back(Open{s[c].lock, s[c].write, s[c].acquire, w});
    }
    std::sort(open_.begin(), open_.end(),
              [](const Open& a, const Open& b) { return a.lock < b.lock; });
    for (size_t k = 0; k < open_.size();) {
      size_t j = k;
      bool any_write = false;
      while (j < open_.size() && open_[j].lock == open_[k].lock) any_write |= open_[j++].write;
      if (j - k > 1 && any_write) {
        if (bad != nullptr) *bad = open_[k].lock;
        return false;
      }
      k = j;
    }
    return true;
  }

  // B: the open sections that a later release in S must precede. Per open section, per thread,
  // the latest release in S that must precede it although it is later in the trace (the
  // earlier releases of that thread precede it in thread order), into reversed_ and
  // rev_begin_. Whether there is any.
  bool find_reversed() {
    bool reversed = false;
    reversed_.clear();
    rev_begin_.assign(1, 0);
    for (const Open& o : open_) {
      for (const LockThread& lt : locks_[o.lock]) {
        const size_t k = static_cast<size_t>(
            std::lower_bound(lt.release_pos.begin(), lt.release_pos.end(), v_[lt.thread]) -
            lt.release_pos.begin());
        if (k == 0) continue;
        const uint32_t r = o.write ? lt.release[k - 1] : lt.latest_write[k - 1];
        if (r == kNoIndex || r < o.acquire) continue;
        reversed_.emplace_back(lt.thread, index_.index_in_thread(r));
        reversed = true;
      }
      rev_begin_.push_back(static_cast<uint32_t>(reversed_.size()));
    }
    return reversed;
  }

  // A linearisation of S (v_) by P ∪ B, greedily: an event runs once every event it must follow
  // has run. The requirements are counts of events of S earlier in the trace: of writes (and,
  // for a write, reads) of its variable, of releases (write-section releases, for a read-mode
  // acquire) of its lock, all of them for an open section. Fails iff P ∪ B has a cycle.
  bool linearise(std::vector<uint32_t>* order) {
    const uint32_t n = static_cast<uint32_t>(index_.size());
    if (need_.size() < n) need_.resize(n);
    if (reads_.size() < index_.variable_count()) {
      reads_.resize(index_.variable_count());
      writes_.resize(index_.variable_count());
    }
    if (releases_.size() < index_.lock_count()) {
      releases_.resize(index_.lock_count());
      write_releases_.resize(index_.lock_count());
    }
    const auto in_s = [&](uint32_t i) {
      return index_.index_in_thread(i) < v_[index_.event(i).thread];
    };
    std::fill(reads_.begin(), reads_.end(), 0);
    std::fill(writes_.begin(), writes_.end(), 0);
    std::fill(releases_.begin(), releases_.end(), 0);
    std::fill(write_releases_.begin(), write_releases_.end(), 0);
    for (uint32_t i = 0; i < n; ++i) {
      if (!in_s(i)) continue;
      const Event& e = index_.event(i);
      switch (e.op) {
        case Op::Read:
          need_[i] = {writes_[e.target], 0};
          ++reads_[e.target];
          break;
        case Op::Write:
          need_[i] = {writes_[e.target], reads_[e.target]};
          ++writes_[e.target];
          break;
        case Op::Acquire:
          need_[i] = {releases_[e.target], 0};
          break;
        case Op::ReadAcquire:
          need_[i] = {write_releases_[e.target], 0};
          break;
        case Op::Release:
          ++write_releases_[e.target];
          ++releases_[e.target];
          break;
        case Op::ReadRelease:
          ++releases_[e.target];
          break;
        default:
          break;
      }
    }
    // An open section waits for every release in S (of a write section, for a read one).
    for (const Open& o : open_)
      need_[o.acquire].first = o.write ? releases_[o.lock] : write_releases_[o.lock];
    std::fill(reads_.begin(), reads_.end(), 0);
    std::fill(writes_.begin(), writes_.end(), 0);
    std::fill(releases_.begin(), releases_.end(), 0);
    std::fill(write_releases_.begin(), write_releases_.end(), 0);
    ran_.assign(threads_, 0);
    if (order != nullptr) order->clear();
    const auto done = [&](uint32_t j) {
      return ran_[index_.event(j).thread] > index_.index_in_thread(j);
    };
    uint32_t left = 0;
    for (uint32_t w = 0; w < threads_; ++w) left += v_[w];
    for (bool progress = true; progress && left > 0;) {
      progress = false;
      for (uint32_t w = 0; w < threads_; ++w) {
        while (ran_[w] < v_[w]) {
          const uint32_t i = index_.thread_events(w)[ran_[w]];
          const Event& e = index_.event(i);
          if (ran_[w] == 0 && index_.fork_of(w) != kNoIndex && !done(index_.fork_of(w))) break;
          bool ready = true;
          switch (e.op) {
            case Op::Read:
              ready = writes_[e.target] >= need_[i].first;
              break;
            case Op::Write:
              ready = writes_[e.target] >= need_[i].first && reads_[e.target] >= need_[i].second;
              break;
            case Op::Acquire:
              ready = releases_[e.target] >= need_[i].first;
              break;
            case Op::ReadAcquire:
              ready = write_releases_[e.target] >= need_[i].first;
              break;
            case Op::Join:
              ready = ran_[e.target] == index_.thread_events(e.target).size();
              break;
            case Op::Recv:
              for (const uint32_t s : index_.sends_before(i)) ready = ready && done(s);
              break;
            default:
              break;
          }
          if (!ready) break;
          switch (e.op) {
            case Op::Read:
              ++reads_[e.target];
              break;
            case Op::Write:
              ++writes_[e.target];
              break;
            case Op::Release:
              ++write_releases_[e.target];
              ++releases_[e.target];
              break;
            case Op::ReadRelease:
              ++releases_[e.target];
              break;
            default:
              break;
          }
          ++ran_[w];
          --left;
          progress = true;
          if (order != nullptr) order->push_back(i);
        }
      }
    }
    return left == 0;
  }

  const TraceIndex& index_;
  uint32_t threads_;
  std::vector<uint32_t> clock_;                      // the TRF clock of each thread (first pass)
  std::vector<std::vector<uint32_t>> snapshot_pos_;  // per thread: positions p of pre(u, p)
  std::vector<std::vector<uint32_t>> snapshots_;     // per thread: T words per position
  std::vector<std::vector<Section>> sections_;       // per thread: its sections
  std::vector<std::vector<uint32_t>> held_;          // per thread: its sections still held
  std::vector<std::vector<LockThread>> locks_;       // per lock: per thread its releases
  std::vector<std::vector<VarThread>> variables_;    // per variable: per thread its accesses
  std::vector<uint8_t> shared_;                      // per variable: accessed by two threads
  std::vector<Hold> holds_;                          // the locks held at each candidate
  std::vector<uint32_t> ideals_;                     // the keys' closures, T words each
  // State of one check, kept to reuse the memory.
  std::vector<uint32_t> v_;       // S as prefix lengths
  std::vector<uint32_t> seen_;    // per thread: the frontier last looked at by close()
  std::vector<uint32_t> joined_;  // per thread: the latest of its stored clocks joined into v_
  std::vector<Open> open_;
  std::vector<std::pair<uint32_t, uint32_t>> need_;  // per event of S: counts it waits for
  std::vector<uint32_t> reads_, writes_, releases_, write_releases_, ran_;
  std::vector<std::vector<Successors>> succ_;            // per thread: its successor lists
  std::vector<std::pair<ThreadId, uint32_t>> reversed_;  // (thread, position) of B sources
  std::vector<uint32_t> rev_begin_;  // open_[k]'s B sources: reversed_[rev_begin_[k], [k + 1])
  std::vector<uint32_t> reach_;
  std::vector<uint8_t> settled_, abstract_, color_;
};

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> races(const TraceIndex& index) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  Analysis analysis(index);
  analysis.run([&](uint32_t first, uint32_t second) { out.emplace_back(first, second); });
  return out;
}

bool is_race(const TraceIndex& index, uint32_t first, uint32_t second) {
  Analysis analysis(index);
  return analysis.check(first, second, nullptr);
}

std::vector<uint32_t> closure(const TraceIndex& index, uint32_t first, uint32_t second) {
  Analysis analysis(index);
  return analysis.closure(first, second);
}

std::vector<uint32_t> witness(const TraceIndex& index, uint32_t first, uint32_t second) {
  Analysis analysis(index);
  std::vector<uint32_t> order;
  if (!analysis.check(first, second, &order)) return {};
  order.push_back(first);
  order.push_back(second);
  return order;
}

std::vector<std::vector<uint32_t>> witnesses(const TraceIndex& index,
                                             std::span<const std::pair<uint32_t, uint32_t>> pairs) {
  Analysis analysis(index);
  std::vector<std::vector<uint32_t>> out;
  out.reserve(pairs.size());
  for (const auto& [first, second] : pairs) {
    std::vector<uint32_t>& order = out.emplace_back();
    if (!analysis.check(first, second, &order)) order.clear();
  }
  return out;
}

Explanation explain(const TraceIndex& index, uint32_t first, uint32_t second) {
  Analysis analysis(index);
  return analysis.explain(first, second);
}

struct Checker::Impl {
  explicit Impl(const TraceIndex& index) : analysis(index) {}
  Analysis analysis;
};

Checker::Checker(const TraceIndex& index) : impl_(std::make_unique<Impl>(index)) {}
Checker::~Checker() = default;

bool Checker::check(uint32_t first, uint32_t second, std::vector<uint32_t>* order) {
  if (impl_->analysis.check(first, second, order)) return true;
  if (order != nullptr) order->clear();
  return false;
}

Explanation Checker::explain(uint32_t first, uint32_t second) {
  return impl_->analysis.explain(first, second);
}

}  // namespace osr

std::unique_ptr<Engine> make_osr(EngineContext& c) {
  return std::make_unique<PairCheckEngine<osr::Analysis>>(c, "osr", osr::kMaxThreads);
}

}  // namespace racepred
