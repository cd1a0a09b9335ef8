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
#include <utility>

#include "racepred/engines/engine.hpp"
#include "racepred/engines/index_race.hpp"
#include "racepred/engines/witness_source.hpp"

namespace racepred {
namespace syncp {
namespace {

// A critical section, in its slot's list of sections (all locks, in acquire order; positions
// are the slot's, see Slots below).
struct Section {
  uint32_t acquire_pos = 0;         // position of the acquire in the slot
  uint32_t release_pos = kNoIndex;  // position of the release, or none (held at the end)
  uint32_t acquire = 0;             // index of the acquire in the trace
  uint32_t outer = kNoIndex;        // the latest section of the thread held at the acquire
  uint32_t order = 0;               // its place among the acquires of its lock (trace order)
  LockId lock = 0;
  bool write = true;
};

// One section in CS(u, l), the sections of one slot on one lock.
struct LockEntry {
  uint32_t acquire_pos = 0;
  uint32_t release_pos = kNoIndex;  // never released: the end of its thread
  uint32_t acquire = 0;
  uint32_t latest_write = kNoIndex;  // the latest write-mode acquire of the list up to here
  bool write = true;
};

// An acquire in the list of its lock's acquires in trace order.
struct LockAcquire {
  uint32_t slot = 0;
  uint32_t pos = 0;  // in the slot
  bool write = true;
};

struct LockThread {
  uint32_t thread = 0;              // the slot
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

// One key (s, u, x, kind): the pairs (e1 of thread u, e2 of slot s) on x with e1 a read (kind 0,
// e2 a write) or a write (kind 1). Kept with slot s's accesses of x (below).
struct Key {
  uint32_t cursor = 0;        // the first candidate e1 not yet dropped
  uint32_t next = kNoIndex;   // its position (kept here: one cache miss less per check)
  uint32_t ideal = kNoIndex;  // offset of V (W words) in the keys' ideals
  bool closed = true;         // V is closed under the lock rule
  uint32_t version = 0;       // J's version and the candidate when last found racy
  uint32_t last = kNoIndex;
};

// A(x, u): thread u's reads and writes of x (slot positions).
struct Accesses {
  ThreadId thread = 0;
  uint32_t newest[2] = {0, 0};  // the latest read's and write's positions (lists not empty)
  std::vector<uint32_t> reads, writes;
};

// The keys of one slot's accesses of x against those of one other thread: A(x, u) at place j
// of the variable's list.
struct Other {
  uint32_t j = 0;
  Key key[2];
};

// The accesses of x by the threads of one slot as e2: the place of the current thread's A(x, t)
// in the variable's list, how many entries of the list were looked at, and the keys of those
// that can still race with a later access of the slot (one whose thread has ended and whose
// every access is TRF-before the slot's newest access is dropped: it never races again).
struct Own {
  uint32_t slot = 0;
  uint32_t list = kNoIndex;
  uint32_t seen = 0;
  std::vector<Other> others;
};

struct Variable {
  std::vector<Accesses> list;  // A(x, u) of each thread u that accessed x, in order of first access
  std::vector<Own> owns;
};

// Slots (many short-lived threads). The ideals and clocks are indexed by slot, not thread: a
// thread forked by i after i joined thread u (all of whose events precede the join) may take
// u's slot, and its events then follow u's in the slot, one position apart. Any ideal that holds
// an event of the new thread holds its fork, so the forker's prefix up to it, so the join, so
// every event of u: a prefix length per slot still says which events of each thread are in, and
// a slot's positions are in trace order. So are the rules: every part of the analysis reads as
// it would with the slot's threads one thread, save the races, which stay per thread. The free
// position between two threads keeps "all of u" (pre(s, end of u)) apart from "before the new
// thread's first event" (which also holds its fork).
struct Slots {
  std::vector<uint32_t> slot;    // per thread
  std::vector<uint32_t> offset;  // per thread: the position of its first event in its slot
  uint32_t count = 0;
};

Slots assign_slots(const TraceIndex& index, bool share = true) {
  const uint32_t n = index.thread_count();
  Slots s;
  s.slot.assign(n, kNoIndex);
  s.offset.assign(n, 0);
  std::vector<uint32_t> end;                   // per slot: one past its last thread's positions
  std::vector<std::vector<uint32_t>> free(n);  // per thread: the slots it may give a fork
  auto fresh = [&](ThreadId t) {
    s.slot[t] = s.count++;
    end.push_back(static_cast<uint32_t>(index.thread_events(t).size()));
  };
  std::vector<std::pair<uint32_t, ThreadId>> ops;  // (fork or join event, its target)
  for (ThreadId t = 0; t < n; ++t) {
    if (index.fork_of(t) == kNoIndex)
      fresh(t);  // runs from the start
    else
      ops.emplace_back(index.fork_of(t), t);
    if (index.join_of(t) != kNoIndex) ops.emplace_back(index.join_of(t), t);
  }
  std::sort(ops.begin(), ops.end());
  for (const auto& [i, t] : ops) {
    const ThreadId by = index.event(i).thread;
    if (index.event(i).op == Op::Fork) {
      auto& mine = free[by];
      if (!share || mine.empty() || (index.first_of(t) != kNoIndex && index.first_of(t) < i)) {
        fresh(t);
        continue;
      }
      const uint32_t slot = mine.back();
      mine.pop_back();
      s.slot[t] = slot;
      s.offset[t] = end[slot] + 1;
      end[slot] = s.offset[t] + static_cast<uint32_t>(index.thread_events(t).size());
    } else if (s.slot[t] != kNoIndex && (index.last_of(t) == kNoIndex || index.last_of(t) < i) &&
               by != t) {
      // The joiner's ideal at the join holds every event of t, and of the threads t joined.
      free[by].push_back(s.slot[t]);
      free[by].insert(free[by].end(), free[t].begin(), free[t].end());
      free[t] = {};
    }
  }
  return s;
}

// The ideals, clocks and snapshots are dense, W words each (W slots): 2 W^2 words for the two
// tables of the slots.
constexpr uint32_t kMaxSlots = 8192;  // 512 MiB for the two tables

class Analysis {
 public:
  Analysis(const TraceIndex& index, Slots slots)
      : index_(index),
        slot_(std::move(slots.slot)),
        offset_(std::move(slots.offset)),
        threads_(slots.count),
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
      const uint32_t s = slot_[t];
      const uint32_t q = index_.index_in_thread(i);
      const uint32_t p = offset_[t] + q;  // the position in the slot
      uint32_t* th = clock_.data() + size_t{s} * threads_;
      if (q == 0) {
        held_[s].clear();  // the slot's earlier thread ended (its sections are its own)
        push_snapshot(s, p);
      }
      bool changed = false;
      switch (e.op) {
        case Op::Read:
        case Op::Write: {
          Variable& var = variables_[e.target];
          Own& own = own_of(var, s, t);
          if constexpr (!std::is_same_v<std::decay_t<Report>, std::nullptr_t>) {
            found.clear();
            check(e, i, p, var, own, found);
            std::sort(found.begin(), found.end());
            for (const uint32_t first : found) report(first, i);
          }
          Accesses& mine = var.list[own.list];
          (e.op == Op::Read ? mine.reads : mine.writes).push_back(p);
          mine.newest[e.op == Op::Read ? 0 : 1] = p;
          if (e.op == Op::Read) {
            const uint32_t w = index_.last_write(i);
            if (w != kNoIndex) {
              const uint32_t ws = slot_of(w);
              const uint32_t wp = position(w) + 1;
              if (th[ws] < wp) {
                join_pre(th, ws, wp);
                changed = true;
              }
            }
          }
          break;
        }
        case Op::Acquire:
        case Op::ReadAcquire: {
          const uint32_t r = index_.matching(i);
          Section sec;
          sec.acquire_pos = p;
          sec.release_pos = r == kNoIndex ? kNoIndex : position(r);
          sec.acquire = i;
          sec.outer = held_[s].empty() ? kNoIndex : held_[s].back();
          sec.lock = e.target;
          sec.write = e.op == Op::Acquire;
          held_[s].push_back(static_cast<uint32_t>(sections_[s].size()));
          sections_[s].push_back(sec);
          acquire_rank_[s].add(p);
          LockThread& lt = lock_thread(e.target, s);
          LockEntry entry;
          entry.acquire_pos = p;
          // Never released: held to the end of its thread (not into the slot's next thread).
          entry.release_pos = r == kNoIndex ? thread_end(t) : sec.release_pos;
          entry.acquire = i;
          entry.write = sec.write;
          entry.latest_write = sec.write            ? i
                               : lt.entries.empty() ? kNoIndex
                                                    : lt.entries.back().latest_write;
          lt.entries.push_back(entry);
          lt.positions.push_back(p);
          sections_[s].back().order = static_cast<uint32_t>(acquires_[e.target].size());
          acquires_[e.target].push_back(LockAcquire{s, p, sec.write});
          break;
        }
        case Op::Release:
        case Op::ReadRelease: {
          auto& held = held_[s];
          const uint32_t a = index_.matching(i);
          for (size_t k = held.size(); k-- > 0;) {
            if (sections_[s][held[k]].acquire == a) {
              held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
              break;
            }
          }
          break;
        }
        case Op::Fork: {
          uint32_t* child = clock_.data() + size_t{slot_[e.target]} * threads_;
          for (uint32_t v = 0; v < threads_; ++v) child[v] = std::max(child[v], th[v]);
          child[s] = std::max(child[s], p + 1);
          break;
        }
        case Op::Join: {
          const uint32_t js = slot_[e.target];
          const uint32_t n = clock_[size_t{js} * threads_ + js];
          if (n > offset_[e.target] && th[js] < n) {  // the target ran
            join_pre(th, js, n);
            changed = true;
          }
          break;
        }
        case Op::Recv:  // the ideal holds every earlier send on the object (a hard edge)
          for (const uint32_t snd : index_.sends_before(i)) {
            const uint32_t ss = slot_of(snd);
            const uint32_t sp = position(snd) + 1;
            if (ss != s && th[ss] < sp) {
              join_pre(th, ss, sp);
              changed = true;
            }
          }
          break;
        case Op::Send:
        case Op::Request:
        case Op::ReadRequest:
          break;
      }
      th[s] = p + 1;
      if (changed) push_snapshot(s, p + 1);
    }
  }

  // I(first, second) from scratch (after run()), a prefix length per thread.
  std::vector<uint32_t> ideal(uint32_t first, uint32_t second) {
    std::vector<uint32_t> v(threads_, 0);
    join_pre(v.data(), slot_of(second), position(second));
    join_pre(v.data(), slot_of(first), position(first));
    fixpoint(v.data(), kNoIndex, 0);
    std::vector<uint32_t> out(index_.thread_count(), 0);
    for (ThreadId t = 0; t < out.size(); ++t) {
      const uint32_t in = v[slot_[t]];
      if (in > offset_[t])
        out[t] = std::min(in - offset_[t], static_cast<uint32_t>(index_.thread_events(t).size()));
    }
    return out;
  }

 private:
  uint32_t slot_of(uint32_t i) const { return slot_[index_.event(i).thread]; }
  // The position of event i in its slot.
  uint32_t position(uint32_t i) const {
    return offset_[index_.event(i).thread] + index_.index_in_thread(i);
  }
  // One past the last position of thread t in its slot.
  uint32_t thread_end(ThreadId t) const {
    return offset_[t] + static_cast<uint32_t>(index_.thread_events(t).size());
  }

  // The acquires that entered a closed ideal since it was closed: their slots and locks are
  // marked with `stamp` (slot_mark_, lock_mark_) unless there were too many (all). Only a
  // section at a frontier of one of those slots, or on one of those locks, can break the lock
  // rule then (see fixpoint).
  struct Entered {
    static constexpr uint32_t kMax = 256;
    uint32_t stamp = 0;
    uint32_t count = 0;
    bool all = false;
  };
  // A fresh record, whose stamp no slot or lock carries.
  void begin(Entered& e) {
    if (++stamp_ == 0) {  // wrapped around: clear the marks
      std::fill(slot_mark_.begin(), slot_mark_.end(), 0);
      std::fill(lock_mark_.begin(), lock_mark_.end(), 0);
      stamp_ = 1;
    }
    e = Entered{stamp_, 0, false};
  }
  bool marked(const Entered& e, uint32_t w, LockId lock) const {
    return slot_mark_[w] == e.stamp || lock_mark_[lock] == e.stamp;
  }

  // v[w] raised to q; whether an acquire of w entered v (only then can the lock rule break),
  // recorded in `entered` if given.
  bool raise(uint32_t* v, uint32_t w, uint32_t q, Entered* entered = nullptr) {
    if (q <= v[w]) return false;
    const PositionRank& acquires = acquire_rank_[w];
    const uint32_t from = acquires.below(v[w]), to = acquires.below(q);
    v[w] = q;
    if (from == to) return false;
    if (entered != nullptr && !entered->all) {
      slot_mark_[w] = entered->stamp;
      entered->count += to - from;
      if (entered->count > Entered::kMax)
        entered->all = true;
      else
        for (uint32_t k = from; k < to; ++k) lock_mark_[sections_[w][k].lock] = entered->stamp;
    }
    return true;
  }

  // pre(u, p) joined into v (u a slot); whether an acquire entered v.
  bool join_pre(uint32_t* v, uint32_t u, uint32_t p, Entered* entered = nullptr) {
    const size_t k = snapshot_rank_[u].below(p + 1);  // snapshots at or before p
    bool crossed = false;
    if (k > 0) {
      const uint32_t* s = snapshots_[u].data() + (k - 1) * threads_;
      for (uint32_t w = 0; w < threads_; ++w)
        if (w != u) crossed |= raise(v, w, s[w], entered);
    }
    return raise(v, u, p, entered) || crossed;
  }

  void push_snapshot(uint32_t s, uint32_t p) {
    const uint32_t* th = clock_.data() + size_t{s} * threads_;
    if (!snapshots_[s].empty() && last_snapshot_[s] == p) {
      std::copy(th, th + threads_, snapshots_[s].end() - threads_);
      return;
    }
    last_snapshot_[s] = p;
    snapshot_rank_[s].add(p);
    snapshots_[s].insert(snapshots_[s].end(), th, th + threads_);
  }

  // The slot's keys on the variable, with the place of thread t's A(x, t) (made if new).
  Own& own_of(Variable& var, uint32_t s, ThreadId t) {
    Own* own = nullptr;
    for (Own& o : var.owns)
      if (o.slot == s) {
        own = &o;
        break;
      }
    if (own == nullptr) {
      own = &var.owns.emplace_back();
      own->slot = s;
    }
    if (own->list == kNoIndex || var.list[own->list].thread != t) {
      own->list = static_cast<uint32_t>(var.list.size());  // a thread new in the slot
      var.list.emplace_back().thread = t;
    }
    return *own;
  }
  LockThread& lock_thread(LockId l, uint32_t s) {
    auto& list = locks_[l];
    for (LockThread& r : list)
      if (r.thread == s) return r;
    list.emplace_back().thread = s;
    return list.back();
  }

  // The entries of `lt` whose acquire is before position q: their count.
  static size_t before(const LockThread& lt, uint32_t q) {
    return static_cast<size_t>(std::lower_bound(lt.positions.begin(), lt.positions.end(), q) -
                               lt.positions.begin());
  }

  // The races of access e (event i, position p of slot s, `own` the slot's keys on the
  // variable) with earlier accesses: adds e1 to `found`.
  void check(const Event& e, uint32_t i, uint32_t p, Variable& var, Own& own,
             std::vector<uint32_t>& found) {
    const uint32_t s = slot_[e.thread];
    const uint32_t* th = clock_.data() + size_t{s} * threads_;
    // The other thread has ended and its every access is TRF-before: no later access of the
    // slot races with one of them (the slot's ideals only grow).
    auto done = [&](const Accesses& other) {
      return index_.last_of(other.thread) < i &&
             std::max(other.reads.empty() ? 0 : other.newest[0],
                      other.writes.empty() ? 0 : other.newest[1]) < th[slot_[other.thread]];
    };
    for (; own.seen < var.list.size(); ++own.seen) {  // threads new on the variable
      const Accesses& other = var.list[own.seen];
      if (slot_[other.thread] != s && !done(other)) own.others.emplace_back().j = own.seen;
    }
    for (size_t k = 0; k < own.others.size();) {
      Other& o = own.others[k];
      const Accesses& other = var.list[o.j];
      const uint32_t u = slot_[other.thread];
      for (uint8_t kind = e.op == Op::Write ? 0 : 1; kind < 2; ++kind) {
        const auto& candidates = kind == 0 ? other.reads : other.writes;
        if (candidates.empty()) continue;
        const uint32_t at = next_race(o.key[kind], candidates, other.newest[kind], u, s, p);
        if (at != kNoIndex)
          found.push_back(index_.thread_events(other.thread)[at - offset_[other.thread]]);
      }
      if (done(other)) {
        for (const Key& key : o.key)
          if (key.ideal != kNoIndex) free_ideals_.push_back(key.ideal);
        o = own.others.back();
        own.others.pop_back();
        continue;
      }
      ++k;
    }
  }

  // The position of the earliest e1 among candidates[cursor..] (positions in slot u) outside
  // I(e1, e2), e2 at position p2 of slot t, dropping the ones inside; kNoIndex when none is
  // left. `newest`: the last candidate's position.
  uint32_t next_race(Key& key, const std::vector<uint32_t>& candidates, uint32_t newest, uint32_t u,
                     uint32_t t, uint32_t p2) {
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
        begin(entered_);
        bool crossed = false, other = false;
        for (uint32_t w = 0; w < threads_; ++w) {
          other |= w != t && th[w] > closed[w];
          crossed |= raise(closed, w, th[w], &entered_);
        }
        if (crossed) fixpoint(closed, kNoIndex, 0, &entered_);
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
        if (free_ideals_.empty()) {
          key.ideal = static_cast<uint32_t>(ideals_.size());
          ideals_.resize(ideals_.size() + threads_, 0);
        } else {
          key.ideal = free_ideals_.back();
          free_ideals_.pop_back();
          std::fill_n(ideals_.begin() + key.ideal, threads_, 0);
        }
      }
      // V stays closed while no acquire enters it: then no fixpoint is needed.
      uint32_t* v = ideals_.data() + key.ideal;
      const bool was_closed = key.closed;
      begin(entered_);
      bool crossed = false;
      for (uint32_t w = 0; w < threads_; ++w) crossed |= raise(v, w, closed[w], &entered_);
      crossed |= join_pre(v, u, p1, &entered_);
      key.closed = key.closed && !crossed;
      // When V was closed before, only the acquires that entered it can break the lock rule.
      const bool in =
          v[u] > p1 || (!key.closed && fixpoint(v, u, p1, was_closed ? &entered_ : nullptr));
      if (!in) {  // V is closed (key.closed, or the fixpoint ran to the end)
        key.closed = true;
        key.version = versions_[t];
        key.last = p1;
        return p1;
      }
      drop();
    }
  }

  // e1 (position p1 of slot u) and the current access of slot t hold a common lock, at least
  // one of them in write mode (then e1's section ends before e2's begins, and the lock rule
  // brings its release). The sections of u open at p1 are the last one acquired before p1 and
  // those held at its acquire (its chain of outer sections), as at a frontier (fixpoint).
  bool share_lock(uint32_t u, uint32_t p1, uint32_t t) const {
    if (held_[t].empty()) return false;
    const auto& s = sections_[u];
    const size_t n = acquire_rank_[u].below(p1);
    for (uint32_t c = n == 0 ? kNoIndex : static_cast<uint32_t>(n - 1); c != kNoIndex;
         c = s[c].outer) {
      const Section& sec = s[c];
      if (sec.release_pos == kNoIndex ? p1 >= thread_end(index_.event(sec.acquire).thread)
                                      : sec.release_pos < p1)
        continue;  // released before e1 (or an earlier thread's of the slot)
      for (const uint32_t h : held_[t]) {
        const Section& mine = sections_[t][h];
        if (mine.lock == sec.lock && (mine.write || sec.write)) return true;
      }
    }
    return false;
  }

  // Closes the ideal v (closed under thread order and reads-from) under the lock rule. Only a
  // section open at v's frontier of its slot (acquire in v, release not) can break the rule,
  // so each round looks at those: a section is allowed to stay open when its acquire is the
  // latest acquire m of its lock in v, or it is a read section after the latest write-mode
  // acquire mw; otherwise its release joins v (with pre(release + 1)). Stops early, returning
  // true, once position p1 of slot u is in v (u == kNoIndex: never). With `entered` (v was
  // closed before those acquires entered it) a round looks only at the sections at the
  // frontiers of their slots and on their locks: every other open section was allowed, and its
  // m and mw have not changed; the next round likewise at what this round's joins brought.
  bool fixpoint(uint32_t* v, uint32_t u, uint32_t p1, Entered* entered = nullptr) {
    Entered* now = entered;
    for (bool changed = true; changed;) {
      changed = false;
      const bool filter = now != nullptr && !now->all;
      Entered& next = now == &round_[0] ? round_[1] : round_[0];
      begin(next);
      for (uint32_t w = 0; w < threads_; ++w) {
        const uint32_t q = v[w];
        const auto& s = sections_[w];
        const size_t n = acquire_rank_[w].below(q);
        for (uint32_t c = n == 0 ? kNoIndex : static_cast<uint32_t>(n - 1); c != kNoIndex;
             c = s[c].outer) {
          const Section& sec = s[c];
          if (sec.release_pos != kNoIndex && sec.release_pos < q) continue;  // closed in v
          if ((filter && !marked(*now, w, sec.lock)) || allowed_open(v, sec)) continue;
          // A section that must close but is never released: nothing after it can run.
          const uint32_t end = sec.release_pos == kNoIndex
                                   ? thread_end(index_.event(sec.acquire).thread)
                                   : sec.release_pos + 1;
          join_pre(v, w, end, &next);
          slot_mark_[w] = next.stamp;  // w's frontier moved: its other sections next round
          changed = true;
          if (u != kNoIndex && v[u] > p1) return true;
          break;
        }
      }
      now = &next;
    }
    return false;
  }

  // A section open in v may stay open: no later acquire of its lock (in write mode, for a read
  // section) is in v. The later acquires are looked at in trace order up to a budget (most open
  // sections are recent), then the latest acquire of the lock in each slot is found instead.
  bool allowed_open(const uint32_t* v, const Section& sec) const {
    const auto& order = acquires_[sec.lock];
    const size_t slots = locks_[sec.lock].size();
    const size_t end = std::min(order.size(), sec.order + 1 + 2 * slots);
    size_t k = sec.order + 1;
    for (; k < end; ++k) {
      const LockAcquire& a = order[k];
      if (a.pos < v[a.slot] && (sec.write || a.write)) return false;
    }
    if (k == order.size()) return true;
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
  std::vector<uint32_t> slot_;       // per thread: its slot
  std::vector<uint32_t> offset_;     // per thread: the position of its first event in its slot
  uint32_t threads_;                 // W, the slots
  std::vector<uint32_t> clock_;      // the TRF clock of each slot, W words per slot
  std::vector<uint32_t> closed_;     // J: the closure of pre(e2) of each slot, W words each
  std::vector<uint32_t> closed_at_;  // the position of e2 that J is for
  std::vector<uint32_t> versions_;   // per slot: bumped when J grows beyond its own position
  std::vector<PositionRank> snapshot_rank_;  // per slot: the positions p of pre(u, p) stored
  std::vector<uint32_t> last_snapshot_ = std::vector<uint32_t>(threads_, 0);  // the latest p
  std::vector<PositionRank> acquire_rank_;           // per slot: its acquires' positions
  std::vector<std::vector<uint32_t>> snapshots_;     // per slot: W words per position
  std::vector<std::vector<Section>> sections_;       // per slot: its sections
  std::vector<std::vector<uint32_t>> held_;          // per slot: its sections still held
  std::vector<std::vector<LockThread>> locks_;       // per lock: CS(u, l) per slot u
  std::vector<std::vector<LockAcquire>> acquires_ =  // per lock: its acquires in trace order
      std::vector<std::vector<LockAcquire>>(index_.lock_count());
  std::vector<Variable> variables_;    // per variable: A(x, u) and the slots' keys
  std::vector<uint32_t> ideals_;       // the keys' ideals
  std::vector<uint32_t> free_ideals_;  // ideals of dropped keys, for new ones
  Entered entered_;                    // the acquires that entered J or V
  Entered round_[2];                   // those a fixpoint round's joins brought
  uint32_t stamp_ = 0;                 // the latest Entered's stamp
  std::vector<uint32_t> slot_mark_ = std::vector<uint32_t>(threads_, 0);
  std::vector<uint32_t> lock_mark_ = std::vector<uint32_t>(index_.lock_count(), 0);
};

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> races(const TraceIndex& index, bool share_slots) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  Analysis analysis(index, assign_slots(index, share_slots));
  analysis.run([&](uint32_t first, uint32_t second) { out.emplace_back(first, second); });
  return out;
}

uint32_t slot_count(const TraceIndex& index) {
  return assign_slots(index).count;
}

std::vector<uint32_t> ideal(const TraceIndex& index, uint32_t first, uint32_t second) {
  Analysis analysis(index, assign_slots(index));
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
    syncp::Slots slots = syncp::assign_slots(index);
    if (slots.count > syncp::kMaxSlots)
      throw BudgetError(
          "syncp keeps two tables of one clock entry per thread slot for every slot (a thread "
          "forked after its forker joined another takes that one's slot); this trace needs " +
          std::to_string(slots.count) +
          " slots (threads alive at the same time, or never joined), more than its " +
          std::to_string(syncp::kMaxSlots) + " (512 MiB)");
    syncp::Analysis analysis(index, std::move(slots));
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
