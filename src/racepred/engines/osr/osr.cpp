// osr: optimistic synchronisation-reversal races (Shi, Mathur and Pavlogiannis, "Optimistic
// prediction of synchronization-reversal data races", ICSE 2024), an offline engine on the run's
// TraceIndex. The definitions and the plan are in osr.hpp; docs/ENGINES.md ("osr") has the costs.
#include "racepred/engines/osr/osr.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "racepred/engines/engine.hpp"
#include "racepred/engines/index_race.hpp"
#include "racepred/engines/lanes.hpp"
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

// One thread's released sections of one lock, in order (they do not overlap).
struct LockThread {
  ThreadId thread = 0;
  std::vector<uint32_t> release_pos;   // positions in the thread
  std::vector<uint32_t> release;       // trace indices
  std::vector<uint32_t> latest_write;  // the latest write-section release up to here, or none
};

// A vector whose resize leaves new elements uninitialised: memory that is written before it is
// read is neither zero-filled first nor, where never written, touched at all.
template <class T>
struct NoInit : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInit<U>;
  };
  NoInit() = default;
  template <class U>
  NoInit(const NoInit<U>& /*other*/) noexcept {}  // NOLINT: converting, as std::allocator
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};
using Words = std::vector<uint32_t, NoInit<uint32_t>>;

// Gives the whole pages inside a vector's memory back to the system before it is freed (a
// freed block in the middle of the heap keeps its pages otherwise).
inline void release(Words& words) {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<uintptr_t>(words.data()) + page - 1) & ~(page - 1);
  const auto end = reinterpret_cast<uintptr_t>(words.data() + words.size()) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

// The direct P-successors in one thread `to` of the events of another (the paper's successor
// queries): for each event with a P edge into `to`, its position and the position in `to` of
// its earliest P-successor there; `tree` is a minimum segment tree over the minima of blocks
// of kBlock targets (a quarter of the memory of a tree over every target). The entries are
// found backwards through the trace: with room for an edge from every event of the source
// thread (`sized`), they are written from the end of their arrays down to `first` (the pages
// below are never touched); otherwise appended and reversed at the end. When at least half
// the source thread's events have an entry, the list becomes dense: `target` per position of
// the source thread (kNoIndex: no edge), no `source`, and a query searches nothing.
struct Successors {
  static constexpr uint32_t kBlock = 8;
  ThreadId to = 0;
  bool sized = false;
  bool dense = false;
  uint32_t first = 0;  // the entries: [first, size) of source and target (dense: 0)
  Words source;
  Words target;
  Words tree;  // block minima at [nb, 2nb)

  void size_for(uint32_t events) {
    sized = true;
    source.resize(events);
    target.resize(events);
    first = events;
  }
  // An entry before (in trace order) every entry so far.
  void add(uint32_t pos, uint32_t earliest_target) {
    if (sized) {
      --first;
      source[first] = pos;
      target[first] = earliest_target;
    } else {
      source.push_back(pos);
      target.push_back(earliest_target);
    }
  }
  // `events`: the source thread's events.
  void finish(uint32_t events) {
    if (!sized) {
      std::reverse(source.begin(), source.end());
      std::reverse(target.begin(), target.end());
    }
    const auto entries = static_cast<uint32_t>(source.size()) - first;
    if (sized && size_t{entries} * 2 >= events) {
      // In place: entry k (ascending) goes to source[k] <= k (the sources are distinct positions
      // below `events`, and the entries end at `events`), over entries already moved or unused
      // room; the positions between two sources get kNoIndex.
      uint32_t fill = 0;
      for (uint32_t k = first; k < events; ++k) {
        const uint32_t q = source[k], tg = target[k];
        while (fill < q) target[fill++] = kNoIndex;
        target[q] = tg;
        fill = q + 1;
      }
      while (fill < events) target[fill++] = kNoIndex;
      release(source);
      Words().swap(source);
      first = 0;
      dense = true;
    }
    const auto m = static_cast<uint32_t>(target.size()) - first;
    const uint32_t* tg = target.data() + first;
    const uint32_t nb = (m + kBlock - 1) / kBlock;
    tree.resize(2 * size_t{nb});
    for (uint32_t b = 0; b < nb; ++b) {
      uint32_t best = kNoIndex;
      for (uint32_t k = b * kBlock, e = std::min(m, k + kBlock); k < e; ++k)
        best = std::min(best, tg[k]);
      tree[nb + b] = best;
    }
    for (uint32_t k = nb; k-- > 1;) tree[k] = std::min(tree[2 * k], tree[2 * k + 1]);
    if (nb > 0) tree[0] = kNoIndex;
  }

  // The earliest target of the sources in positions [lo, hi), or kNoIndex.
  uint32_t earliest(uint32_t lo, uint32_t hi) const {
    const uint32_t* tg = target.data() + first;
    uint32_t a = 0, b = 0;
    if (dense) {
      const auto m = static_cast<uint32_t>(target.size());
      a = std::min(lo, m);
      b = std::min(hi, m);
    } else {
      const uint32_t* src = source.data() + first;
      const uint32_t* end = source.data() + source.size();
      a = static_cast<uint32_t>(std::lower_bound(src, end, lo) - src);
      b = static_cast<uint32_t>(std::lower_bound(src + a, end, hi) - src);
    }
    if (a >= b) return kNoIndex;
    uint32_t best = kNoIndex;
    while (a < b && a % kBlock != 0) best = std::min(best, tg[a++]);
    while (b > a && b % kBlock != 0) best = std::min(best, tg[--b]);
    const auto nb = static_cast<uint32_t>(tree.size() / 2);
    for (a = a / kBlock + nb, b = b / kBlock + nb; a < b; a >>= 1, b >>= 1) {
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
  // The holds of candidate c: holds_[holds[c].first, holds[c].second) (both bounds side by
  // side: one cache line per candidate looked at).
  std::vector<std::pair<uint32_t, uint32_t>> holds;
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

// The TRF clocks are dense: a word per slot in every stored clock (slots: threads alive at once).
constexpr uint32_t kMaxThreads = 8192;
// ... and those stored clocks stop at 2 GiB.
constexpr size_t kMaxStoredWords = size_t{1} << 29;

class Analysis {
 public:
  explicit Analysis(const TraceIndex& index)
      : index_(index),
        threads_(assign_slots()),
        clock_(size_t{threads_} * threads_, 0),
        snapshot_pos_(threads_),
        snapshot_start_(threads_),
        snapshots_(threads_),
        sections_(threads_),
        held_(threads_),
        locks_(index.lock_count()),
        variables_(index.variable_count()),
        variable_threads_(index.variable_count()),
        v_(threads_, 0) {
    build();
  }

  // The second pass: report(e1, e2) for every race (index positions), in order of e2, then e1.
  // Per variable, its threads' newest candidates so far lie side by side (a few cache lines):
  // most accesses find every other thread's newest candidate TRF-before them (then so are the
  // older ones) and touch nothing else, as a vector-clock check would.
  template <class Report>
  void run(Report&& report) {
    struct Newest {
      ThreadId thread = 0;
      uint32_t pos[2] = {kNoIndex, kNoIndex};  // the newest read (0) and write (1), or none
      uint32_t count[2] = {0, 0};              // the candidates so far
    };
    std::vector<uint32_t> base(variables_.size() + 1, 0);
    for (size_t x = 0; x < variables_.size(); ++x)
      base[x + 1] = base[x] + static_cast<uint32_t>(variables_[x].size());
    std::vector<Newest> newest(base.back());
    for (size_t x = 0; x < variables_.size(); ++x)
      for (size_t k = 0; k < variables_[x].size(); ++k)
        newest[base[x] + k].thread = variables_[x][k].thread;
    std::vector<uint32_t> found;
    std::vector<std::pair<LockId, bool>> mine;
    std::vector<uint32_t> at(threads_, 0);  // per thread: its stored clocks at or before here
    for (uint32_t i = 0; i < index_.size(); ++i) {
      const Event& e = index_.event(i);
      if (!e.is_access() || !shared_[e.target]) continue;
      const ThreadId t = slot(i);
      const uint32_t p2 = pos_of(i);
      const auto& pos = snapshot_pos_[t];
      uint32_t& k2 = at[t];
      while (k2 < pos.size() && pos[k2] <= p2) ++k2;
      const uint32_t* pre2 = k2 == 0 ? nullptr : snapshots_[t].data() + size_t{k2 - 1} * threads_;
      Newest* row = newest.data() + base[e.target];
      const uint32_t n = base[e.target + 1] - base[e.target];
      bool held = false;
      uint32_t own = 0;
      found.clear();
      for (uint32_t k = 0; k < n; ++k) {
        const ThreadId u = row[k].thread;
        if (u == t) {
          own = k;
          continue;
        }
        const uint32_t before = pre2 == nullptr ? 0 : pre2[u];
        for (uint8_t kind = e.op == Op::Write ? 0 : 1; kind < 2; ++kind) {
          // No candidate, or the newest (so every one) TRF-before e2.
          if (row[k].pos[kind] == kNoIndex || row[k].pos[kind] < before) continue;
          if (!held) {
            held_at(t, p2, mine);
            held = true;
          }
          VarThread& other = variables_[e.target][k];
          const Candidates& list = other.lists[kind];
          next_race(key_of(other, t, kind), list, row[k].count[kind], u, t, p2, before, mine,
                    found);
        }
      }
      std::sort(found.begin(), found.end());
      for (const uint32_t first : found) report(first, i);
      const int kind = e.op == Op::Write ? 1 : 0;
      row[own].pos[kind] = p2;
      ++row[own].count[kind];
    }
  }

  // S(e1, e2) and whether (e1, e2) is a race; `order` (when not null) gets the witness prefix.
  bool check(uint32_t e1, uint32_t e2, std::vector<uint32_t>* order) {
    return check(slot(e1), pos_of(e1), slot(e2), pos_of(e2), order);
  }
  std::vector<uint32_t> closure(uint32_t e1, uint32_t e2) {
    close(slot(e1), pos_of(e1), slot(e2), pos_of(e2));
    return per_thread();
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
          f = slot(i);
        else if (f != slot(i))
          shared_[e.target] = 1;
      }
    }
    for (uint32_t i = 0; i < index_.size(); ++i) {
      const Event& e = index_.event(i);
      const ThreadId t = slot(i);
      const uint32_t p = pos_of(i);
      uint32_t* th = clock_.data() + size_t{t} * threads_;
      current_ = i;
      // A thread's first event: its clock so far (the fork's) is in effect for its events; in a
      // shared slot beside the clock in effect for the end of the slot's previous thread.
      if (p == offset_[e.thread]) push_snapshot(t, p, p > 0);
      bool changed = false;
      switch (e.op) {
        case Op::Read:
        case Op::Write: {
          // A variable of one thread has neither candidates nor P edges between threads.
          if (shared_[e.target]) {
            Candidates& list = var_thread(e.target, t).lists[e.op == Op::Write ? 1 : 0];
            list.pos.push_back(p);
            const auto hold_begin = static_cast<uint32_t>(holds_.size());
            for (const uint32_t h : held_[t]) {
              const Section& s = sections_[t][h];
              holds_.push_back(Hold{s.lock, s.write, 0, 0});
            }
            list.holds.emplace_back(hold_begin, static_cast<uint32_t>(holds_.size()));
          }
          if (e.op == Op::Read) {
            const uint32_t w = index_.last_write(i);
            if (w != kNoIndex) changed |= raise_to(th, slot(w), w);
          }
          break;
        }
        case Op::Acquire:
        case Op::ReadAcquire: {
          lock_thread(e.target, t);
          const uint32_t r = index_.matching(i);
          Section s;
          s.acquire_pos = p;
          s.release_pos = r == kNoIndex ? kNoIndex : pos_of(r);
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
          // A thread without events has no slot (and nothing to order).
          if (e.target == e.thread || slot_of_[e.target] == kNoIndex) break;
          uint32_t* child = clock_.data() + size_t{slot_of_[e.target]} * threads_;
          for (uint32_t w = 0; w < threads_; ++w) child[w] = std::max(child[w], th[w]);
          child[t] = std::max(child[t], p + 1);
          break;
        }
        case Op::Join: {
          const ThreadId x = e.target;
          if (x == e.thread || slot_of_[x] == kNoIndex) break;
          const uint32_t end = offset_[x] + static_cast<uint32_t>(index_.thread_events(x).size());
          if (th[slot_of_[x]] < end) {
            join_pre(th, slot_of_[x], end);
            changed = true;
          }
          break;
        }
        case Op::Recv:
          for (const uint32_t s : index_.sends_before(i))
            if (slot(s) != t) changed |= raise_to(th, slot(s), s);
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
            for (uint32_t h = list.holds[c].first; h < list.holds[c].second; ++h) {
              Hold& hold = holds_[h];
              hold.next_any = hold.next_write = c + 1;
              if (c + 1 == n) continue;
              for (uint32_t g = list.holds[c + 1].first; g < list.holds[c + 1].second; ++g) {
                if (holds_[g].lock != hold.lock) continue;
                hold.next_any = holds_[g].next_any;
                if (holds_[g].write) hold.next_write = holds_[g].next_write;
              }
            }
          }
        }
      }
    }
    // Per slot and position: the sections started and the stored clocks in effect (lookups
    // without a search in close(), which asks them for every thread's frontier).
    started_at_.resize(threads_);
    snap_at_.resize(threads_);
    for (ThreadId w = 0; w < threads_; ++w) {
      const auto n = static_cast<uint32_t>(events_of(w).size());
      const auto& sec = sections_[w];
      const auto& pos = snapshot_pos_[w];
      started_at_[w].resize(n + 1);
      snap_at_[w].resize(n + 1);
      uint32_t a = 0, b = 0;
      for (uint32_t q = 0; q <= n; ++q) {
        while (a < sec.size() && sec[a].acquire_pos < q) ++a;
        while (b < pos.size() && pos[b] <= q) ++b;
        started_at_[w][q] = a;
        snap_at_[w][q] = b;
      }
    }
    build_successors();
    variable_threads_ = {};
  }

  // The successor lists: every P edge between two threads, by its source thread. P's edges
  // between threads: a write to every later access of its variable and a read to every later
  // write; a release to every later acquire of its lock (not from a read release to a read
  // acquire); a fork to the child's first event; a thread's last event to its join; a send to
  // every later recv on its object. Only the earliest target in each thread is kept. One sweep
  // backwards through the trace keeps, per variable and thread, its next access and next write
  // (per lock and thread: its next acquire and next write acquire) side by side.
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
      const uint32_t p = pos_of(i);
      if (e.op == Op::Fork && e.target != e.thread && !index_.thread_events(e.target).empty()) {
        extra.push_back(Extra{i, slot_of_[e.target], offset_[e.target]});
      } else if (e.op == Op::Join && e.target != e.thread &&
                 !index_.thread_events(e.target).empty()) {
        const uint32_t last = index_.thread_events(e.target).back();
        if (last < i) extra.push_back(Extra{last, slot(i), p});
      } else if (e.op == Op::Recv) {
        for (const uint32_t s : index_.sends_before(i))
          if (slot(s) != slot(i)) extra.push_back(Extra{s, slot(i), p});
      }
    }
    std::sort(extra.begin(), extra.end(), [](const Extra& a, const Extra& b) {
      return a.source != b.source ? a.source < b.source : a.target < b.target;
    });
    // next[base + k]: thread k of the variable (lock): its next access (acquire) and next write
    // (write acquire) after the sweep point, positions in that thread.
    struct Next {
      ThreadId thread = 0;
      uint32_t any = kNoIndex;
      uint32_t write = kNoIndex;
    };
    std::vector<uint32_t> var_base(variables_.size() + 1, 0), lock_base(locks_.size() + 1, 0);
    for (size_t x = 0; x < variables_.size(); ++x)
      var_base[x + 1] = var_base[x] + static_cast<uint32_t>(variables_[x].size());
    for (size_t l = 0; l < locks_.size(); ++l)
      lock_base[l + 1] = lock_base[l] + static_cast<uint32_t>(locks_[l].size());
    std::vector<Next> var_next(var_base.back()), lock_next(lock_base.back());
    for (size_t x = 0; x < variables_.size(); ++x)
      for (size_t k = 0; k < variables_[x].size(); ++k)
        var_next[var_base[x] + k].thread = variables_[x][k].thread;
    for (size_t l = 0; l < locks_.size(); ++l)
      for (size_t k = 0; k < locks_[l].size(); ++k)
        lock_next[lock_base[l] + k].thread = locks_[l][k].thread;
    succ_.assign(threads_, {});
    std::vector<uint32_t> best(threads_, kNoIndex);
    std::vector<uint32_t> slot_at(size_t{threads_} * threads_, kNoIndex);  // (w, j): in succ_[w]
    std::vector<ThreadId> touched;
    const auto offer = [&](ThreadId j, uint32_t target) {
      if (target == kNoIndex) return;
      if (best[j] == kNoIndex) touched.push_back(j);
      best[j] = std::min(best[j], target);
    };
    size_t x_end = extra.size();  // extra[.., x_end) have sources before the sweep point
    for (uint32_t i = static_cast<uint32_t>(index_.size()); i-- > 0;) {
      const Event& e = index_.event(i);
      const ThreadId w = slot(i);
      const uint32_t p = pos_of(i);
      touched.clear();
      switch (e.op) {
        case Op::Read:
        case Op::Write: {
          if (!shared_[e.target]) break;
          Next* row = var_next.data() + var_base[e.target];
          const uint32_t n = var_base[e.target + 1] - var_base[e.target];
          Next* own = nullptr;
          for (uint32_t k = 0; k < n; ++k) {
            if (row[k].thread == w) {
              own = row + k;
              continue;
            }
            offer(row[k].thread, e.op == Op::Write ? row[k].any : row[k].write);
          }
          own->any = p;
          if (e.op == Op::Write) own->write = p;
          break;
        }
        case Op::Release:
        case Op::ReadRelease: {
          Next* row = lock_next.data() + lock_base[e.target];
          const uint32_t n = lock_base[e.target + 1] - lock_base[e.target];
          for (uint32_t k = 0; k < n; ++k)
            if (row[k].thread != w)
              offer(row[k].thread, e.op == Op::Release ? row[k].any : row[k].write);
          break;
        }
        case Op::Acquire:
        case Op::ReadAcquire: {
          Next* row = lock_next.data() + lock_base[e.target];
          for (uint32_t k = 0;; ++k) {
            if (row[k].thread != w) continue;
            row[k].any = p;
            if (e.op == Op::Acquire) row[k].write = p;
            break;
          }
          break;
        }
        default:
          break;
      }
      while (x_end > 0 && extra[x_end - 1].source > i) --x_end;
      for (size_t k = x_end; k-- > 0 && extra[k].source == i;)
        if (extra[k].to != w) offer(extra[k].to, extra[k].target);
      auto& out = succ_[w];
      for (const ThreadId j : touched) {
        uint32_t& at = slot_at[size_t{w} * threads_ + j];
        if (at == kNoIndex) {
          at = static_cast<uint32_t>(out.size());
          Successors& fresh = out.emplace_back();
          fresh.to = j;
          // With few slots, room for an edge from every event of w: untouched pages cost no
          // memory, and the lists do not grow by copies.
          if (threads_ <= 16) fresh.size_for(static_cast<uint32_t>(events_of(w).size()));
        }
        out[at].add(p, best[j]);
        best[j] = kNoIndex;
      }
    }
    // Each list in trace order (dense where that is no larger), with its tree.
    for (ThreadId w = 0; w < threads_; ++w)
      for (Successors& s : succ_[w]) s.finish(static_cast<uint32_t>(events_of(w).size()));
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
        const uint32_t i = events_of(y)[reach_[y]];
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
      reach_from(open_[a].thread, pos_of(open_[a].acquire));
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
    const uint32_t q = pos_of(j) + 1;
    if (th[w] >= q) return false;
    join_pre(th, w, q);
    return true;
  }
  // The clock of slot t stored as in effect from position p; `start`: for the events of a
  // thread that starts at p after another in the slot (not for the first p events).
  void push_snapshot(ThreadId t, uint32_t p, bool start = false) {
    const uint32_t* th = clock_.data() + size_t{t} * threads_;
    if (!start && !snapshot_pos_[t].empty() && snapshot_pos_[t].back() == p) {
      std::copy(th, th + threads_, snapshots_[t].end() - threads_);
      return;
    }
    snapshot_pos_[t].push_back(p);
    snapshot_start_[t].push_back(start ? 1 : 0);
    snapshots_[t].insert(snapshots_[t].end(), th, th + threads_);
    stored_words_ += threads_;
    if (stored_words_ > kMaxStoredWords)
      throw BudgetError(
          "osr stores a clock of one word per thread alive at once (" + std::to_string(threads_) +
          " here) wherever a thread's clock changes; they passed " +
          std::to_string(kMaxStoredWords * 4 >> 20) + " MiB at event " +
          std::to_string(index_.id(current_)) + ": too many threads alive at once for osr");
  }

  // How many stored clocks of u are in effect at position p: for the event at p (`prefix`
  // false: what its thread predecessors bring, with a fork into a shared slot) or for the
  // first p events of the slot (`prefix` true).
  uint32_t in_effect(ThreadId u, uint32_t p, bool prefix) const {
    const auto& pos = snapshot_pos_[u];
    auto k = u < snap_at_.size()
                 ? snap_at_[u][p]
                 : static_cast<uint32_t>(std::upper_bound(pos.begin(), pos.end(), p) - pos.begin());
    if (prefix && k > 0 && pos[k - 1] == p && snapshot_start_[u][k - 1]) --k;
    return k;
  }

  // pre(u, p) joined into v_. A thread's stored clocks only grow along it, so a clock no later
  // than the latest one of u already joined (joined_[u], 1-based) adds nothing but v_[u]. The
  // callers reset joined_ whenever v_ is set otherwise than by joins.
  // `track`: the threads whose frontier moves go onto close()'s work list.
  void join_into_v(ThreadId u, uint32_t p, bool prefix, bool track = false) {
    const uint32_t k = in_effect(u, p, prefix);
    if (k > joined_[u]) {
      joined_[u] = k;
      const uint32_t* row = snapshots_[u].data() + size_t{k - 1} * threads_;
      uint32_t* v = v_.data();
      if (!track) {
        for (uint32_t w = 0, n = threads_; w < n; ++w)
          if (w != u) v[w] = std::max(v[w], row[w]);
      } else {
        for (uint32_t w = 0, n = threads_; w < n; ++w) {
          if (w == u || row[w] <= v[w]) continue;
          v[w] = row[w];
          enqueue(w);
        }
      }
    }
    if (p > v_[u]) {
      v_[u] = p;
      if (track) enqueue(u);
    }
  }
  void enqueue(ThreadId w) {
    if (queued_[w]) return;
    queued_[w] = 1;
    work_.push_back(w);
  }

  // The stored TRF clock in effect for pre(u, p), or nullptr (nothing before the thread's start).
  const uint32_t* snapshot(ThreadId u, uint32_t p) const {
    const uint32_t k = in_effect(u, p, true);
    return k == 0 ? nullptr : snapshots_[u].data() + size_t{k - 1} * threads_;
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

  ThreadId slot(uint32_t i) const { return slot_of_[index_.event(i).thread]; }
  uint32_t pos_of(uint32_t i) const { return pos_[i]; }
  const std::vector<uint32_t>& events_of(ThreadId s) const { return *events_[s]; }

  // S (v_) as a prefix length per thread.
  std::vector<uint32_t> per_thread() const {
    std::vector<uint32_t> out(index_.thread_count(), 0);
    for (ThreadId x = 0; x < out.size(); ++x) {
      if (slot_of_[x] == kNoIndex) continue;
      const uint32_t q = v_[slot_of_[x]], n = static_cast<uint32_t>(index_.thread_events(x).size());
      out[x] = q <= offset_[x] ? 0 : std::min(q - offset_[x], n);
    }
    return out;
  }

  // Gives every thread with events a slot (slot_of_, offset_, events_; engines/lanes.hpp: a
  // thread forked after its forker joined an earlier one takes that one's slot); returns their
  // count.
  uint32_t assign_slots() {
    Lanes lanes = make_lanes(index_, LaneOptions{true, false, "osr", kMaxThreads});
    const uint32_t slots = lanes.count;
    slot_of_ = std::move(lanes.of);
    offset_ = std::move(lanes.offset);
    slot_events_ = std::move(lanes.shared);  // the lists stay where events_ points
    events_ = std::move(lanes.events);
    pos_.resize(index_.size());
    for (uint32_t s = 0; s < slots; ++s)
      for (uint32_t q = 0; q < events_[s]->size(); ++q) pos_[(*events_[s])[q]] = q;
    return slots;
  }

  VarThread& var_thread(VariableId x, ThreadId t) {
    auto& list = variables_[x];
    auto& ids = variable_threads_[x];
    for (size_t k = 0; k < ids.size(); ++k)
      if (ids[k] == t) return list[k];
    ids.push_back(t);
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
  size_t started(ThreadId w, uint32_t q) const { return started_at_[w][q]; }

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

  // The earliest candidate of `list` (its first `visible` ones, from the key's cursor) racing
  // with e2 (position p2 of t, holding `mine`; u's candidates before position `before` are
  // TRF-before it) of each thread in slot u, into `found` (trace indices).
  void next_race(Key& key, const Candidates& list, uint32_t visible, ThreadId u, ThreadId t,
                 uint32_t p2, uint32_t before, const std::vector<std::pair<LockId, bool>>& mine,
                 std::vector<uint32_t>& found) {
    if (key.cursor < visible && list.pos[key.cursor] < before)
      key.cursor = static_cast<uint32_t>(
          std::lower_bound(list.pos.begin() + key.cursor, list.pos.begin() + visible, before) -
          list.pos.begin());
    uint32_t c = key.cursor;
    bool first = true;
    while (c < visible) {
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
      if (!racy) {
        ++c;
        continue;
      }
      // The earliest of its thread; a later thread of the slot has its own earliest.
      const uint32_t e1 = events_of(u)[list.pos[c]];
      found.push_back(e1);
      const ThreadId x = index_.event(e1).thread;
      const auto end = static_cast<uint32_t>(offset_[x] + index_.thread_events(x).size());
      c = static_cast<uint32_t>(
          std::lower_bound(list.pos.begin() + c + 1, list.pos.begin() + visible, end) -
          list.pos.begin());
    }
  }

  // When candidate c holds a lock that e2 holds too, not both in read mode (two open sections
  // of one lock): the next candidate that does not hold it so; otherwise kNoIndex.
  uint32_t blocked(const Candidates& list, uint32_t c,
                   const std::vector<std::pair<LockId, bool>>& mine) const {
    for (uint32_t h = list.holds[c].first; h < list.holds[c].second; ++h) {
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
    join_into_v(t, p2, false);
    join_into_v(u, p1, false);
    // A thread whose frontier lies in no section that a later candidate could close (each is
    // closed in S or never released) is looked at again only when its frontier moves.
    if (!keep) seen_.assign(threads_, kNoIndex);
    // A work list of the threads to look at: first those not seen at their frontier, then
    // those whose frontier moves (the least fixpoint does not depend on the order).
    queued_.resize(threads_, 0);
    work_.clear();
    for (uint32_t w = 0; w < threads_; ++w)
      if (seen_[w] != v_[w]) enqueue(w);
    while (!work_.empty()) {
      const ThreadId w = work_.back();
      work_.pop_back();
      queued_[w] = 0;
      {
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
          join_into_v(w, end, true, true);  // w's frontier moved: looked at again
          open = true;
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
          if (pos_of(i) < v_[slot(i)]) order->push_back(i);
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
    const ThreadId u = slot(e1), t = slot(e2);
    const uint32_t p1 = pos_of(e1), p2 = pos_of(e2);
    close(u, p1, t, p2);
    x.closure = per_thread();
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
    for (const auto& [w, q] : reversed_) x.reversed.push_back(events_of(w)[q]);
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
        reversed_.emplace_back(lt.thread, pos_of(r));
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
    const auto in_s = [&](uint32_t i) { return pos_of(i) < v_[slot(i)]; };
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
    const auto done = [&](uint32_t j) { return ran_[slot(j)] > pos_of(j); };
    uint32_t left = 0;
    for (uint32_t w = 0; w < threads_; ++w) left += v_[w];
    for (bool progress = true; progress && left > 0;) {
      progress = false;
      for (uint32_t w = 0; w < threads_; ++w) {
        while (ran_[w] < v_[w]) {
          const uint32_t i = events_of(w)[ran_[w]];
          const Event& e = index_.event(i);
          if (ran_[w] == offset_[e.thread] && index_.fork_of(e.thread) != kNoIndex &&
              !done(index_.fork_of(e.thread)))
            break;
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
              ready = slot_of_[e.target] == kNoIndex ||
                      ran_[slot_of_[e.target]] >=
                          offset_[e.target] + index_.thread_events(e.target).size();
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
  // Slots: a thread forked by one that has joined an earlier thread (holding no lock at its end)
  // may run in that thread's slot after its events, as if it continued it: every event of the
  // earlier one is TRF-before its first event, so S, P and the races are the same on the
  // slots, whose count follows the threads alive at once rather than all threads.
  std::vector<ThreadId> slot_of_;  // per thread: its slot (kNoIndex: a thread without events)
  std::vector<uint32_t> offset_;   // per thread: the position of its first event in the slot
  Words pos_;                      // per event: its position in its slot
  size_t stored_words_ = 0;        // words of the stored clocks
  uint32_t current_ = 0;           // the event the first pass is at
  std::vector<std::vector<uint32_t>> slot_events_;    // per shared slot: its events (trace order)
  std::vector<const std::vector<uint32_t>*> events_;  // per slot: its events
  uint32_t threads_;                                  // slots
  std::vector<uint32_t> clock_;                       // the TRF clock of each thread (first pass)
  std::vector<std::vector<uint32_t>> snapshot_pos_;   // per thread: positions p of pre(u, p)
  std::vector<std::vector<uint8_t>> snapshot_start_;  // per thread: a thread's start in a slot
  std::vector<std::vector<uint32_t>> snapshots_;      // per thread: T words per position
  std::vector<std::vector<Section>> sections_;        // per thread: its sections
  std::vector<Words> started_at_;                     // per slot and position q: started(w, q)
  std::vector<Words> snap_at_;                        // per slot and position q: clocks at <= q
  std::vector<std::vector<uint32_t>> held_;           // per thread: its sections still held
  std::vector<std::vector<LockThread>> locks_;        // per lock: per thread its releases
  std::vector<std::vector<VarThread>> variables_;     // per variable: per thread its accesses
  std::vector<std::vector<ThreadId>> variable_threads_;  // per variable: those threads (first pass)
  std::vector<uint8_t> shared_;                          // per variable: accessed by two threads
  std::vector<Hold> holds_;                              // the locks held at each candidate
  std::vector<uint32_t> ideals_;                         // the keys' closures, T words each
  // State of one check, kept to reuse the memory.
  std::vector<uint32_t> v_;       // S as prefix lengths
  std::vector<uint32_t> seen_;    // per thread: the frontier last looked at by close()
  std::vector<uint8_t> queued_;   // per thread: on close()'s work list
  std::vector<ThreadId> work_;    // close()'s work list
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
  // The slot limit is checked by the analysis (threads alive at once, not all threads).
  return std::make_unique<PairCheckEngine<osr::Analysis>>(c, "osr", UINT32_MAX);
}

}  // namespace racepred
