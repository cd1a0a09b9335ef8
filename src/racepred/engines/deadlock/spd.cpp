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
// the trace ended) is a step like an acquire of l, an rreq(l) like a read acquire of l (only a
// write hold blocks it); a request followed by its acquire adds nothing.
//
// Read-write locks: a request is blocked unless both it and the hold are in read mode; the lock
// rule treats the acquires of a lock in either mode alike (sound; it may miss deadlocks whose
// reordering overlaps read sections differently than the trace).
//
// Cross-thread deadlocks (Sulzmann and Thiemann, Def. B.7): a lock may be held by a thread that
// is not blocked at an acquire but at a join of one of the blocked threads (their Fig. 5). A
// pattern may therefore also have join steps: a thread holding locks waits at join(u), and the
// next step is a step of thread u (a thread joined by such a step also has steps that hold
// nothing). After the closure, every thread outside the pattern runs on, greedily, while its
// next event can run; the pattern is reported when each of them has then finished or waits at a
// join or recv that cannot run, or at an acquire whose lock is held (it joins the blocked set):
// CS-PD-1..3. The finding lists every blocked acquire, as exact-ct-deadlocks does, and its
// witness is the closure followed by the greedy run. Patterns without a join step are the
// Def. B.4 deadlocks above, reported as before.
//
// Budget: cycles of abstract dependencies are searched in at most --deadlock-budget steps, and
// the closures of all checked patterns add at most --spd-closure-budget events per trace event
// plus kWorkBase. Past the closure budget the search goes on only to count the patterns it can
// no longer check (the first few named in the note); past the step budget it stops, and the
// dependencies it never started from are counted: neither is reported silently.
#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "racepred/engines/engine.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred {
namespace {

constexpr uint32_t kNone = UINT32_MAX;
// The closures of all patterns together add at most --spd-closure-budget events per event of the
// trace (plus kWorkBase): spd stays linear in the trace however many abstract patterns it has; a
// search stopped by it says so in the extras.
constexpr uint64_t kWorkBase = uint64_t{1} << 22;
// A witness longer than this is left out of the finding (the deadlock is still reported).
constexpr size_t kMaxWitness = size_t{1} << 16;
// Unchecked patterns named in the note (by their first acquires).
constexpr size_t kNamedUnchecked = 3;

class Spd final : public OfflineEngine {
 public:
  explicit Spd(EngineContext& context)
      : sink_(context.sink),
        max_cycle_(context.options.max_cycle),
        budget_(context.options.lockorder_search_budget),
        work_per_event_(context.options.spd_closure_budget) {}

  void run(const TraceIndex& t) override {
    t_ = &t;
    work_budget_ = work_per_event_ * t.size() + kWorkBase;
    collect();
    find_cycles();
    sink_.extras().stats.push_back(ExtraStat{"dependencies", "deps", "abstract lock dependency",
                                             "abstract lock dependencies", deps_.size()});
    sink_.extras().stats.push_back(ExtraStat{"abstract_cycles", "cycles",
                                             "abstract deadlock pattern checked",
                                             "abstract deadlock patterns checked", checked_});
    if (stopped_ || work_stopped_)
      sink_.extras().stats.push_back(ExtraStat{"search_stopped", "stopped",
                                               "pattern search stopped by its budget",
                                               "pattern searches stopped by their budget", 1});
    if (unchecked_ > 0) {
      const std::string which =
          unchecked_named_.empty() ? "" : " (the first at acquires " + unchecked_named_ + ")";
      sink_.extras().stats.push_back(ExtraStat{
          "unchecked_patterns", "unchecked",
          "abstract deadlock pattern found but not checked: closure budget spent" + which,
          "abstract deadlock patterns found but not checked: closure budget spent" + which,
          unchecked_});
    }
    if (stopped_)
      sink_.extras().stats.push_back(ExtraStat{
          "unsearched_dependencies", "unsearched",
          "abstract lock dependency whose cycle search the step budget cut short or never began",
          "abstract lock dependencies whose cycle search the step budget cut short or never began",
          unsearched_});
    if (join_cycles_ > 0)
      sink_.extras().stats.push_back(
          ExtraStat{"join_patterns", "join cycles", "pattern with a join step checked (Def. B.7)",
                    "patterns with a join step checked (Def. B.7)", join_cycles_});
    if (cross_thread_ > 0)
      sink_.extras().stats.push_back(ExtraStat{
          "cross_thread_deadlocks", "B.7",
          "cross-thread deadlock (Def. B.7, a lock held by a joining thread)",
          "cross-thread deadlocks (Def. B.7, a lock held by a joining thread)", cross_thread_});
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
  // (sorted by lock); `events` are its concrete acquires in program order. A join step has
  // `joined` (the thread it waits for; `requested` is unused) and its join events.
  struct Dependency {
    ThreadId thread;
    LockId requested;
    bool read;
    std::vector<Hold> held;
    std::vector<uint32_t> events;
    uint32_t joined = kNone;
    bool is_join() const { return joined != kNone; }
  };

  // One pass over the trace: the per-lock acquire lists and the abstract dependencies.
  void collect() {
    const TraceIndex& t = *t_;
    std::unordered_map<std::vector<uint32_t>, uint32_t, KeyHash> ids;
    std::vector<std::vector<Hold>> held(t.thread_count());
    std::vector<uint32_t> key;
    // Threads joined by a thread that holds a lock: their acquires that hold nothing can follow
    // a join step (a first pass counts the locks each thread holds).
    std::vector<char> joined_holding(t.thread_count(), 0);
    {
      std::vector<uint32_t> holds(t.thread_count(), 0);
      for (uint32_t i = 0; i < t.size(); ++i) {
        const Event& e = t.event(i);
        if (is_acquire_op(e.op)) ++holds[e.thread];
        if (is_release_op(e.op) && holds[e.thread] > 0) --holds[e.thread];
        if (e.op == Op::Join && holds[e.thread] > 0) joined_holding[e.target] = 1;
      }
    }
    const auto add = [&](const Event& e, uint32_t i, uint32_t kind, uint32_t what) {
      std::vector<Hold> sorted = held[e.thread];
      std::sort(sorted.begin(), sorted.end(),
                [](const Hold& a, const Hold& b) { return a.lock < b.lock; });
      key.assign({uint32_t{e.thread}, what, kind});
      for (const Hold& s : sorted) key.push_back(2 * s.lock + s.read);
      const auto [it, added] = ids.try_emplace(key, static_cast<uint32_t>(deps_.size()));
      if (added) {
        deps_.push_back(
            Dependency{e.thread, kind == 2 ? kNone : what, kind == 1, std::move(sorted), {}});
        if (kind == 2) deps_.back().joined = what;
      }
      deps_[it->second].events.push_back(i);
    };
    for (uint32_t i = 0; i < t.size(); ++i) {
      const Event& e = t.event(i);
      if (e.op == Op::Join && !held[e.thread].empty()) {
        add(e, i, 2, e.target);
        continue;
      }
      // A pending request (req(l) as its thread's last event) is a step like an acquire of l:
      // the thread waits there for good. A granted one is followed by its acquire, the step.
      const bool pending = is_request_op(e.op) &&
                           t.index_in_thread(i) + 1 == t.thread_events(e.thread).size() &&
                           std::none_of(held[e.thread].begin(), held[e.thread].end(),
                                        [&](const Hold& x) { return x.lock == e.target; });
      if (is_acquire_op(e.op) || pending) {
        auto& h = held[e.thread];
        const bool read = is_read_mode_op(e.op);
        if (!h.empty() || joined_holding[e.thread]) add(e, i, read ? 1 : 0, e.target);
        if (!pending) h.push_back(Hold{e.target, read});
      } else if (is_release_op(e.op)) {
        auto& h = held[e.thread];
        h.erase(
            std::find_if(h.begin(), h.end(), [&](const Hold& x) { return x.lock == e.target; }));
      }
    }
    by_held_.assign(t.lock_count(), {});
    by_thread_.assign(t.thread_count(), {});
    for (uint32_t d = 0; d < deps_.size(); ++d) {
      for (const Hold& h : deps_[d].held) by_held_[h.lock].push_back(d);
      if (joined_holding[deps_[d].thread]) by_thread_[deps_[d].thread].push_back(d);
    }
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
    if (from.is_join()) return to.thread == from.joined;
    for (const Hold& h : to.held)
      if (h.lock == from.requested) return !(h.read && from.read);
    return false;
  }
  bool compatible(const std::vector<uint32_t>& path, const Dependency& to) const {
    for (uint32_t p : path) {
      const Dependency& d = deps_[p];
      if (d.thread == to.thread) return false;
      if (!d.is_join() && !to.is_join() && d.requested == to.requested) return false;
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
    for (uint32_t d = 0; d < deps_.size(); ++d) {
      if (stopped_) {
        unsearched_ = deps_.size() - d + 1;  // this one's search was cut short too
        break;
      }
      path.assign(1, d);
      extend(path);
    }
  }

  // A cycle is a pattern when it has two acquire steps or more (n > 1 in Def. B.4 and B.7).
  bool enough_acquires(const std::vector<uint32_t>& path) const {
    size_t acquires = 0;
    for (uint32_t p : path) acquires += !deps_[p].is_join();
    return acquires >= 2;
  }

  void extend(std::vector<uint32_t>& path) {
    const Dependency& last = deps_[path.back()];
    for (uint32_t next : last.is_join() ? by_thread_[last.joined] : by_held_[last.requested]) {
      if (stopped_) return;
      if (++steps_ > budget_) {
        stopped_ = true;
        return;
      }
      if (next < path[0] || !blocks(last, deps_[next])) continue;
      if (next == path[0]) {
        if (path.size() < 2 || !enough_acquires(path)) continue;
        if (work_stopped_) {
          // Found, but the closures' budget is spent: counted and named, not checked.
          if (unchecked_++ < kNamedUnchecked) {
            if (!unchecked_named_.empty()) unchecked_named_ += "; ";
            for (size_t k = 0; k < path.size(); ++k)
              unchecked_named_ +=
                  (k ? ", " : "") + std::to_string(t_->id(deps_[path[k]].events.front()));
          }
        } else {
          check(path);
          if (added_ > work_budget_) work_stopped_ = true;
        }
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
        const ThreadId u = t_->event(e).thread;
        // A step that is its thread's first event (after a join step) needs its thread forked.
        const uint32_t f = t_->fork_of(u);
        if (t_->index_in_thread(e) == 0 && f != kNoIndex)
          include(t_->event(f).thread, t_->index_in_thread(f) + 1);
        include(u, t_->index_in_thread(e));
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
    for (uint32_t p : path)
      if (deps_[p].is_join()) return cross_thread(path, cursor);
    report(path, cursor);
  }

  // --- Def. B.7 for a pattern with a join step: the greedy run of the other threads ---

  // Whether thread u has started in the prefix (its fork ran, or it has none).
  bool started(ThreadId u) const {
    const uint32_t f = t_->fork_of(u);
    return f == kNoIndex || pos_[t_->event(f).thread] > t_->index_in_thread(f);
  }
  bool in_prefix(uint32_t i) const { return pos_[t_->event(i).thread] > t_->index_in_thread(i); }
  bool pending_request(uint32_t i) const {
    const Event& e = t_->event(i);
    return is_request_op(e.op) && t_->index_in_thread(i) + 1 == t_->thread_events(e.thread).size();
  }
  // No other thread holds i's lock: in either mode (an acquire or request), in write mode (a
  // read acquire or read request).
  bool lock_free_for(uint32_t i) const {
    const Event& e = t_->event(i);
    const uint32_t w = writer_[e.target];
    if (w != kNone && w != e.thread) return false;
    if (is_read_mode_op(e.op)) return true;
    for (ThreadId r : readers_[e.target])
      if (r != e.thread) return false;
    return true;
  }
  // Whether i (the next event of its started thread) can run after the prefix.
  bool can_run(uint32_t i) const {
    const Event& e = t_->event(i);
    switch (e.op) {
      case Op::Read: {
        const uint32_t w = t_->last_write(i);
        return last_write_[e.target] == (w == kNoIndex ? kNone : w);
      }
      case Op::Acquire:
      case Op::ReadAcquire:
        return lock_free_for(i);
      case Op::Request:
      case Op::ReadRequest:
        return !pending_request(i);
      case Op::Join:
        return pos_[e.target] == t_->thread_events(e.target).size();
      case Op::Recv:
        for (uint32_t s : t_->sends_before(i))
          if (!in_prefix(s)) return false;
        return true;
      default:
        return true;
    }
  }
  // An acquire (or pending request) that cannot run: its lock is held by another thread.
  bool blocked_acquire(uint32_t i) const {
    const Event& e = t_->event(i);
    if (pending_request(i)) return !lock_free_for(i);
    return is_acquire_op(e.op) && !lock_free_for(i);
  }
  void run_event(uint32_t i) {
    const Event& e = t_->event(i);
    switch (e.op) {
      case Op::Write:
        if (last_write_[e.target] == kNone) written_.push_back(e.target);
        last_write_[e.target] = i;
        break;
      case Op::Acquire:
        if (writer_[e.target] == kNone && readers_[e.target].empty()) held_.push_back(e.target);
        writer_[e.target] = e.thread;
        break;
      case Op::ReadAcquire:
        if (writer_[e.target] == kNone && readers_[e.target].empty()) held_.push_back(e.target);
        readers_[e.target].push_back(e.thread);
        break;
      case Op::Release:
        writer_[e.target] = kNone;
        break;
      case Op::ReadRelease: {
        auto& r = readers_[e.target];
        const auto it = std::find(r.begin(), r.end(), e.thread);
        if (it != r.end()) r.erase(it);
        break;
      }
      default:
        break;
    }
    ++pos_[e.thread];
    prefix_.push_back(i);
  }

  // The closure (pos_ = frontier_) in trace order, then the other threads while they can run;
  // reports the pattern when CS-PD-3 then holds.
  void cross_thread(const std::vector<uint32_t>& path, const std::vector<size_t>& cursor) {
    ++join_cycles_;
    const TraceIndex& t = *t_;
    if (writer_.empty()) {
      writer_.assign(t.lock_count(), kNone);
      readers_.assign(t.lock_count(), {});
      last_write_.assign(t.variable_count(), kNone);
      pos_.assign(t.thread_count(), 0);
      frozen_.assign(t.thread_count(), 0);
    }
    prefix_.clear();
    std::fill(pos_.begin(), pos_.end(), 0);
    for (ThreadId u = 0; u < t.thread_count(); ++u)
      for (uint32_t p = 0; p < frontier_[u]; ++p) prefix_.push_back(t.thread_events(u)[p]);
    std::sort(prefix_.begin(), prefix_.end());
    const std::vector<uint32_t> closure = std::move(prefix_);
    prefix_.clear();
    for (uint32_t i : closure) run_event(i);
    added_ += closure.size();
    for (uint32_t p : path) frozen_[deps_[p].thread] = 1;
    // Greedy: a thread outside the pattern runs while its next event can run.
    for (bool progress = true; progress && added_ <= work_budget_;) {
      progress = false;
      for (ThreadId u = 0; u < t.thread_count(); ++u) {
        ++added_;
        if (frozen_[u] || !started(u)) continue;
        const auto& events = t.thread_events(u);
        while (pos_[u] < events.size() && can_run(events[pos_[u]])) {
          run_event(events[pos_[u]]);
          ++added_;
          progress = true;
        }
      }
    }
    // CS-PD-1..3: the pattern's acquires wait; every other started thread has finished, waits at
    // a join or recv that cannot run, or at a blocked acquire (one more of the set).
    bool ok = added_ <= work_budget_;
    std::vector<uint32_t> blocked;
    for (size_t k = 0; k < path.size() && ok; ++k) {
      const uint32_t e = deps_[path[k]].events[cursor[k]];
      if (deps_[path[k]].is_join())
        ok = !can_run(e);
      else if (blocked_acquire(e))
        blocked.push_back(e);
      else
        ok = false;
    }
    for (ThreadId u = 0; u < t.thread_count() && ok; ++u) {
      if (frozen_[u] || !started(u)) continue;
      const auto& events = t.thread_events(u);
      if (pos_[u] == events.size()) continue;
      const uint32_t next = events[pos_[u]];
      const Op op = t.event(next).op;
      if (blocked_acquire(next))
        blocked.push_back(next);
      else if (pos_[u] > 0)
        ok = (op == Op::Join || op == Op::Recv) && !can_run(next);
    }
    if (ok && blocked.size() >= 2) {
      std::sort(blocked.begin(), blocked.end());
      report_set(blocked);
      ++cross_thread_;
    }
    // Reset the state for the next pattern.
    for (uint32_t p : path) frozen_[deps_[p].thread] = 0;
    for (LockId l : held_) {
      writer_[l] = kNone;
      readers_[l].clear();
    }
    held_.clear();
    for (VariableId x : written_) last_write_[x] = kNone;
    written_.clear();
  }

  // A Def. B.7 finding: the blocked acquires, each with the locks its thread holds after the
  // prefix (prefix_), and the prefix as witness.
  void report_set(const std::vector<uint32_t>& blocked) {
    const TraceIndex& t = *t_;
    Deadlock deadlock;
    for (uint32_t a : blocked) {
      const Event& e = t.event(a);
      DeadlockStep step{e.thread, {}, e.target, t.id(a), e.location};
      const auto& events = t.thread_events(e.thread);
      for (uint32_t p = 0; p < pos_[e.thread]; ++p) {
        const uint32_t j = events[p];
        const Event& x = t.event(j);
        if (is_acquire_op(x.op) && (t.matching(j) == kNoIndex || !in_prefix(t.matching(j))))
          step.held.push_back(
              HeldLock{x.target, e.thread, x.op == Op::ReadAcquire, t.id(j), x.location});
      }
      deadlock.cycle.push_back(std::move(step));
    }
    if (prefix_.size() <= kMaxWitness) {
      for (uint32_t i : prefix_) deadlock.witness.push_back(t.id(i));
    } else {
      ++witnesses_omitted_;
    }
    sink_.add_finding(Finding::of_deadlock(std::move(deadlock)));
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
  uint64_t work_per_event_;
  const TraceIndex* t_ = nullptr;
  std::vector<Dependency> deps_;
  std::vector<std::vector<uint32_t>> by_held_;  // per lock: the dependencies that hold it
  // Per thread joined by a thread holding locks: its dependencies (the steps after a join step).
  std::vector<std::vector<uint32_t>> by_thread_;
  // The closure: events per thread, per lock its latest acquire (in trace order) in the set.
  std::vector<uint32_t> frontier_;
  std::vector<uint32_t> last_acquire_;
  std::vector<LockId> touched_;
  std::vector<std::pair<ThreadId, uint32_t>> work_;
  uint64_t steps_ = 0;
  uint64_t added_ = 0;  // events added to closures (--spd-closure-budget)
  uint64_t work_budget_ = 0;
  uint64_t checked_ = 0;
  uint64_t witnesses_omitted_ = 0;
  bool stopped_ = false;       // the step budget: the search ended
  bool work_stopped_ = false;  // the closure budget: cycles are counted, not checked
  uint64_t unchecked_ = 0;
  std::string unchecked_named_;
  uint64_t unsearched_ = 0;
  uint64_t join_cycles_ = 0;
  uint64_t cross_thread_ = 0;
  // Def. B.7's greedy run: positions, lock holders, last writes, the prefix, the frozen threads.
  std::vector<uint32_t> pos_;
  std::vector<uint32_t> writer_;
  std::vector<std::vector<ThreadId>> readers_;
  std::vector<uint32_t> last_write_;
  std::vector<LockId> held_;
  std::vector<VariableId> written_;
  std::vector<uint32_t> prefix_;
  std::vector<char> frozen_;
};

}  // namespace

std::unique_ptr<Engine> make_spd(EngineContext& context) {
  return std::make_unique<Spd>(context);
}

}  // namespace racepred
