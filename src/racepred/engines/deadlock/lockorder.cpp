// lockorder: potential deadlocks from the lock-order graph (Goodlock, Havelund 2000; UNDEAD's
// lock dependencies; ThreadSanitizer's lock-order-inversion detector), with the filters that
// remove the classic false alarms.
//
// State (online):
//   held(t)     the locks thread t holds, in acquisition order, each with its mode and site
//   LS(t)       the same as an interned lock set (read holds as read tokens)
//   Th(t)       fork/join vector clocks (program order, fork and join; critical sections are
//               not ordered: lock order is the thing a deadlock reverses)
//   D           the lock dependencies: acq(t, l) while held(t) ≠ {} adds
//               (t, period(t), LS(t), l) once, with its site and the locks held (up to 16 with
//               their acquisition sites); period(t) counts t's forks, joins, sends and
//               receives, the only events that change how t's events are ordered against
//               other threads'
//
// finish(): a dependency (t, S, l) is an edge h → l for every h ∈ S. A cycle l1 → l2 → … → l1
// whose steps are (t1, S1, l2), (t2, S2, l3), … is reported when
//   1. the threads are pairwise distinct (one thread cannot wait for itself);
//   2. no two steps hold a common lock where one holds it in write mode (a guard lock held at
//      both steps serialises them: Goodlock's "gate lock");
//   3. no step is fork/join-ordered (or send/recv-ordered) before another (they could never be
//      blocked at once);
//   4. a step's request and the next step's hold of that lock are not both in read mode
//      (shared holds do not block each other);
// and the cycle has at most --max-cycle locks (shortest cycles are searched first). Orders inside
// one thread (1) and a lock released before the next one is taken (no dependency) never form
// cycles.
//
// Cost: O(1) amortised per event (a dependency is found by hashing only at a nested acquire).
// Memory: the dependencies, bounded by the distinct (thread, period, lock set, lock), not by the
// trace length. finish() first keeps the locks on a cycle of the graph of locks and lock sets
// (lock h → each set that adds h, set → each superset that adds one lock, set S → l for a
// dependency (t, S, l)): linear in that graph, so deep nesting in one order costs nothing
// more; only inside its strongly connected components does it enumerate cycles, within a budget
// of steps (a stopped search says so in the engine's extras).
#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "racepred/clock/id_table.hpp"
#include "racepred/clock/lock_set.hpp"
#include "racepred/clock/thread_clocks.hpp"
#include "racepred/clock/vector_clock.hpp"
#include "racepred/engines/clock_options.hpp"
#include "racepred/engines/dispatch.hpp"
#include "racepred/engines/lockset/read_locks.hpp"

namespace racepred {
namespace {

class LockOrder final : public DispatchEngine<LockOrder> {
 public:
  explicit LockOrder(EngineContext& context)
      : sink_(context.sink),
        max_cycle_(context.options.max_cycle),
        budget_(context.options.lockorder_search_budget) {
    set_clock_options(clocks_, context.options, context.annotate);
  }

  void acquire(EventId id, const Event& e) { take(id, e, e.target); }
  // racq/rrel: a lock held or requested in shared mode (filter 4).
  void read_acquire(EventId id, const Event& e) {
    read_locks_ = true;
    take(id, e, read_mode(e.target));
  }
  void release(EventId, const Event& e) { drop(e.thread, e.target); }
  void read_release(EventId, const Event& e) { drop(e.thread, read_mode(e.target)); }
  // Fork and join order the threads and start a new period of the threads involved.
  void fork(EventId, const Event& e) { order(e); }
  void join(EventId, const Event& e) { order(e); }
  // send/recv order too (every recv after every earlier send of its object): the clocks take
  // the order and the thread starts a new period.
  void send(EventId, const Event& e) { sync(e); }
  void recv(EventId, const Event& e) { sync(e); }
  // req(l): the thread waits for l holding its locks, the dependency of an acquire of l (one
  // the acquire that grants it would record anyway, so nothing new then). A request of a lock
  // the thread holds waits for itself: no step of a cycle. rreq(l) requests l in shared mode:
  // its dependency is on l's read token, as a racq's (filter 4).
  void request(EventId id, const Event& e) {
    Thread& t = threads_[e.thread];
    locks_ = std::max(locks_, size_t{e.target} + 1);
    if (t.held.empty() || locksets_.holds(t.node, e.target) ||
        locksets_.holds(t.node, read_mode(e.target)))
      return;
    const bool read = e.op == Op::ReadRequest;
    read_locks_ |= read;
    depend(id, e, t, read ? read_mode(e.target) : e.target);
  }

  void finish() override;

 private:
  static constexpr size_t kListedHolds = 16;  // held locks kept with their sites per dependency

  struct Held {
    LockId token;  // the lock, or its read token
    EventId acquired;
    LocationId location;
  };
  struct Thread {
    std::vector<Held> held;
    LockSetTable::NodeId node = LockSetTable::kRoot;
    uint32_t period = 0;
    uint32_t snapshot = kNone;  // Th(t) in this period, once a dependency needs it
  };
  // One dependency: `thread` requested `requested` (a token) at `event` holding `held`.
  struct Dependency {
    ThreadId thread;
    uint32_t slot;      // the thread's slot in Th
    Clock epoch;        // Th(t)[slot] at the request
    uint32_t snapshot;  // Th(t) at the request, in snapshots_
    LockSetTable::SetId held;
    LockId requested;
    EventId event;
    LocationId location;
    std::vector<Held> sites;  // the held locks with their sites (at most kListedHolds)
    bool sites_complete;
  };
  struct Key {
    ThreadId thread;
    uint32_t period;
    LockSetTable::SetId held;
    LockId requested;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = (uint64_t{k.thread} << 32 | k.period) * 0x9E3779B97F4A7C15ull;
      h ^= (uint64_t{k.held} << 32 | k.requested) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
      return static_cast<size_t>(h);
    }
  };
  // An edge h → l of the lock graph: dependency `dep`, which holds h as `hold_token`.
  struct Edge {
    LockId to;
    uint32_t dep;
    bool hold_read;
  };
  static constexpr uint32_t kNone = UINT32_MAX;

  void take(EventId id, const Event& e, LockId token) {
    Thread& t = threads_[e.thread];
    // Well-formed traces never take a lock the thread holds (the validator normalises
    // re-entrant acquires and rejects mode changes), so no test here: in a deep lock set it
    // would cost the depth at every acquire.
    RACEPRED_DCHECK(!locksets_.holds(t.node, token) && !locksets_.holds(t.node, token ^ kReadMode),
                    "a thread acquires a lock it does not hold");
    if (!t.held.empty()) depend(id, e, t, token);
    locks_ = std::max(locks_, size_t{lock_of(token)} + 1);
    t.held.push_back(Held{token, id, e.location});
    t.node = locksets_.acquire(t.node, token);
  }

  void drop(ThreadId thread, LockId token) {
    Thread& t = threads_[thread];
    for (size_t i = t.held.size(); i-- > 0;)
      if (t.held[i].token == token) {
        t.held.erase(t.held.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    t.node = locksets_.release(t.node, token);
  }

  void order(const Event& e) {
    clocks_.apply(e);
    for (ThreadId u : {e.thread, e.target}) {
      Thread& t = threads_[u];
      ++t.period;
      t.snapshot = kNone;
    }
  }

  void sync(const Event& e) {
    clocks_.apply(e);
    Thread& t = threads_[e.thread];
    ++t.period;
    t.snapshot = kNone;
  }

  void depend(EventId id, const Event& e, Thread& t, LockId token) {
    const LockSetTable::SetId held = locksets_.set_of(t.node);
    const auto [it, fresh] = index_.try_emplace(Key{e.thread, t.period, held, token},
                                                static_cast<uint32_t>(deps_.size()));
    if (!fresh) return;
    clocks_.add_thread(e.thread);
    if (t.snapshot == kNone) {
      t.snapshot = static_cast<uint32_t>(snapshots_.size());
      snapshots_.emplace_back(clocks_.view(e.thread));
    }
    const uint32_t slot = clocks_.slot(e.thread);
    Dependency d{e.thread,   slot, snapshots_[t.snapshot][slot], t.snapshot, held, token, id,
                 e.location, {},   t.held.size() <= kListedHolds};
    if (d.sites_complete) d.sites = t.held;
    deps_.push_back(std::move(d));
  }

  // Filter 3: a before b in fork/join order.
  bool ordered_before(const Dependency& a, const Dependency& b) const {
    return a.epoch <= snapshots_[b.snapshot][a.slot];
  }
  // Filters 1–3 between two steps of a cycle.
  bool compatible(const Dependency& a, const Dependency& b) const {
    if (a.thread == b.thread || ordered_before(a, b) || ordered_before(b, a)) return false;
    return read_locks_ ? disjoint_rw(locksets_, a.held, b.held)
                       : locksets_.disjoint(a.held, b.held);
  }

  std::vector<char> cyclic_locks() const;
  void search(LockId start, LockId at, uint32_t length, std::vector<const Edge*>& path);
  void report(const std::vector<const Edge*>& path);

  RaceSink& sink_;
  const uint32_t max_cycle_;
  const uint64_t budget_;  // cycle-search steps
  IdTable<Thread> threads_;
  LockSetTable locksets_;
  ThreadClocks clocks_{/*lock_order=*/false};
  bool read_locks_ = false;
  size_t locks_ = 0;  // lock ids seen: [0, locks_)
  std::vector<VectorClock> snapshots_;
  std::vector<Dependency> deps_;
  std::unordered_map<Key, uint32_t, KeyHash> index_;

  // finish(): the lock graph inside the cycles, and the search's state.
  std::vector<std::vector<Edge>> out_;  // by lock
  // The lock sequences of the cycles reported (each once, whichever dependencies make it);
  // key_ is the sequence of the path at hand, built without allocating.
  struct SequenceHash {
    size_t operator()(const std::vector<LockId>& v) const {
      uint64_t h = 0x9e3779b97f4a7c15ull;
      for (const LockId l : v) h = (h ^ l) * 0x100000001b3ull;
      return static_cast<size_t>(h);
    }
  };
  std::unordered_set<std::vector<LockId>, SequenceHash> reported_;
  std::vector<LockId> key_;
  uint64_t steps_ = 0;
  bool stopped_ = false;
  uint64_t cyclic_ = 0;
};

// The locks on some cycle of the graph of locks and lock sets (see the file comment), by
// Tarjan's strongly connected components, iteratively.
std::vector<char> LockOrder::cyclic_locks() const {
  const size_t locks = locks_;
  // Nodes: locks [0, locks), then sets (locks + set id). Edges are built for the sets the
  // dependencies hold and their chains of smaller sets.
  const size_t n = locks + locksets_.set_count();
  std::vector<std::vector<uint32_t>> succ(n);
  std::vector<char> seen_set(locksets_.set_count(), 0);
  for (const Dependency& d : deps_) {
    succ[locks + d.held].push_back(lock_of(d.requested));
    for (LockSetTable::SetId s = d.held; s != LockSetTable::kEmptySet && !seen_set[s];) {
      seen_set[s] = 1;
      const auto [smaller, lock] = locksets_.split(s);
      succ[lock_of(lock)].push_back(static_cast<uint32_t>(locks + s));
      if (smaller != LockSetTable::kEmptySet)
        succ[locks + smaller].push_back(static_cast<uint32_t>(locks + s));
      s = smaller;
    }
  }
  // Tarjan: index, lowlink, on-stack; an explicit stack of (node, next successor).
  std::vector<uint32_t> index(n, kNone), low(n, 0);
  std::vector<char> on(n, 0);
  std::vector<uint32_t> stack;
  std::vector<std::pair<uint32_t, uint32_t>> work;
  std::vector<char> cyclic(locks, 0);
  uint32_t next = 0;
  for (uint32_t root = 0; root < locks; ++root) {
    if (index[root] != kNone) continue;
    work.push_back({root, 0});
    while (!work.empty()) {
      auto& [v, i] = work.back();
      if (i == 0 && index[v] == kNone) {
        index[v] = low[v] = next++;
        stack.push_back(v);
        on[v] = 1;
      }
      if (i < succ[v].size()) {
        const uint32_t w = succ[v][i++];
        if (index[w] == kNone) {
          work.push_back({w, 0});
        } else if (on[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const uint32_t done = v;
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
      if (low[done] != index[done]) continue;
      // A component: cyclic when it has more than one node (no node has an edge to itself).
      std::vector<uint32_t> component;
      uint32_t w;
      do {
        w = stack.back();
        stack.pop_back();
        on[w] = 0;
        component.push_back(w);
      } while (w != done);
      if (component.size() > 1)
        for (uint32_t c : component)
          if (c < locks) cyclic[c] = 1;
    }
  }
  return cyclic;
}

void LockOrder::finish() {
  if (!deps_.empty()) {
    const std::vector<char> cyclic = cyclic_locks();
    out_.assign(cyclic.size(), {});
    for (uint32_t i = 0; i < deps_.size(); ++i) {
      const Dependency& d = deps_[i];
      const LockId to = lock_of(d.requested);
      if (!cyclic[to]) continue;
      locksets_.for_each_lock(d.held, [&](LockId h) {
        if (cyclic[lock_of(h)]) out_[lock_of(h)].push_back(Edge{to, i, is_read_mode(h)});
      });
    }
    // By target lock, so that the search skips the edges to locks below its start at once.
    for (std::vector<Edge>& edges : out_)
      std::stable_sort(edges.begin(), edges.end(),
                       [](const Edge& a, const Edge& b) { return a.to < b.to; });
    for (LockId l = 0; l < cyclic.size(); ++l) cyclic_ += cyclic[l];
    // Shortest cycles first: a budget that stops the search keeps the short ones.
    std::vector<const Edge*> path;
    for (uint32_t length = 2; length <= max_cycle_ && !stopped_; ++length)
      for (LockId l = 0; l < out_.size() && !stopped_; ++l)
        if (!out_[l].empty()) search(l, l, length, path);
  }
  sink_.extras().stats.push_back(
      ExtraStat{"lock_dependencies", "deps", "lock dependency", "lock dependencies", deps_.size()});
  sink_.extras().stats.push_back(ExtraStat{"locks_on_cycles", "cyclic locks",
                                           "lock on a cycle of the lock graph",
                                           "locks on cycles of the lock graph", cyclic_});
  if (stopped_)
    sink_.extras().stats.push_back(ExtraStat{"search_stopped", "stopped",
                                             "cycle search stopped at its budget (some cycles "
                                             "may be missing)",
                                             "cycle search stopped at its budget (some cycles "
                                             "may be missing)",
                                             1});
}

// Depth-first from `start` (the cycle's smallest lock) through larger locks to cycles of
// `length` locks, trying every dependency of each edge that is compatible with the steps on the
// path.
void LockOrder::search(LockId start, LockId at, uint32_t length, std::vector<const Edge*>& path) {
  const std::vector<Edge>& edges = out_[at];
  const auto first = std::lower_bound(edges.begin(), edges.end(), start,
                                      [](const Edge& e, LockId l) { return e.to < l; });
  for (auto it = first; it != edges.end(); ++it) {
    const Edge& edge = *it;
    if (++steps_ > budget_) {
      stopped_ = true;
      return;
    }
    const Dependency& d = deps_[edge.dep];
    if (edge.to == start ? path.size() + 1 != length : path.size() + 2 > length) {
      if (edge.to != start) break;  // every later edge goes to a larger lock: too long
      continue;
    }
    if (!path.empty() && is_read_mode(deps_[path.back()->dep].requested) && edge.hold_read)
      continue;  // filter 4 with the previous step
    bool ok = true;
    for (const Edge* p : path) {
      ok = p->to != edge.to && compatible(deps_[p->dep], d);
      if (!ok) break;
    }
    if (!ok) continue;
    path.push_back(&edge);
    if (edge.to == start) {
      if (path.size() >= 2 && !(is_read_mode(d.requested) && path.front()->hold_read)) report(path);
    } else {
      search(start, edge.to, length, path);
    }
    path.pop_back();
    if (stopped_) return;
  }
}

void LockOrder::report(const std::vector<const Edge*>& path) {
  key_.clear();
  for (const Edge* e : path) key_.push_back(e->to);
  if (reported_.count(key_)) return;
  reported_.insert(key_);
  Deadlock deadlock;
  for (const Edge* e : path) {
    const Dependency& d = deps_[e->dep];
    DeadlockStep step{d.thread, {}, lock_of(d.requested), d.event, d.location};
    if (d.sites_complete) {
      for (const Held& h : d.sites)
        step.held.push_back(
            HeldLock{lock_of(h.token), d.thread, is_read_mode(h.token), h.acquired, h.location});
    } else {
      for (LockId h : locksets_.sorted_locks(d.held))
        step.held.push_back(HeldLock{lock_of(h), d.thread, is_read_mode(h), kNoEvent, 0});
    }
    deadlock.cycle.push_back(std::move(step));
  }
  sink_.add_finding(Finding::of_deadlock(std::move(deadlock)));
}

}  // namespace

std::unique_ptr<Engine> make_lockorder(EngineContext& context) {
  return std::make_unique<LockOrder>(context);
}

}  // namespace racepred
