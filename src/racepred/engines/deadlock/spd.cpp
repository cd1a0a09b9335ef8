// spd: sound deadlock prediction by sync-preserving reorderings (SPDOffline of Tunç, Mathur,
// Pavlogiannis and Viswanathan, "Sound dynamic deadlock prediction in linear time", PLDI 2023).
//
// A deadlock pattern is a cycle of acquires e_1 … e_k of distinct threads where e_i requests the
// lock l_i that the thread of e_{i+1} holds at e_{i+1} (e_k's: e_1's), the requested locks are
// distinct and the locks held at the steps are pairwise disjoint (shared read holds excepted).
// It is a sync-preserving deadlock when the sync-preserving closure of pre(D) (the events before
// each e_i in its thread), the least set closed under program order, fork, join, reads-from
// (a read brings its last write), send/recv (a recv brings the sends it is ordered after) and
// the lock rule (of two acquires of a lock in the set, the earlier one's release is in the set),
// contains no e_i. The closure in trace order is then a correctly reordered prefix after which
// every e_i is the next event of its thread and its lock is held by the next thread: a
// predictable deadlock in the sense of Sulzmann and Thiemann, "Cross-thread critical sections
// and efficient dynamic race prediction methods", Def. B.4, and it is the witness.
//
// Abstract patterns group the acquires by (thread, locks held, lock requested); for each cycle of
// abstract dependencies the engine walks the concrete acquires of every step in program order
// with one closure that only grows: an acquire found inside the closure can never be part of a
// sync-preserving deadlock with the later acquires of the other steps (the closure of their
// pre-set contains this one's), so it is skipped. Each abstract cycle costs at most one pass over
// the trace, and it reports a deadlock iff one of its concrete instances is sync-preserving.
//
// Lock requests: a req(l) that ends its thread (the thread was blocked in its lock call when
// the trace ended) is a step like an acquire of l; a req followed by its acquire adds nothing.
//
// Read-write locks: a request is blocked unless both it and the hold are in read mode; the lock
// rule treats the acquires of a lock in either mode alike (sound; it may miss deadlocks whose
// reordering overlaps read sections differently than the trace).
#include <algorithm>
#include <memory>
#include <unordered_map>
#include <vector>

#include "racepred/engines/engine.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred {
namespace {

constexpr uint32_t kNone = UINT32_MAX;
// The closures of all patterns together add at most this many events per event of the trace
// (plus kWorkBase): spd stays linear in the trace however many abstract patterns it has; a
// search stopped by it says so in the extras.
constexpr uint64_t kWorkPerEvent = 4;
constexpr uint64_t kWorkBase = uint64_t{1} << 22;
// A witness longer than this is left out of the finding (the deadlock is still reported).
constexpr size_t kMaxWitness = size_t{1} << 16;

class Spd final : public OfflineEngine {
 public:
  explicit Spd(EngineContext& context)
      : sink_(context.sink),
        max_cycle_(context.options.max_cycle),
        budget_(context.options.lockorder_search_budget) {}

  void run(const TraceIndex& t) override {
    t_ = &t;
    work_budget_ = kWorkPerEvent * t.size() + kWorkBase;
    collect();
    find_cycles();
    sink_.extras().stats.push_back(ExtraStat{"dependencies", "deps", "abstract lock dependency",
                                             "abstract lock dependencies", deps_.size()});
    sink_.extras().stats.push_back(ExtraStat{"abstract_cycles", "cycles",
                                             "abstract deadlock pattern checked",
                                             "abstract deadlock patterns checked", checked_});
    if (stopped_)
      sink_.extras().stats.push_back(ExtraStat{"search_stopped", "stopped",
                                               "pattern search stopped by its budget",
                                               "pattern searches stopped by their budget", 1});
    sink_.extras().stats.push_back(ExtraStat{"closure_events", "closure", "event added to closures",
                                             "events added to closures", added_});
    if (witnesses_omitted_ > 0)
      sink_.extras().stats.push_back(
          ExtraStat{"witnesses_omitted", "no witness", "witness longer than 65536 events left out",
                    "witnesses longer than 65536 events left out", witnesses_omitted_});
  }

 private:
  // A held lock: the lock, and whether it is held in read mode.
  struct Hold {
    LockId lock;
    bool read;
    bool operator==(const Hold&) const = default;
  };
  // An abstract dependency: `thread` requests `requested` (in mode `read`) holding `held`
  // (sorted by lock); `events` are its concrete acquires in program order.
  struct Dependency {
    ThreadId thread;
    LockId requested;
    bool read;
    std::vector<Hold> held;
    std::vector<uint32_t> events;
  };

  // One pass over the trace: the per-lock acquire lists and the abstract dependencies.
  void collect() {
    const TraceIndex& t = *t_;
    std::unordered_map<std::vector<uint32_t>, uint32_t, KeyHash> ids;
    std::vector<std::vector<Hold>> held(t.thread_count());
    std::vector<uint32_t> key;
    for (uint32_t i = 0; i < t.size(); ++i) {
      const Event& e = t.event(i);
      // A pending request (req(l) as its thread's last event) is a step like an acquire of l:
      // the thread waits there for good. A granted one is followed by its acquire, the step.
      const bool pending = e.op == Op::Request &&
                           t.index_in_thread(i) + 1 == t.thread_events(e.thread).size() &&
                           std::none_of(held[e.thread].begin(), held[e.thread].end(),
                                        [&](const Hold& x) { return x.lock == e.target; });
      if (is_acquire_op(e.op) || pending) {
        auto& h = held[e.thread];
        const bool read = e.op == Op::ReadAcquire;
        if (!h.empty()) {
          std::vector<Hold> sorted = h;
          std::sort(sorted.begin(), sorted.end(),
                    [](const Hold& a, const Hold& b) { return a.lock < b.lock; });
          key.assign({uint32_t{e.thread}, uint32_t{e.target}, uint32_t{read}});
          for (const Hold& s : sorted) key.push_back(2 * s.lock + s.read);
          const auto [it, added] = ids.try_emplace(key, static_cast<uint32_t>(deps_.size()));
          if (added) deps_.push_back(Dependency{e.thread, e.target, read, std::move(sorted), {}});
          deps_[it->second].events.push_back(i);
        }
        if (!pending) h.push_back(Hold{e.target, read});
      } else if (is_release_op(e.op)) {
        auto& h = held[e.thread];
        h.erase(
            std::find_if(h.begin(), h.end(), [&](const Hold& x) { return x.lock == e.target; }));
      }
    }
    by_held_.assign(t.lock_count(), {});
    for (uint32_t d = 0; d < deps_.size(); ++d)
      for (const Hold& h : deps_[d].held) by_held_[h.lock].push_back(d);
    frontier_.assign(t.thread_count(), 0);
    last_acquire_.assign(t.lock_count(), kNone);
  }

  struct KeyHash {
    size_t operator()(const std::vector<uint32_t>& k) const {
      uint64_t h = 0x9E3779B97F4A7C15ull;
      for (uint32_t w : k) h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
      return static_cast<size_t>(h ^ (h >> 31));
    }
  };

  // Whether `to` may be the next step after `from`: `to` holds the lock `from` requests in a
  // mode that blocks it, its thread differs from every step's so far, its request is new and its
  // holds are disjoint from every step's (shared read holds excepted).
  bool blocks(const Dependency& from, const Dependency& to) const {
    for (const Hold& h : to.held)
      if (h.lock == from.requested) return !(h.read && from.read);
    return false;
  }
  bool compatible(const std::vector<uint32_t>& path, const Dependency& to) const {
    for (uint32_t p : path) {
      const Dependency& d = deps_[p];
      if (d.thread == to.thread || d.requested == to.requested) return false;
      for (const Hold& a : d.held)
        for (const Hold& b : to.held)
          if (a.lock == b.lock && !(a.read && b.read)) return false;
    }
    return true;
  }

  // Cycles of abstract dependencies, each once (its first step is its least dependency), up to
  // max_cycle_ steps and within budget_ steps of the search.
  void find_cycles() {
    std::vector<uint32_t> path;
    for (uint32_t d = 0; d < deps_.size() && !stopped_; ++d) {
      if (deps_[d].events.empty()) continue;
      path.assign(1, d);
      extend(path);
    }
  }

  void extend(std::vector<uint32_t>& path) {
    const Dependency& last = deps_[path.back()];
    for (uint32_t next : by_held_[last.requested]) {
      if (stopped_) return;
      if (++steps_ > budget_) {
        stopped_ = true;
        return;
      }
      if (next < path[0] || !blocks(last, deps_[next])) continue;
      if (next == path[0]) {
        if (path.size() >= 2) check(path);
        if (added_ > work_budget_) stopped_ = true;
        continue;
      }
      if (path.size() >= max_cycle_ || !compatible(path, deps_[next])) continue;
      path.push_back(next);
      extend(path);
      path.pop_back();
    }
  }

  // The closure of the events before cursor[i] in each step's thread; reports the first
  // sync-preserving instance of the abstract cycle `path`.
  void check(const std::vector<uint32_t>& path) {
    ++checked_;
    reset();
    const size_t k = path.size();
    std::vector<size_t> cursor(k, 0);
    while (true) {
      for (size_t i = 0; i < k; ++i) {
        const uint32_t e = deps_[path[i]].events[cursor[i]];
        include(t_->event(e).thread, t_->index_in_thread(e));
      }
      bool moved = false;
      for (size_t i = 0; i < k; ++i) {
        const auto& events = deps_[path[i]].events;
        const ThreadId u = deps_[path[i]].thread;
        while (cursor[i] < events.size() && t_->index_in_thread(events[cursor[i]]) < frontier_[u]) {
          ++cursor[i];
          moved = true;
        }
        if (cursor[i] == events.size()) return;
      }
      if (!moved) break;
    }
    report(path, cursor);
  }

  void reset() {
    std::fill(frontier_.begin(), frontier_.end(), 0);
    for (LockId l : touched_) last_acquire_[l] = kNone;
    touched_.clear();
  }

  // Adds the first n events of thread u and closes the set.
  void include(ThreadId u, uint32_t n) {
    work_.push_back({u, n});
    while (!work_.empty()) {
      const auto [v, until] = work_.back();
      work_.pop_back();
      const auto& events = t_->thread_events(v);
      added_ += until > frontier_[v] ? until - frontier_[v] : 0;
      while (frontier_[v] < until) {
        const uint32_t i = events[frontier_[v]++];
        if (frontier_[v] == 1 && t_->fork_of(v) != kNoIndex) need(t_->fork_of(v));
        const Event& e = t_->event(i);
        switch (e.op) {
          case Op::Read:
            if (t_->last_write(i) != kNoIndex) need(t_->last_write(i));
            break;
          case Op::Join:
            work_.push_back({e.target, static_cast<uint32_t>(t_->thread_events(e.target).size())});
            break;
          case Op::Recv:
            for (uint32_t s : t_->sends_before(i)) need(s);
            break;
          case Op::Acquire:
          case Op::ReadAcquire: {
            // Of two acquires of the lock in the set, the earlier one's release is in it.
            uint32_t& last = last_acquire_[e.target];
            if (last == kNone) {
              touched_.push_back(e.target);
              last = i;
            } else if (i > last) {
              need_release(last);
              last = i;
            } else {
              need_release(i);
            }
            break;
          }
          default:
            break;
        }
      }
    }
  }
  void need(uint32_t i) { work_.push_back({t_->event(i).thread, t_->index_in_thread(i) + 1}); }
  void need_release(uint32_t acquire) {
    const uint32_t r = t_->matching(acquire);
    if (r != kNoIndex) need(r);  // none: a read hold never released, beside another read hold
  }

  void report(const std::vector<uint32_t>& path, const std::vector<size_t>& cursor) {
    const TraceIndex& t = *t_;
    Deadlock deadlock;
    for (size_t i = 0; i < path.size(); ++i) {
      const uint32_t a = deps_[path[i]].events[cursor[i]];
      const Event& e = t.event(a);
      DeadlockStep step{e.thread, {}, e.target, t.id(a), e.location};
      // The thread's holds at the request, with their acquires.
      for (uint32_t j : t.thread_events(e.thread)) {
        if (j == a) break;
        const Event& x = t.event(j);
        if (is_acquire_op(x.op) && (t.matching(j) == kNoIndex || t.matching(j) > a))
          step.held.push_back(
              HeldLock{x.target, e.thread, x.op == Op::ReadAcquire, t.id(j), x.location});
      }
      deadlock.cycle.push_back(std::move(step));
    }
    size_t size = 0;
    for (uint32_t f : frontier_) size += f;
    if (size <= kMaxWitness) {
      std::vector<uint32_t> events;
      for (ThreadId u = 0; u < t.thread_count(); ++u)
        for (uint32_t p = 0; p < frontier_[u]; ++p) events.push_back(t.thread_events(u)[p]);
      std::sort(events.begin(), events.end());
      for (uint32_t i : events) deadlock.witness.push_back(t.id(i));
    } else {
      ++witnesses_omitted_;
    }
    sink_.add_finding(Finding::of_deadlock(std::move(deadlock)));
  }

  RaceSink& sink_;
  uint32_t max_cycle_;
  uint64_t budget_;
  const TraceIndex* t_ = nullptr;
  std::vector<Dependency> deps_;
  std::vector<std::vector<uint32_t>> by_held_;  // per lock: the dependencies that hold it
  // The closure: events per thread, per lock its latest acquire (in trace order) in the set.
  std::vector<uint32_t> frontier_;
  std::vector<uint32_t> last_acquire_;
  std::vector<LockId> touched_;
  std::vector<std::pair<ThreadId, uint32_t>> work_;
  uint64_t steps_ = 0;
  uint64_t added_ = 0;  // events added to closures (kWorkPerEvent)
  uint64_t work_budget_ = 0;
  uint64_t checked_ = 0;
  uint64_t witnesses_omitted_ = 0;
  bool stopped_ = false;
};

}  // namespace

std::unique_ptr<Engine> make_spd(EngineContext& context) {
  return std::make_unique<Spd>(context);
}

}  // namespace racepred
