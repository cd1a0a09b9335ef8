// syncp: sync-preserving races (Mathur, Pavlogiannis and Viswanathan, "Optimal prediction of
// synchronization-preserving races", POPL 2021), an offline engine on the run's TraceIndex. The
// definitions and the state are in syncp.hpp; docs/ENGINES.md ("syncp") has the costs.
#include "racepred/engines/syncp/syncp.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>

#include "racepred/engines/engine.hpp"

namespace racepred {
namespace syncp {
namespace {

// A critical section of one thread on one lock.
struct Section {
  uint32_t acquire_pos = 0;          // position of the acquire in its thread
  uint32_t acquire = 0;              // index of the acquire in the trace
  uint32_t release_pos = kNoIndex;   // position of the release in the thread, or none
  uint32_t latest_write = kNoIndex;  // the latest write-mode section of the list up to here
  bool write = true;
};

// CS(u, l): one thread's sections on one lock.
struct LockThread {
  ThreadId thread = 0;
  std::vector<Section> sections;
};

// One key (t, u, x, kind): the pairs (e1 of u, e2 of t) on x with e1 a read (kind 0, e2 a
// write) or a write (kind 1).
struct Key {
  ThreadId thread = 0;  // t, the thread of e2
  uint8_t kind = 0;
  uint32_t cursor = 0;        // the first candidate e1 not yet dropped
  uint32_t ideal = kNoIndex;  // offset of V (T words) and the processed acquires (T words)
};

// A(x, u): u's accesses of x (positions in u) and the keys of later threads against them.
struct VarThread {
  ThreadId thread = 0;
  std::vector<uint32_t> reads, writes;
  std::vector<Key> keys;
};

class Analysis {
 public:
  explicit Analysis(const TraceIndex& index)
      : index_(index),
        threads_(index.thread_count()),
        clock_(size_t{threads_} * threads_, 0),
        snapshot_pos_(threads_),
        snapshots_(threads_),
        acquires_(threads_),
        held_(threads_),
        locks_(index.lock_count()),
        variables_(index.variable_count()) {}

  // The one pass: builds the state and, when `report` is given, calls report(e1, e2) for every
  // race (index positions).
  template <class Report>
  void run(Report&& report) {
    std::vector<uint32_t> found;
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
          if constexpr (!std::is_same_v<std::decay_t<Report>, std::nullptr_t>) {
            found.clear();
            check(i, e, p, found);
            std::sort(found.begin(), found.end());
            for (const uint32_t first : found) report(first, i);
          }
          VarThread& own = var_thread(e.target, t);
          (e.op == Op::Read ? own.reads : own.writes).push_back(p);
          if (e.op == Op::Read) {
            const uint32_t w = index_.last_write(i);
            if (w != kNoIndex) {
              const ThreadId wt = index_.event(w).thread;
              const uint32_t wp = index_.index_in_thread(w) + 1;
              if (th[wt] < wp) {
                join_pre(th, wt, wp);
                changed = true;
              }
            }
          }
          break;
        }
        case Op::Acquire:
        case Op::ReadAcquire: {
          LockThread& lt = lock_thread(e.target, t);
          Section s;
          s.acquire_pos = p;
          s.acquire = i;
          s.write = e.op == Op::Acquire;
          const uint32_t r = index_.matching(i);
          if (r != kNoIndex) s.release_pos = index_.index_in_thread(r);
          const uint32_t before = lt.sections.empty() ? kNoIndex : lt.sections.back().latest_write;
          s.latest_write = s.write ? static_cast<uint32_t>(lt.sections.size()) : before;
          lt.sections.push_back(s);
          acquires_[t].push_back(i);
          held_[t].push_back(i);
          break;
        }
        case Op::Release:
        case Op::ReadRelease: {
          auto& held = held_[t];
          const auto it = std::find(held.begin(), held.end(), index_.matching(i));
          if (it != held.end()) held.erase(it);
          break;
        }
        case Op::Fork: {
          uint32_t* child = clock_.data() + size_t{e.target} * threads_;
          for (uint32_t v = 0; v < threads_; ++v) child[v] = std::max(child[v], th[v]);
          child[t] = std::max(child[t], p + 1);
          break;
        }
        case Op::Join: {
          const uint32_t n = clock_[size_t{e.target} * threads_ + e.target];
          if (n > 0 && th[e.target] < n) {
            join_pre(th, e.target, n);
            changed = true;
          }
          break;
        }
      }
      th[t] = p + 1;
      if (changed) push_snapshot(t, p + 1);
    }
  }

  // I(first, second) from scratch (after run()).
  std::vector<uint32_t> ideal(uint32_t first, uint32_t second) {
    std::vector<uint32_t> state(size_t{threads_} * 2, 0);
    uint32_t* v = state.data();
    join_pre(v, index_.event(second).thread, index_.index_in_thread(second));
    join_pre(v, index_.event(first).thread, index_.index_in_thread(first));
    fixpoint(v, v + threads_, kNoIndex, 0);
    state.resize(threads_);
    return state;
  }

 private:
  // pre(u, p) joined into v.
  void join_pre(uint32_t* v, ThreadId u, uint32_t p) {
    const auto& pos = snapshot_pos_[u];
    if (pos.empty()) return;
    const size_t k = static_cast<size_t>(std::upper_bound(pos.begin(), pos.end(), p) - pos.begin());
    if (k == 0) return;
    const uint32_t* s = snapshots_[u].data() + (k - 1) * threads_;
    for (uint32_t w = 0; w < threads_; ++w) v[w] = std::max(v[w], s[w]);
    v[u] = std::max(v[u], p);
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
  const LockThread* find_lock_thread(LockId l, ThreadId t) const {
    for (const LockThread& r : locks_[l])
      if (r.thread == t) return &r;
    return nullptr;
  }

  // The races of access i (position p of its thread) with earlier accesses: adds e1 to `found`.
  void check(uint32_t i, const Event& e, uint32_t p, std::vector<uint32_t>& found) {
    const ThreadId t = e.thread;
    for (VarThread& other : variables_[e.target]) {
      if (other.thread == t) continue;
      for (uint8_t kind = e.op == Op::Write ? 0 : 1; kind < 2; ++kind) {
        const auto& candidates = kind == 0 ? other.reads : other.writes;
        if (candidates.empty()) continue;
        Key& key = key_of(other, t, kind);
        const uint32_t at = next_race(key, candidates, other.thread, t, p);
        if (at != kNoIndex) found.push_back(index_.thread_events(other.thread)[at]);
      }
    }
    (void)i;
  }

  Key& key_of(VarThread& other, ThreadId t, uint8_t kind) {
    for (Key& k : other.keys)
      if (k.thread == t && k.kind == kind) return k;
    Key& k = other.keys.emplace_back();
    k.thread = t;
    k.kind = kind;
    return k;
  }

  // The position of the earliest e1 among candidates[cursor..] (positions in u) outside
  // I(e1, e2), e2 at position p2 of t, dropping the ones inside; kNoIndex when none is left.
  uint32_t next_race(Key& key, const std::vector<uint32_t>& candidates, ThreadId u, ThreadId t,
                     uint32_t p2) {
    const uint32_t* th = clock_.data() + size_t{t} * threads_;
    while (key.cursor < candidates.size()) {
      const uint32_t p1 = candidates[key.cursor];
      if (p1 < th[u] || share_lock(u, p1, t)) {
        ++key.cursor;
        continue;
      }
      if (key.ideal == kNoIndex) {
        key.ideal = static_cast<uint32_t>(ideals_.size());
        ideals_.resize(ideals_.size() + size_t{threads_} * 2, 0);
      }
      uint32_t* v = ideals_.data() + key.ideal;
      for (uint32_t w = 0; w < threads_; ++w) v[w] = std::max(v[w], th[w]);
      v[t] = std::max(v[t], p2);
      join_pre(v, u, p1);
      if (v[u] <= p1 && !fixpoint(v, v + threads_, u, p1)) return p1;
      ++key.cursor;
    }
    return kNoIndex;
  }

  // e1 (position p1 of u) and the current access of t hold a common lock, at least one of them
  // in write mode.
  bool share_lock(ThreadId u, uint32_t p1, ThreadId t) const {
    for (const uint32_t a : held_[t]) {
      const Event& acq = index_.event(a);
      const LockThread* lt = find_lock_thread(acq.target, u);
      if (lt == nullptr) continue;
      const auto& s = lt->sections;
      const auto it = std::upper_bound(
          s.begin(), s.end(), p1, [](uint32_t q, const Section& c) { return q < c.acquire_pos; });
      if (it == s.begin()) continue;
      const Section& c = *(it - 1);
      if ((c.release_pos == kNoIndex || c.release_pos > p1) && (c.write || acq.op == Op::Acquire))
        return true;
    }
    return false;
  }

  // Closes the ideal v (TRF-closed) under the lock rule; `done` counts, per thread, the acquires
  // of v already processed. Stops early, returning true, once position p1 of u is in v (u ==
  // kNoIndex: never). Returns whether it stopped so.
  bool fixpoint(uint32_t* v, uint32_t* done, ThreadId u, uint32_t p1) {
    bool progress = true;
    while (progress) {
      progress = false;
      for (uint32_t w = 0; w < threads_; ++w) {
        const auto& acquires = acquires_[w];
        while (done[w] < acquires.size() && index_.index_in_thread(acquires[done[w]]) < v[w]) {
          const uint32_t a = acquires[done[w]++];
          lock_rule(v, index_.event(a).target);
          progress = true;
          if (u != kNoIndex && v[u] > p1) return true;
        }
      }
    }
    return false;
  }

  // The lock rule for lock l on v: among the acquires of l in v, let m be the latest and mw the
  // latest in write mode; every acquire a' != m with a' <= mw (trace order) needs its release
  // (a later acquire exists, and a' or it is in write mode). Per thread, the latest such
  // release brings the earlier ones by thread order.
  void lock_rule(uint32_t* v, LockId l) {
    const auto& threads = locks_[l];
    counts_.resize(threads.size());
    uint32_t m = kNoIndex, mw = kNoIndex;
    for (size_t k = 0; k < threads.size(); ++k) {
      const auto& s = threads[k].sections;
      const uint32_t limit = v[threads[k].thread];
      const auto it = std::lower_bound(s.begin(), s.end(), limit, [](const Section& c, uint32_t q) {
        return c.acquire_pos < q;
      });
      const uint32_t n = static_cast<uint32_t>(it - s.begin());
      counts_[k] = n;
      if (n == 0) continue;
      const Section& last = s[n - 1];
      if (m == kNoIndex || last.acquire > m) m = last.acquire;
      if (last.latest_write != kNoIndex) {
        const uint32_t a = s[last.latest_write].acquire;
        if (mw == kNoIndex || a > mw) mw = a;
      }
    }
    if (mw == kNoIndex) return;  // read sections only: they may all overlap
    for (size_t k = 0; k < threads.size(); ++k) {
      const uint32_t n = counts_[k];
      if (n == 0) continue;
      const auto& s = threads[k].sections;
      auto it = std::upper_bound(s.begin(), s.begin() + n, mw,
                                 [](uint32_t q, const Section& c) { return q < c.acquire; });
      if (it == s.begin()) continue;
      --it;
      if (it->acquire == m) {
        if (it == s.begin()) continue;
        --it;
      }
      const ThreadId w = threads[k].thread;
      // A required section still open at the end cannot be closed: nothing of w after its
      // acquire can run (no race reported through it).
      const uint32_t end = it->release_pos == kNoIndex
                               ? static_cast<uint32_t>(index_.thread_events(w).size())
                               : it->release_pos + 1;
      if (v[w] < end) join_pre(v, w, end);
    }
  }

  const TraceIndex& index_;
  uint32_t threads_;
  std::vector<uint32_t> clock_;  // the TRF clock of each thread, T words per thread
  std::vector<std::vector<uint32_t>> snapshot_pos_;  // per thread: positions p of pre(u, p)
  std::vector<std::vector<uint32_t>> snapshots_;     // per thread: T words per position
  std::vector<std::vector<uint32_t>> acquires_;      // per thread: its acquires (indices)
  std::vector<std::vector<uint32_t>> held_;          // per thread: acquires still held
  std::vector<std::vector<LockThread>> locks_;       // per lock: CS(u, l)
  std::vector<std::vector<VarThread>> variables_;    // per variable: A(x, u)
  std::vector<uint32_t> ideals_;                     // the keys' ideals
  std::vector<uint32_t> counts_;                     // scratch of lock_rule
};

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> races(const TraceIndex& index) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  Analysis analysis(index);
  analysis.run([&](uint32_t first, uint32_t second) { out.emplace_back(first, second); });
  return out;
}

std::vector<uint32_t> ideal(const TraceIndex& index, uint32_t first, uint32_t second) {
  Analysis analysis(index);
  analysis.run(nullptr);
  return analysis.ideal(first, second);
}

std::vector<uint32_t> witness(const TraceIndex& index, uint32_t first, uint32_t second) {
  const std::vector<uint32_t> v = ideal(index, first, second);
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < index.size(); ++i) {
    const Event& e = index.event(i);
    if (index.index_in_thread(i) < v[e.thread]) order.push_back(i);
  }
  order.push_back(first);
  order.push_back(second);
  return order;
}

}  // namespace syncp

namespace {

class Syncp final : public OfflineEngine {
 public:
  explicit Syncp(EngineContext& context) : sink_(context.sink) {}
  void run(const TraceIndex& index) override {
    syncp::Analysis analysis(index);
    analysis.run([&](uint32_t first, uint32_t second) {
      sink_.report(Race{Access::of(index.id(first), index.event(first)),
                        Access::of(index.id(second), index.event(second)),
                        index.event(first).target});
    });
  }

 private:
  RaceSink& sink_;
};

}  // namespace

std::unique_ptr<Engine> make_syncp(EngineContext& c) {
  return std::make_unique<Syncp>(c);
}

}  // namespace racepred
