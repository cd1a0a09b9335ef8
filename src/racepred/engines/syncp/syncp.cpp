// syncp: sync-preserving races (Mathur, Pavlogiannis and Viswanathan, "Optimal prediction of
// synchronization-preserving races", POPL 2021), an offline engine on the run's TraceIndex. The
// definitions and the state are in syncp.hpp; docs/ENGINES.md ("syncp") has the costs.
#include "racepred/engines/syncp/syncp.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>

#include "racepred/engines/engine.hpp"
#include "racepred/engines/index_race.hpp"
#include "racepred/engines/witness_source.hpp"

namespace racepred {
namespace syncp {
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

// One section in CS(u, l), the sections of one thread on one lock.
struct LockEntry {
  uint32_t acquire_pos = 0;
  uint32_t release_pos = kNoIndex;
  uint32_t acquire = 0;
  uint32_t latest_write = kNoIndex;  // the latest write-mode acquire of the list up to here
  bool write = true;
};

struct LockThread {
  ThreadId thread = 0;
  std::vector<uint32_t> positions;  // entries[k].acquire_pos, searched without the rest
  std::vector<LockEntry> entries;
};

// Marked positions of one thread (its acquires, its snapshots), added in increasing order, and
// how many lie below any position in O(1): a bit per position and the count before each word of
// 64 (1.5 bits per position). Replaces binary searches over millions of sections per query.
class PositionRank {
 public:
  void add(uint32_t p) {
    const size_t w = p >> 6;
    while (bits_.size() <= w) {  // every mark in an earlier word is already in
      before_.push_back(total_);
      bits_.push_back(0);
    }
    bits_[w] |= uint64_t{1} << (p & 63);
    ++total_;
  }
  // The marked positions below q.
  uint32_t below(uint32_t q) const {
    const size_t w = q >> 6;
    if (w >= bits_.size()) return total_;
    const uint64_t mask = (uint64_t{1} << (q & 63)) - 1;
    return before_[w] + static_cast<uint32_t>(std::popcount(bits_[w] & mask));
  }

 private:
  std::vector<uint64_t> bits_;
  std::vector<uint32_t> before_;
  uint32_t total_ = 0;
};

// One key (t, u, x, kind): the pairs (e1 of u, e2 of t) on x with e1 a read (kind 0, e2 a
// write) or a write (kind 1). Kept with t's accesses of x (below), so an access finds its keys
// by index, next to its own list.
struct Key {
  uint32_t cursor = 0;        // the first candidate e1 not yet dropped
  uint32_t next = kNoIndex;   // its position (kept here: one cache miss less per check)
  uint32_t ideal = kNoIndex;  // offset of V (T words) in the keys' ideals
  bool closed = true;         // V is closed under the lock rule
  uint32_t version = 0;       // J's version and the candidate when last found racy
  uint32_t last = kNoIndex;
};

// A(x, u): u's accesses of x (positions in u) and the keys (u, w, x, kind) of u's accesses
// against those of each other thread w: keys[2 j + kind], j the place of A(x, w) in the
// variable's list (which only grows at its end).
struct VarThread {
  ThreadId thread = 0;
  uint32_t newest[2] = {0, 0};  // the latest read's and write's positions (lists not empty)
  std::vector<uint32_t> reads, writes;
  std::vector<Key> keys;
};

// The thread clocks and closed ideals are dense, T words per thread each: 2 T^2 words.
constexpr uint32_t kMaxThreads = 8192;  // 512 MiB for the two tables

class Analysis {
 public:
  explicit Analysis(const TraceIndex& index)
      : index_(index),
        threads_(index.thread_count()),
        clock_(size_t{threads_} * threads_, 0),
        closed_(size_t{threads_} * threads_, 0),
        closed_at_(threads_, kNoIndex),
        versions_(threads_, 0),
        snapshot_rank_(threads_),
        acquire_rank_(threads_),
        snapshots_(threads_),
        sections_(threads_),
        held_(threads_),
        locks_(index.lock_count()),
        variables_(index.variable_count()) {}

  // The one pass: builds the state and, when `report` is not nullptr, calls report(e1, e2) for
  // every race (index positions).
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
          VarThread& own = var_thread(e.target, t);
          if constexpr (!std::is_same_v<std::decay_t<Report>, std::nullptr_t>) {
            found.clear();
            check(e, p, own, found);
            std::sort(found.begin(), found.end());
            for (const uint32_t first : found) report(first, i);
          }
          (e.op == Op::Read ? own.reads : own.writes).push_back(p);
          own.newest[e.op == Op::Read ? 0 : 1] = p;
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
          acquire_rank_[t].add(p);
          LockThread& lt = lock_thread(e.target, t);
          LockEntry entry;
          entry.acquire_pos = p;
          entry.release_pos = s.release_pos;
          entry.acquire = i;
          entry.write = s.write;
          entry.latest_write = s.write              ? i
                               : lt.entries.empty() ? kNoIndex
                                                    : lt.entries.back().latest_write;
          lt.entries.push_back(entry);
          lt.positions.push_back(p);
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
        case Op::Recv:  // the ideal holds every earlier send on the object (a hard edge)
          for (const uint32_t s : index_.sends_before(i)) {
            const ThreadId st = index_.event(s).thread;
            const uint32_t sp = index_.index_in_thread(s) + 1;
            if (st != t && th[st] < sp) {
              join_pre(th, st, sp);
              changed = true;
            }
          }
          break;
        case Op::Send:
        case Op::Request:
        case Op::ReadRequest:
          break;
      }
      th[t] = p + 1;
      if (changed) push_snapshot(t, p + 1);
    }
  }

  // I(first, second) from scratch (after run()).
  std::vector<uint32_t> ideal(uint32_t first, uint32_t second) {
    std::vector<uint32_t> v(threads_, 0);
    join_pre(v.data(), index_.event(second).thread, index_.index_in_thread(second));
    join_pre(v.data(), index_.event(first).thread, index_.index_in_thread(first));
    fixpoint(v.data(), kNoIndex, 0);
    return v;
  }

 private:
  // v[w] raised to q; whether an acquire of w entered v (only then can the lock rule break).
  bool raise(uint32_t* v, ThreadId w, uint32_t q) const {
    if (q <= v[w]) return false;
    const PositionRank& acquires = acquire_rank_[w];
    const bool crossed = acquires.below(q) != acquires.below(v[w]);
    v[w] = q;
    return crossed;
  }

  // pre(u, p) joined into v; whether an acquire entered v.
  bool join_pre(uint32_t* v, ThreadId u, uint32_t p) {
    const size_t k = snapshot_rank_[u].below(p + 1);  // snapshots at or before p
    bool crossed = false;
    if (k > 0) {
      const uint32_t* s = snapshots_[u].data() + (k - 1) * threads_;
      for (uint32_t w = 0; w < threads_; ++w)
        if (w != u) crossed |= raise(v, w, s[w]);
    }
    return raise(v, u, p) || crossed;
  }

  void push_snapshot(ThreadId t, uint32_t p) {
    const uint32_t* th = clock_.data() + size_t{t} * threads_;
    if (!snapshots_[t].empty() && last_snapshot_[t] == p) {
      std::copy(th, th + threads_, snapshots_[t].end() - threads_);
      return;
    }
    last_snapshot_[t] = p;
    snapshot_rank_[t].add(p);
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

  // The entries of `lt` whose acquire is before position q: their count.
  static size_t before(const LockThread& lt, uint32_t q) {
    return static_cast<size_t>(std::lower_bound(lt.positions.begin(), lt.positions.end(), q) -
                               lt.positions.begin());
  }

  // The races of access e (position p of its thread, `own` its thread's accesses of the
  // variable) with earlier accesses: adds e1 to `found`.
  void check(const Event& e, uint32_t p, VarThread& own, std::vector<uint32_t>& found) {
    const ThreadId t = e.thread;
    std::vector<VarThread>& list = variables_[e.target];
    for (size_t j = 0; j < list.size(); ++j) {
      const VarThread& other = list[j];
      if (other.thread == t) continue;
      for (uint8_t kind = e.op == Op::Write ? 0 : 1; kind < 2; ++kind) {
        const auto& candidates = kind == 0 ? other.reads : other.writes;
        if (candidates.empty()) continue;
        if (own.keys.size() < 2 * (j + 1)) own.keys.resize(2 * (j + 1));
        Key& key = own.keys[2 * j + kind];
        const uint32_t at = next_race(key, candidates, other.newest[kind], other.thread, t, p);
        if (at != kNoIndex) found.push_back(index_.thread_events(other.thread)[at]);
      }
    }
  }

  // The position of the earliest e1 among candidates[cursor..] (positions in u) outside
  // I(e1, e2), e2 at position p2 of t, dropping the ones inside; kNoIndex when none is left.
  // `newest`: the last candidate's position.
  uint32_t next_race(Key& key, const std::vector<uint32_t>& candidates, uint32_t newest, ThreadId u,
                     ThreadId t, uint32_t p2) {
    const uint32_t* th = clock_.data() + size_t{t} * threads_;
    uint32_t* closed = closed_.data() + size_t{t} * threads_;
    // Every candidate left is TRF-before e2 when the newest is: all are dropped for good (as the
    // loop below would, one by one) without reading the list.
    if (newest < th[u]) {
      key.cursor = static_cast<uint32_t>(candidates.size());
      key.next = kNoIndex;
      return kNoIndex;
    }
    auto drop = [&] {
      ++key.cursor;
      key.next = kNoIndex;
    };
    for (;;) {
      if (key.next == kNoIndex) {
        if (key.cursor >= candidates.size()) return kNoIndex;
        key.next = candidates[key.cursor];
      }
      const uint32_t p1 = key.next;
      if (p1 < th[u] || share_lock(u, p1, t)) {
        drop();
        continue;
      }
      // J = the closure of pre(e2), shared by the keys of t: within every I(e1, e2).
      if (closed_at_[t] != p2) {
        bool crossed = false, other = false;
        for (uint32_t w = 0; w < threads_; ++w) {
          other |= w != t && th[w] > closed[w];
          crossed |= raise(closed, w, th[w]);
        }
        if (crossed) fixpoint(closed, kNoIndex, 0);
        closed_at_[t] = p2;
        if (crossed || other) ++versions_[t];
      }
      // Nothing but J's own position grew (no acquire of t, no new TRF edge) since this pair
      // of the key was found racy: still racy (V stays closed).
      if (key.closed && key.version == versions_[t] && key.last == p1) return p1;
      if (p1 < closed[u]) {
        drop();
        continue;
      }
      if (key.ideal == kNoIndex) {
        key.ideal = static_cast<uint32_t>(ideals_.size());
        ideals_.resize(ideals_.size() + threads_, 0);
      }
      // V stays closed while no acquire enters it: then no fixpoint is needed.
      uint32_t* v = ideals_.data() + key.ideal;
      bool crossed = false;
      for (uint32_t w = 0; w < threads_; ++w) crossed |= raise(v, w, closed[w]);
      crossed |= join_pre(v, u, p1);
      key.closed = key.closed && !crossed;
      if (v[u] <= p1) {
        if (key.closed || !fixpoint(v, u, p1)) {
          key.closed = true;
          key.version = versions_[t];
          key.last = p1;
          return p1;
        }
        key.closed = false;
      }
      drop();
    }
  }

  // e1 (position p1 of u) and the current access of t hold a common lock, at least one of them
  // in write mode.
  bool share_lock(ThreadId u, uint32_t p1, ThreadId t) const {
    for (const uint32_t h : held_[t]) {
      const Section& mine = sections_[t][h];
      for (const LockThread& lt : locks_[mine.lock]) {
        if (lt.thread != u) continue;
        const size_t n = before(lt, p1);
        if (n == 0) break;
        const LockEntry& c = lt.entries[n - 1];
        if ((c.release_pos == kNoIndex || c.release_pos > p1) && (c.write || mine.write))
          return true;
        break;
      }
    }
    return false;
  }

  // Closes the ideal v (closed under thread order and reads-from) under the lock rule. Only a
  // section open at v's frontier of its thread (acquire in v, release not) can break the rule,
  // so each round looks at those: a section is allowed to stay open when its acquire is the
  // latest acquire m of its lock in v, or it is a read section after the latest write-mode
  // acquire mw; otherwise its release joins v (with pre(release + 1)). Stops early, returning
  // true, once position p1 of u is in v (u == kNoIndex: never).
  bool fixpoint(uint32_t* v, ThreadId u, uint32_t p1) {
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t w = 0; w < threads_; ++w) {
        const uint32_t q = v[w];
        const auto& s = sections_[w];
        const size_t n = acquire_rank_[w].below(q);
        for (uint32_t c = n == 0 ? kNoIndex : static_cast<uint32_t>(n - 1); c != kNoIndex;
             c = s[c].outer) {
          const Section& sec = s[c];
          if (sec.release_pos != kNoIndex && sec.release_pos < q) continue;  // closed in v
          if (allowed_open(v, sec)) continue;
          // A section that must close but is never released: nothing after it can run.
          const uint32_t end = sec.release_pos == kNoIndex
                                   ? static_cast<uint32_t>(index_.thread_events(w).size())
                                   : sec.release_pos + 1;
          join_pre(v, w, end);
          changed = true;
          if (u != kNoIndex && v[u] > p1) return true;
          break;  // w's frontier moved
        }
      }
    }
    return false;
  }

  bool allowed_open(const uint32_t* v, const Section& sec) const {
    uint32_t m = 0, mw = 0;
    bool any_write = false;
    for (const LockThread& lt : locks_[sec.lock]) {
      const size_t n = before(lt, v[lt.thread]);
      if (n == 0) continue;
      const LockEntry& last = lt.entries[n - 1];
      m = std::max(m, last.acquire);
      if (last.latest_write != kNoIndex) {
        mw = any_write ? std::max(mw, last.latest_write) : last.latest_write;
        any_write = true;
      }
    }
    return sec.acquire == m || (!sec.write && (!any_write || sec.acquire > mw));
  }

  const TraceIndex& index_;
  uint32_t threads_;
  std::vector<uint32_t> clock_;      // the TRF clock of each thread, T words per thread
  std::vector<uint32_t> closed_;     // J: the closure of pre(e2) of each thread, T words each
  std::vector<uint32_t> closed_at_;  // the position of e2 that J is for
  std::vector<uint32_t> versions_;   // per thread: bumped when J grows beyond its own position
  std::vector<PositionRank> snapshot_rank_;  // per thread: the positions p of pre(u, p) stored
  std::vector<uint32_t> last_snapshot_ = std::vector<uint32_t>(threads_, 0);  // the latest p
  std::vector<PositionRank> acquire_rank_;         // per thread: its acquires' positions
  std::vector<std::vector<uint32_t>> snapshots_;   // per thread: T words per position
  std::vector<std::vector<Section>> sections_;     // per thread: its sections
  std::vector<std::vector<uint32_t>> held_;        // per thread: its sections still held
  std::vector<std::vector<LockThread>> locks_;     // per lock: CS(u, l)
  std::vector<std::vector<VarThread>> variables_;  // per variable: A(x, u)
  std::vector<uint32_t> ideals_;                   // the keys' ideals
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

class Syncp final : public OfflineEngine, public WitnessSource {
 public:
  explicit Syncp(EngineContext& context) : sink_(context.sink) {}
  // Every race is witnessed by its ideal I(first, second) in trace order (both enabled).
  WitnessSource* witness_source() override { return this; }
  WitnessNotion witness_notion() const override { return WitnessNotion::Enabled; }
  WitnessScope witness_scope() const override { return WitnessScope::Every; }
  std::vector<std::optional<RaceWitness>> witnesses(const TraceIndex& index,
                                                    std::span<const Race> races) override {
    return witnesses_by_pair(index, races, [&](uint32_t first, uint32_t second, auto& prefix) {
      prefix = syncp::witness(index, first, second);
      prefix.resize(prefix.size() - 2);  // the ideal: both accesses stay next, not run
      return true;
    });
  }
  void run(const TraceIndex& index) override {
    if (index.thread_count() > syncp::kMaxThreads)
      throw BudgetError("syncp keeps two clocks of one entry per thread for every thread; " +
                        std::to_string(index.thread_count()) + " threads are more than its " +
                        std::to_string(syncp::kMaxThreads));
    syncp::Analysis analysis(index);
    analysis.run(
        [&](uint32_t first, uint32_t second) { sink_.report(race_at(index, first, second)); });
  }

 private:
  RaceSink& sink_;
};

}  // namespace

std::unique_ptr<Engine> make_syncp(EngineContext& c) {
  return std::make_unique<Syncp>(c);
}

}  // namespace racepred
