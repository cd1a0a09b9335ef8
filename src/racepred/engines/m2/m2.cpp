// m2: Pavlogiannis's M2 ("Fast, sound, and effectively complete dynamic race prediction", POPL
// 2020), an offline engine on the run's TraceIndex. The definitions and the plan are in m2.hpp;
// docs/ENGINES.md ("m2") has the costs.
#include "racepred/engines/m2/m2.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "racepred/engines/engine.hpp"
#include "racepred/engines/index_race.hpp"
#include "racepred/engines/lanes.hpp"
#include "racepred/engines/osr/osr.hpp"
#include "racepred/engines/pair_check_engine.hpp"
#include "racepred/engines/witness_source.hpp"

namespace racepred {
namespace m2 {
namespace {

constexpr uint32_t kMaxThreads = 8192;  // lanes: the cone clocks are dense, a word per lane
constexpr size_t kDenseCursors = 64;    // the cone clocks are dense: T words per snapshot

// A critical section of the window: its release is kNoIndex when it is not in X (open).
struct Section {
  uint32_t acquire = 0;
  uint32_t release = kNoIndex;
  LockId lock = 0;
  ThreadId thread = 0;
  bool read = false;
};

// One lane's reads (kind 0) or writes (kind 1) of one variable, as trace indices (`thread`: the
// lane).
// A cursor of the candidate loop: for the accesses of `thread`, the first of lists[kind] outside
// the access's cone. Monotone: an event in the cone of an access e2 of t is in the cone of every
// later access of t (cones grow along a thread), and a pair whose first event is in the cone of
// the second is never a race (the first would be in X); so the cursor only moves forward and
// skips only pairs that are not races.
struct Cursor {
  ThreadId thread = 0;
  uint8_t kind = 0;
  uint32_t at = 0;
};

// One thread's releases of one lock (kind 0: all, kind 1: of write sections), as trace indices.
struct LockThread {
  ThreadId thread = 0;
  std::vector<uint32_t> lists[2];
};

struct VarThread {
  ThreadId thread = 0;
  std::vector<uint32_t> lists[2];
  // The cursors: at[2 * j + kind] for the variable's j-th thread when it has at most
  // kDenseCursors threads, else in `cursors`.
  std::vector<uint32_t> at;
  std::vector<Cursor> cursors;
};

// Lanes (engines/lanes.hpp): one cone-clock word per lane (threads alive at once), not per
// thread; a thread that ends in a pending request keeps its lane. The candidate loop and the
// reports stay per thread.
Lanes make_lanes(const TraceIndex& index, bool share = true) {
  return racepred::make_lanes(index, LaneOptions{share, true, "m2", kMaxThreads});
}

class Analysis {
 public:
  // `share_lanes` false: every thread its own lane (tests compare both).
  explicit Analysis(const TraceIndex& index, uint64_t work = kDefaultWork, bool share_lanes = true)
      : index_(index),
        lanes_(make_lanes(index, share_lanes)),
        work_limit_(work),
        threads_(lanes_.count),
        snapshot_pos_(threads_),
        snapshots_(threads_),
        start_(index.thread_count()),
        held_begin_(threads_),
        held_end_(threads_),
        variables_(index.variable_count()),
        locks_(index.lock_count()),
        holder_(index.lock_count(), 0),
        readers_(index.lock_count(), 0),
        last_(index.variable_count(), kNoIndex),
        initial_left_(index.variable_count(), 0),
        left_(index.size(), 0),
        node_of_(index.size(), kNoIndex),
        seen_(index.variable_count(), 0),
        slot_(threads_, kNoIndex),
        osr_(index) {
    // Flat copies of the index's per-event links (each index lookup is a call).
    const uint32_t n = static_cast<uint32_t>(index.size());
    pos_.resize(n);
    link_.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      pos_[i] = lanes_.offset[index.event(i).thread] + index.index_in_thread(i);
      const Op op = index.event(i).op;
      link_[i] = op == Op::Read ? index.last_write(i) : index.matching(i);
    }
    events_of_ = lanes_.events;
    build();
  }

  // report(e1, e2) for every race (index positions), in order of e2, then e1.
  template <class Report>
  void run(Report&& report) {
    std::vector<uint32_t> found;
    for (uint32_t i = 0; i < index_.size(); ++i) {
      const Event& e = index_.event(i);
      if (!e.is_access()) continue;
      const ThreadId t = e.thread;
      const uint32_t* pre = pre_of(i);
      found.clear();
      std::vector<VarThread>& vars = variables_[e.target];
      const ThreadId lt = lanes_.of[t];
      uint32_t own = 0;  // t's lane's entry among the variable's lanes
      while (vars[own].thread != lt) ++own;
      for (VarThread& other : vars) {
        const ThreadId u = other.thread;  // a lane
        // The lane's events are a chain of TRF: those before e2 are in its cone.
        if (u == lt) continue;
        const std::vector<uint32_t>& events_u = events_of(u);
        const uint32_t frontier = pre == nullptr ? 0 : pre[u];
        if (frontier >= events_u.size()) continue;
        const uint32_t from = events_u[frontier];  // u's first event outside e2's cone
        for (uint8_t kind = e.op == Op::Write ? 0 : 1; kind < 2; ++kind) {
          const std::vector<uint32_t>& list = other.lists[kind];
          uint32_t& at = cursor(other, own, lt, kind);
          advance(list, at, from);
          // Per thread of the lane (they follow each other in the list), its earliest race.
          for (uint32_t c = at; c < list.size() && list[c] < i;) {
            if (share_lock(list[c], i) || !check(list[c], i, nullptr)) {
              ++c;
              continue;
            }
            found.push_back(list[c]);
            advance(list, c, index_.last_of(index_.event(list[c]).thread) + 1);  // next thread
          }
        }
      }
      std::sort(found.begin(), found.end());
      for (const uint32_t first : found) report(first, i);
    }
  }

  // The pairs whose closure stopped at the work bound (not reported).
  uint64_t stopped() const { return stopped_; }

  // The note on those pairs (the run's extras), or nothing when there is none.
  std::optional<ExtraStat> stopped_stat() const {
    if (stopped_ == 0) return std::nullopt;
    const std::string bound = "(--m2-work " + std::to_string(work_limit_) + ")";
    return ExtraStat{"stopped_checks", "stopped",
                     "check stopped at its work bound " + bound +
                         "; this pair may be a race: --m2-work 0 checks it fully",
                     "checks stopped at their work bound " + bound +
                         "; these pairs may be races: --m2-work 0 checks them fully",
                     stopped_};
  }

  // Whether the necessary closure (forced_out) shows that (e1, e2) has no witness at all.
  bool excluded(uint32_t e1, uint32_t e2) {
    e1_ = e1;
    e2_ = e2;
    t1_ = lane(e1);
    t2_ = lane(e2);
    p1_ = pos(e1);
    p2_ = pos(e2);
    return t1_ != t2_ && forced_out();
  }

  // Whether (e1, e2) is an M2 race; `order` (when not null) gets the witness prefix.
  bool check(uint32_t e1, uint32_t e2, std::vector<uint32_t>* order) {
    e1_ = e1;
    e2_ = e2;
    t1_ = lane(e1);
    t2_ = lane(e2);
    p1_ = pos(e1);
    p2_ = pos(e2);
    if (t1_ == t2_) return false;
    if (osr_.check(e1, e2, order)) return true;  // OSR's reordering (every OSR race is M2's)
    if (forced_out()) return false;              // no witness at all (cheaper than M2's closure)
    work_ = 0;
    if (attempt(false, order) || attempt(true, order)) return true;
    if (work_ > work_limit_) ++stopped_;
    return false;
  }

 private:
  // One closure and linearisation. `optimistic`: before each round every open section whose
  // release's cone holds neither access is closed (OSR's optimism), for the pairs where M2's own
  // choices leave a third thread's section open and end in a cycle.
  bool attempt(bool optimistic, std::vector<uint32_t>* order) {
    lim_.assign(threads_, 0);
    join_into(lim_.data(), pre_of(e1_));
    join_into(lim_.data(), pre_of(e2_));
    lim_[t1_] = std::max(lim_[t1_], p1_);
    lim_[t2_] = std::max(lim_[t2_], p2_);
    derived_.clear();
    cap_ = static_cast<uint32_t>(index_.size());
    for (;;) {
      if (lim_[t1_] > p1_ || lim_[t2_] > p2_) return false;
      if (optimistic && close_closable()) continue;
      if (!window()) return false;
      work_ += nodes_.size();
      if (work_ > work_limit_) return false;  // the budget: the pair is not reported
      lowered_ = false;
      if (!order_window()) {
        if (lowered_) continue;
        return false;  // Q has a cycle
      }
      bool forced = false;
      const size_t before = derived_.size();
      if (!lock_rule(forced)) return false;
      if (forced) continue;
      bool retry = false;
      if (!observation_rule(retry)) return false;
      if (retry) continue;
      if (derived_.size() == before) break;
    }
    return linearise(order);
  }

  // Whether no correctly reordered prefix leaves e1 and e2 both enabled: a necessary condition
  // for every witness, checked before M2's own closure (it never changes a verdict, it only
  // rejects pairs that closure would reject too, at the cost of a few cone joins).
  // F is the least set that holds the cones of e1's and e2's thread predecessors and
  //   (a) the release (and its cone) of every section c of F's frontier (acquire in F, release
  //       not) whose acquire lies in the cone of a release r of its lock in F, not both read
  //       sections;
  //   (b) when a section of F's frontier must stay open (its release does not exist or its cone
  //       holds e1 or e2), the release of every other section of its lock at F's frontier, not
  //       both read sections.
  // Claim: every witness W (the events of a correctly reordered prefix after which e1 and e2 are
  // enabled, e1 and e2 not in it) contains F. W holds the thread predecessors of e1 and e2 and is
  // closed under thread order, fork, join, reads-from and send -> recv, so it holds their cones.
  // (a): r in W and acq(c) before r in W; c and r's section exclude each other and cannot
  // overlap, so c is released before r's acquire: rel(c) in W. (b): a section whose release is
  // not in any W (none, or its cone holds e1 or e2) is held at W's end; a lock is held at the
  // end by one writer or only readers, so every other section of it in W, not both read, is
  // released in W. Hence: F holding e1 or e2, two sections of F's frontier that must stay open
  // and exclude each other, or (a) needing the release of a section that must stay open, leave
  // no witness (true).
  bool forced_out() {
    lim_.assign(threads_, 0);
    join_into(lim_.data(), pre_of(e1_));
    join_into(lim_.data(), pre_of(e2_));
    lim_[t1_] = std::max(lim_[t1_], p1_);
    lim_[t2_] = std::max(lim_[t2_], p2_);
    for (;;) {
      if (lim_[t1_] > p1_ || lim_[t2_] > p2_) return true;
      held_now_.clear();
      for (ThreadId t = 0; t < threads_; ++t)
        for (const uint32_t a : held_at(t, lim_[t])) held_now_.push_back(a);
      if (held_now_.empty()) return false;
      std::sort(held_now_.begin(), held_now_.end(), [&](uint32_t a, uint32_t b) {
        const LockId la = index_.event(a).target, lb = index_.event(b).target;
        return la != lb ? la < lb : a < b;
      });
      bool grew = false;
      // A section of X's frontier whose acquire lies in the cone of a release of its lock (of a
      // write section, for a read section) in X must be released before that release's
      // acquire: sections of one lock do not overlap.
      for (const uint32_t a : held_now_) {
        const Event& ea = index_.event(a);
        const uint8_t kind = ea.op == Op::ReadAcquire ? 1 : 0;
        for (const LockThread& lt : locks_[ea.target]) {
          if (lt.thread == lane(a)) continue;
          const std::vector<uint32_t>& rel = lt.lists[kind];
          const std::vector<uint32_t>& ev = events_of(lt.thread);
          const uint32_t end = lim_[lt.thread] < ev.size() ? ev[lim_[lt.thread]] : kNoIndex;
          auto it = std::lower_bound(rel.begin(), rel.end(), end);
          if (it == rel.begin()) continue;
          if (after_clock(*(it - 1))[lane(a)] <= pos(a)) continue;
          if (!closable(Section{a, kNoIndex, ea.target, 0, false})) return true;
          force(link(a));
          grew = true;
          break;
        }
      }
      if (grew) continue;
      for (size_t g = 0; g < held_now_.size();) {
        const LockId l = index_.event(held_now_[g]).target;
        size_t h = g + 1;
        while (h < held_now_.size() && index_.event(held_now_[h]).target == l) ++h;
        if (h - g > 1) {
          // The sections that must stay open: how many, and whether one is a write section.
          uint32_t open = 0;
          bool open_write = false;
          for (size_t j = g; j < h; ++j) {
            if (closable(Section{held_now_[j], kNoIndex, l, 0, false})) continue;
            ++open;
            open_write |= index_.event(held_now_[j]).op == Op::Acquire;
          }
          if (open > 1 && open_write) return true;
          if (open > 0) {
            for (size_t j = g; j < h; ++j) {
              const uint32_t a = held_now_[j];
              if (!open_write && index_.event(a).op == Op::ReadAcquire) continue;
              if (!closable(Section{a, kNoIndex, l, 0, false})) continue;
              force(link(a));
              grew = true;
            }
          }
        }
        g = h;
      }
      if (!grew) return false;
    }
  }

  // Closes every open section that can be closed without bringing in e1 or e2; whether X grew.
  bool close_closable() {
    bool grew = false;
    for (ThreadId t = 0; t < threads_; ++t) {
      for (const uint32_t a : held_at(t, lim_[t])) {
        const Section s{a, kNoIndex, index_.event(a).target, t, false};
        if (closable(s)) {
          force(link(a));
          grew = true;
        }
      }
    }
    return grew;
  }

  // --- The first pass: cone clocks, held sections, accesses by variable and thread. ---
  void build() {
    if (threads_ == 0) return;
    std::vector<uint32_t> clock(size_t{threads_} * threads_, 0);
    std::vector<std::vector<uint32_t>> held(threads_);
    for (ThreadId t = 0; t < threads_; ++t) {
      held_begin_[t].reserve(events_of(t).size() + 1);
      held_end_[t].reserve(events_of(t).size() + 1);
    }
    for (uint32_t i = 0; i < index_.size(); ++i) {
      const Event& e = index_.event(i);
      const ThreadId t = lane(i);
      const uint32_t p = pos(i);
      uint32_t* row = clock.data() + size_t{t} * threads_;
      // The sections held before event p of t.
      held_begin_[t].push_back(static_cast<uint32_t>(held_pool_.size()));
      for (const uint32_t a : held[t]) held_pool_.push_back(a);
      held_end_[t].push_back(static_cast<uint32_t>(held_pool_.size()));
      bool changed = p == 0;
      if (index_.first_of(e.thread) == i && !start_[e.thread].empty()) {
        // The first event of a forked thread (after its lane's earlier threads, if any).
        const std::vector<uint32_t>& f = start_[e.thread];
        for (uint32_t u = 0; u < threads_; ++u) row[u] = std::max(row[u], f[u]);
        changed = true;
      }
      switch (e.op) {
        case Op::Read:
        case Op::Write: {
          var_thread(e.target, t).lists[e.op == Op::Write ? 1 : 0].push_back(i);
          if (e.op == Op::Read) {
            const uint32_t w = link(i);
            if (w != kNoIndex && lane(w) != t) changed |= raise(row, w);
          }
          break;
        }
        case Op::Join: {
          const uint32_t last = index_.last_of(e.target);
          if (last != kNoIndex && last < i) changed |= raise(row, last);
          break;
        }
        case Op::Recv:
          for (const uint32_t s : index_.sends_before(i))
            if (lane(s) != t) changed |= raise(row, s);
          break;
        case Op::Acquire:
        case Op::ReadAcquire:
          held[t].push_back(i);
          break;
        case Op::Release:
        case Op::ReadRelease: {
          const uint32_t a = link(i);
          LockThread& lt = lock_thread(e.target, t);
          lt.lists[0].push_back(i);
          if (e.op == Op::Release) lt.lists[1].push_back(i);
          auto it = std::find(held[t].begin(), held[t].end(), a);
          if (it != held[t].end()) held[t].erase(it);
          break;
        }
        default:
          break;
      }
      row[t] = p + 1;
      if (e.op == Op::Fork && e.target != e.thread && e.target < index_.thread_count()) {
        start_[e.target].assign(row, row + threads_);
      }
      if (changed) {
        snapshot_pos_[t].push_back(p);
        snapshots_[t].insert(snapshots_[t].end(), row, row + threads_);
      }
    }
    for (std::vector<VarThread>& vars : variables_)
      if (vars.size() <= kDenseCursors)
        for (VarThread& v : vars) v.at.assign(2 * vars.size(), 0);
    // The sections held at each thread's end.
    for (ThreadId t = 0; t < threads_; ++t) {
      held_begin_[t].push_back(static_cast<uint32_t>(held_pool_.size()));
      for (const uint32_t a : held[t]) held_pool_.push_back(a);
      held_end_[t].push_back(static_cast<uint32_t>(held_pool_.size()));
    }
  }

  LockThread& lock_thread(LockId l, ThreadId t) {
    for (LockThread& v : locks_[l])
      if (v.thread == t) return v;
    locks_[l].push_back(LockThread{t, {}});
    return locks_[l].back();
  }

  // The cursor of (t, kind) in v: by t's entry `own` among the variable's threads when the
  // variable has few threads, else looked up.
  uint32_t& cursor(VarThread& v, uint32_t own, ThreadId t, uint8_t kind) {
    if (!v.at.empty()) return v.at[2 * own + kind];
    for (Cursor& c : v.cursors)
      if (c.thread == t && c.kind == kind) return c.at;
    v.cursors.push_back(Cursor{t, kind, 0});
    return v.cursors.back().at;
  }

  // Moves `at` to the first entry of the sorted list at or after `from` (galloping: the
  // cursor usually moves little).
  static void advance(const std::vector<uint32_t>& list, uint32_t& at, uint32_t from) {
    const uint32_t n = static_cast<uint32_t>(list.size());
    if (at >= n || list[at] >= from) return;
    uint32_t lo = at, step = 1;  // list[lo] < from
    while (lo + step < n && list[lo + step] < from) {
      lo += step;
      step *= 2;
    }
    const uint32_t hi = std::min(n, lo + step);
    at = static_cast<uint32_t>(std::lower_bound(list.begin() + lo + 1, list.begin() + hi, from) -
                               list.begin());
  }

  VarThread& var_thread(VariableId x, ThreadId t) {
    for (VarThread& v : variables_[x])
      if (v.thread == t) return v;
    variables_[x].push_back(VarThread{t, {}, {}, {}});
    return variables_[x].back();
  }

  // The cone clock of event i (i included): the snapshot at or before it.
  const uint32_t* after_clock(uint32_t i) const {
    const ThreadId t = lane(i);
    const uint32_t p = pos(i);
    const std::vector<uint32_t>& pos = snapshot_pos_[t];
    const size_t k = static_cast<size_t>(std::upper_bound(pos.begin(), pos.end(), p) - pos.begin());
    return snapshots_[t].data() + (k - 1) * threads_;  // position 0 always has one
  }

  // row ⊔= the cone of event i; whether it grew.
  bool raise(uint32_t* row, uint32_t i) const {
    const uint32_t* c = after_clock(i);
    bool grew = false;
    for (uint32_t u = 0; u < threads_; ++u) {
      if (c[u] > row[u]) {
        row[u] = c[u];
        grew = true;
      }
    }
    const ThreadId t = lane(i);
    const uint32_t own = pos(i) + 1;
    if (own > row[t]) {
      row[t] = own;
      grew = true;
    }
    return grew;
  }

  // The cone of event i's thread predecessors (and its thread's fork; for the first event of a
  // thread in a shared lane, the fork's cone holds the lane's earlier threads): null for
  // nothing. The entry of i's lane is the caller's to set.
  const uint32_t* pre_of(uint32_t i) const {
    const ThreadId x = index_.event(i).thread;
    if (index_.first_of(x) == i) return start_[x].empty() ? nullptr : start_[x].data();
    return after_clock(events_of(lane(i))[pos(i) - 1]);
  }

  // lim ⊔= a clock, the own entries of which the caller sets.
  void join_into(uint32_t* lim, const uint32_t* c) const {
    if (c == nullptr) return;
    for (uint32_t u = 0; u < threads_; ++u) lim[u] = std::max(lim[u], c[u]);
  }

  std::span<const uint32_t> held_at(ThreadId t, uint32_t p) const {
    const uint32_t b = held_begin_[t][p], e = held_end_[t][p];
    return {held_pool_.data() + b, held_pool_.data() + e};
  }

  // e1 and e2 hold a common lock, not both in read mode: never a race.
  bool share_lock(uint32_t e1, uint32_t e2) const {
    const auto h1 = held_at(lane(e1), pos(e1));
    const auto h2 = held_at(lane(e2), pos(e2));
    for (const uint32_t a : h1)
      for (const uint32_t b : h2)
        if (index_.event(a).target == index_.event(b).target &&
            !(index_.event(a).op == Op::ReadAcquire && index_.event(b).op == Op::ReadAcquire))
          return true;
    return false;
  }

  // --- One check. ---

  // The window: k (events before it run first in trace order), the per-thread base, the nodes.
  // False when a pending request would have to run.
  bool window() {
    k_ = static_cast<uint32_t>(index_.size());
    for (ThreadId t = 0; t < threads_; ++t) {
      const std::vector<uint32_t>& ev = events_of(t);
      if (lim_[t] == ev.size() && !ev.empty() && is_request_op(index_.event(ev.back()).op))
        return false;
      for (const uint32_t a : held_at(t, lim_[t])) k_ = std::min(k_, a);
    }
    k_ = std::min(k_, cap_);
    for (const uint32_t i : nodes_) node_of_[i] = kNoIndex;
    nodes_.clear();
    base_.assign(threads_, 0);
    for (const ThreadId t : active_) slot_[t] = kNoIndex;
    active_.clear();
    for (ThreadId t = 0; t < threads_; ++t) {
      const std::vector<uint32_t>& ev = events_of(t);
      base_[t] = static_cast<uint32_t>(std::lower_bound(ev.begin(), ev.begin() + lim_[t], k_) -
                                       ev.begin());
      if (base_[t] < lim_[t]) {
        slot_[t] = static_cast<uint32_t>(active_.size());
        active_.push_back(t);
      }
      for (uint32_t p = base_[t]; p < lim_[t]; ++p) {
        node_of_[ev[p]] = static_cast<uint32_t>(nodes_.size());
        nodes_.push_back(ev[p]);
      }
    }
    return true;
  }

  bool in_window(uint32_t i) const { return node_of_[i] != kNoIndex; }

  // The edges into window nodes (besides thread order): the cone's and the derived ones.
  bool collect_edges() {
    edges_.clear();
    auto add = [&](uint32_t from, uint32_t to) {
      if (from >= k_) edges_.emplace_back(from, to);
    };
    // A derived edge into the prefix from the window (X grew and k moved past its target): the
    // prefix cannot run first.
    for (const auto& d : derived_)
      if (d.first >= k_ && d.second < k_) return lower(d.second);
    for (const uint32_t i : nodes_) {
      const Event& e = index_.event(i);
      if (index_.first_of(e.thread) == i && index_.fork_of(e.thread) != kNoIndex)
        add(index_.fork_of(e.thread), i);
      switch (e.op) {
        case Op::Read: {
          const uint32_t w = link(i);
          if (w != kNoIndex) add(w, i);
          break;
        }
        case Op::Join: {
          const uint32_t last = index_.last_of(e.target);
          if (last != kNoIndex && last < i) add(last, i);
          break;
        }
        case Op::Recv:
          for (const uint32_t s : index_.sends_before(i)) add(s, i);
          break;
        default:
          break;
      }
    }
    for (const auto& d : derived_) add(d.first, d.second);
    return true;
  }

  // Q on the window as a clock per node (prefix lengths per thread); false on a cycle.
  bool order_window() {
    if (!collect_edges()) return false;
    const uint32_t m = static_cast<uint32_t>(nodes_.size());
    in_begin_.assign(m + 1, 0);
    out_begin_.assign(m + 1, 0);
    for (const auto& [from, to] : edges_) {
      ++in_begin_[node_of_[to] + 1];
      ++out_begin_[node_of_[from] + 1];
    }
    for (uint32_t n = 0; n < m; ++n) {
      in_begin_[n + 1] += in_begin_[n];
      out_begin_[n + 1] += out_begin_[n];
    }
    in_.resize(edges_.size());
    out_.resize(edges_.size());
    {
      std::vector<uint32_t>& fill_in = scratch_;
      fill_in.assign(in_begin_.begin(), in_begin_.end() - 1);
      std::vector<uint32_t>& fill_out = scratch2_;
      fill_out.assign(out_begin_.begin(), out_begin_.end() - 1);
      for (const auto& [from, to] : edges_) {
        in_[fill_in[node_of_[to]]++] = node_of_[from];
        out_[fill_out[node_of_[from]]++] = node_of_[to];
      }
    }
    // Kahn's order: a node waits for its thread predecessor and its in-edges.
    pending_.assign(m, 0);
    for (uint32_t n = 0; n < m; ++n) {
      const uint32_t i = nodes_[n];
      pending_[n] = in_begin_[n + 1] - in_begin_[n] + (pos(i) > base_[lane(i)] ? 1 : 0);
    }
    // Every row is written (from its thread predecessor's or the base) before it is read.
    const uint32_t width = static_cast<uint32_t>(active_.size());
    clock_.resize(size_t{m} * width);
    active_base_.resize(width);
    for (uint32_t a = 0; a < width; ++a) active_base_[a] = base_[active_[a]];
    queue_.clear();
    for (uint32_t n = 0; n < m; ++n)
      if (pending_[n] == 0) queue_.push_back(n);
    for (size_t q = 0; q < queue_.size(); ++q) {
      const uint32_t n = queue_[q];
      const uint32_t i = nodes_[n];
      const ThreadId t = lane(i);
      uint32_t* c = clock_.data() + size_t{n} * width;
      const uint32_t p = pos(i);
      if (p > base_[t]) {
        const uint32_t* prev = clock_.data() + size_t{n - 1} * width;
        std::copy(prev, prev + width, c);
      } else {
        std::copy(active_base_.begin(), active_base_.end(), c);
      }
      for (uint32_t j = in_begin_[n]; j < in_begin_[n + 1]; ++j) {
        const uint32_t* o = clock_.data() + size_t{in_[j]} * width;
        for (uint32_t u = 0; u < width; ++u) c[u] = std::max(c[u], o[u]);
      }
      c[slot_[t]] = std::max(c[slot_[t]], p + 1);
      auto release = [&](uint32_t s) {
        if (--pending_[s] == 0) queue_.push_back(s);
      };
      if (p + 1 < lim_[t]) release(n + 1);
      for (uint32_t j = out_begin_[n]; j < out_begin_[n + 1]; ++j) release(out_[j]);
    }
    return queue_.size() == m;
  }

  // The prefix cannot run first: the window starts at `at` at the latest; the next round starts
  // over (the derived edges rested on the old prefix). Returns false for the caller's "not yet".
  bool lower(uint32_t at) {
    cap_ = std::min(cap_, at);
    derived_.clear();
    lowered_ = true;
    return false;
  }

  // a ≤Q b for events of X (the prefix runs first, in trace order).
  bool le(uint32_t a, uint32_t b) const {
    if (a < k_) return b >= k_ || a <= b;
    if (b < k_) return false;
    const ThreadId ta = lane(a);
    return clock_[size_t{node_of_[b]} * active_.size() + slot_[ta]] > pos(a);
  }

  // Adds the cone of event i to X.
  void force(uint32_t i) {
    derived_.clear();
    join_into(lim_.data(), after_clock(i));
    const ThreadId t = lane(i);
    lim_[t] = std::max(lim_[t], pos(i) + 1);
  }

  // Whether closing s keeps e1 and e2 out of X (its release exists and its cone holds neither).
  bool closable(const Section& s) const {
    const uint32_t r = link(s.acquire);
    if (r == kNoIndex) return false;
    const uint32_t* c = after_clock(r);
    const ThreadId t = lane(r);
    const uint32_t own = pos(r) + 1;
    auto beyond = [&](ThreadId u, uint32_t p) { return (u == t ? own : c[u]) > p; };
    return !beyond(t1_, p1_) && !beyond(t2_, p2_);
  }

  // The lock rule over the window's sections; `forced` when X grew (the caller starts again).
  bool lock_rule(bool& forced) {
    sections_.clear();
    for (ThreadId t = 0; t < threads_; ++t) {
      auto add = [&](uint32_t a) {
        const uint32_t r = link(a);
        const bool closed = r != kNoIndex && pos(r) < lim_[t];
        sections_.push_back(Section{a, closed ? r : kNoIndex, index_.event(a).target, t,
                                    index_.event(a).op == Op::ReadAcquire});
      };
      for (const uint32_t a : held_at(t, base_[t])) add(a);  // straddling k
      const std::vector<uint32_t>& ev = events_of(t);
      for (uint32_t p = base_[t]; p < lim_[t]; ++p)
        if (is_acquire_op(index_.event(ev[p]).op)) add(ev[p]);
    }
    std::sort(sections_.begin(), sections_.end(), [](const Section& a, const Section& b) {
      return a.lock != b.lock ? a.lock < b.lock : a.acquire < b.acquire;
    });
    auto close = [&](const Section& s) {
      const uint32_t r = link(s.acquire);
      if (r == kNoIndex) return false;  // held to the end of the trace
      force(r);
      forced = true;
      return true;
    };
    for (size_t g = 0; g < sections_.size();) {
      size_t h = g;
      while (h < sections_.size() && sections_[h].lock == sections_[g].lock) ++h;
      for (size_t a = g; a < h; ++a) {
        for (size_t b = g; b < h; ++b) {
          const Section& x = sections_[a];
          const Section& y = sections_[b];
          if (a == b || x.thread == y.thread || (x.read && y.read)) continue;
          // Must x go before y?
          const bool before = y.release == kNoIndex || le(x.acquire, y.release);
          if (!before) continue;
          if (x.release == kNoIndex) {
            if (y.release == kNoIndex) {
              // Two open sections: close the one Q orders first; unordered, the one that can
              // be closed without bringing in e1 or e2 (as OSR's optimism), else the earlier.
              bool x_first;
              if (le(x.acquire, y.acquire) != le(y.acquire, x.acquire))
                x_first = le(x.acquire, y.acquire);
              else if (closable(x) != closable(y))
                x_first = closable(x);
              else
                x_first = x.acquire < y.acquire;
              return close(x_first ? x : y);
            }
            return close(x);
          }
          if (le(x.release, y.acquire)) continue;
          if (y.acquire < k_) {
            lower(y.acquire);
            forced = true;
            return true;
          }
          derived_.emplace_back(x.release, y.acquire);
        }
      }
      g = h;
    }
    return true;
  }

  // The observation rule over the window's reads and writes (the writes grouped by variable).
  bool observation_rule(bool& retry) {
    window_writes_.clear();
    for (const uint32_t i : nodes_)
      if (index_.event(i).op == Op::Write) window_writes_.emplace_back(index_.event(i).target, i);
    std::sort(window_writes_.begin(), window_writes_.end());
    for (const uint32_t r : nodes_) {
      const Event& e = index_.event(r);
      if (e.op != Op::Read) continue;
      const uint32_t w = link(r);
      for (auto it = std::lower_bound(window_writes_.begin(), window_writes_.end(),
                                      std::make_pair(e.target, uint32_t{0}));
           it != window_writes_.end() && it->first == e.target; ++it) {
        const uint32_t w2 = it->second;
        if (w2 == w) continue;
        if (w == kNoIndex) {
          if (le(r, w2)) continue;
          if (le(w2, r)) return false;
          derived_.emplace_back(r, w2);
          continue;
        }
        if (le(w2, r) && !le(w2, w)) {
          if (w < k_) {
            lower(w);
            retry = true;
            return true;
          }
          derived_.emplace_back(w2, w);
        }
        if (le(w, w2) && !le(r, w2)) {
          if (le(w2, r)) return false;
          derived_.emplace_back(r, w2);
        }
      }
    }
    return true;
  }

  // The greedy schedule of the window after the prefix [0, k): every step checked.
  bool linearise(std::vector<uint32_t>* order) {
    const uint32_t m = static_cast<uint32_t>(nodes_.size());
    // The state at k.
    std::vector<LockId>& locks = touched_locks_;
    std::vector<VariableId>& vars = touched_vars_;
    locks.clear();
    vars.clear();
    held_count_.assign(threads_, 0);
    for (ThreadId t = 0; t < threads_; ++t) {
      for (const uint32_t a : held_at(t, base_[t])) {
        const Event& e = index_.event(a);
        if (e.op == Op::ReadAcquire)
          ++readers_[e.target];
        else
          holder_[e.target] = t + 1;
        locks.push_back(e.target);
        ++held_count_[t];
      }
    }
    std::vector<uint32_t>& writes_left = writes_left_;
    writes_left.clear();
    for (const uint32_t i : nodes_) {
      const Event& e = index_.event(i);
      if (is_acquire_op(e.op)) locks.push_back(e.target);
      if (!e.is_access()) continue;
      if (!seen_[e.target]) {
        seen_[e.target] = 1;
        vars.push_back(e.target);
        last_[e.target] = last_prefix_write(e.target);
      }
      if (e.op == Op::Read) {
        const uint32_t w = link(i);
        if (w == kNoIndex) {
          ++initial_left_[e.target];
        } else {
          if (left_[w]++ == 0) writes_left.push_back(w);
        }
      }
    }
    // Pending in-edges per node (thread order is the cursor).
    pending_.assign(m, 0);
    for (uint32_t n = 0; n < m; ++n) pending_[n] = in_begin_[n + 1] - in_begin_[n];
    cursor_.assign(base_.begin(), base_.end());
    if (order != nullptr) {
      order->clear();
      for (uint32_t i = 0; i < k_; ++i)
        if (pos(i) < lim_[lane(i)]) order->push_back(i);
    }
    bool ok = true;
    for (uint32_t step = 0; step < m && ok; ++step) {
      ThreadId pick = threads_;
      bool pick_holds = false;
      uint32_t pick_event = 0;
      for (const ThreadId t : active_) {
        if (cursor_[t] >= lim_[t]) continue;
        const uint32_t i = events_of(t)[cursor_[t]];
        const bool holds = held_count_[t] > 0;
        // The enabled thread of highest priority: enabled() only for one that would win.
        if (pick == threads_ || (holds && !pick_holds) || (holds == pick_holds && i < pick_event)) {
          if (!enabled(i)) continue;
          pick = t;
          pick_holds = holds;
          pick_event = i;
        }
      }
      if (pick == threads_) {
        ok = false;
        break;
      }
      execute(pick_event);
      ++cursor_[pick];
      if (order != nullptr) order->push_back(pick_event);
    }
    // Reset the shared state.
    for (const LockId l : locks) holder_[l] = readers_[l] = 0;
    for (const VariableId x : vars) {
      last_[x] = kNoIndex;
      initial_left_[x] = 0;
      seen_[x] = 0;
    }
    for (const uint32_t w : writes_left) left_[w] = 0;
    for (const uint32_t i : nodes_) {
      const Event& e = index_.event(i);
      if (e.is_access()) {
        last_[e.target] = kNoIndex;
        initial_left_[e.target] = 0;
      }
      if (e.op == Op::Write) left_[i] = 0;
    }
    if (!ok && order != nullptr) order->clear();
    return ok;
  }

  // The last write of x among the events of X before k (they run first, in trace order).
  uint32_t last_prefix_write(VariableId x) const {
    uint32_t last = kNoIndex;
    for (const VarThread& v : variables_[x]) {
      const std::vector<uint32_t>& ws = v.lists[1];
      const ThreadId l = v.thread;  // a lane
      const std::vector<uint32_t>& ev = events_of(l);
      const uint32_t end = base_[l] < ev.size() ? ev[base_[l]] : kNoIndex;
      auto it = std::lower_bound(ws.begin(), ws.end(), end);
      if (it != ws.begin() && (last == kNoIndex || *(it - 1) > last)) last = *(it - 1);
    }
    return last;
  }

  bool enabled(uint32_t i) const {
    if (pending_[node_of_[i]] != 0) return false;
    const Event& e = index_.event(i);
    switch (e.op) {
      case Op::Acquire:
        return holder_[e.target] == 0 && readers_[e.target] == 0;
      case Op::ReadAcquire:
        return holder_[e.target] == 0;
      case Op::Write: {
        const uint32_t lw = last_[e.target];
        return (lw == kNoIndex ? initial_left_[e.target] : left_[lw]) == 0;
      }
      case Op::Read:
        return last_[e.target] == link(i);
      default:
        return true;
    }
  }

  void execute(uint32_t i) {
    const Event& e = index_.event(i);
    const ThreadId t = lane(i);
    switch (e.op) {
      case Op::Acquire:
        holder_[e.target] = t + 1;
        ++held_count_[t];
        break;
      case Op::ReadAcquire:
        ++readers_[e.target];
        ++held_count_[t];
        break;
      case Op::Release:
        holder_[e.target] = 0;
        --held_count_[t];
        break;
      case Op::ReadRelease:
        --readers_[e.target];
        --held_count_[t];
        break;
      case Op::Write:
        last_[e.target] = i;
        break;
      case Op::Read: {
        const uint32_t w = link(i);
        if (w == kNoIndex)
          --initial_left_[e.target];
        else
          --left_[w];
        break;
      }
      default:
        break;
    }
    const uint32_t n = node_of_[i];
    for (uint32_t j = out_begin_[n]; j < out_begin_[n + 1]; ++j) --pending_[out_[j]];
  }

  const TraceIndex& index_;
  Lanes lanes_;
  ThreadId lane(uint32_t i) const { return lanes_.of[index_.event(i).thread]; }
  // Per event: its position in its lane, and its link (a read's last write, an acquire's
  // release, a release's acquire; kNoIndex otherwise). Per thread: its events.
  std::vector<uint32_t> pos_, link_;
  std::vector<const std::vector<uint32_t>*> events_of_;
  uint32_t pos(uint32_t i) const { return pos_[i]; }
  uint32_t link(uint32_t i) const { return link_[i]; }
  const std::vector<uint32_t>& events_of(ThreadId t) const { return *events_of_[t]; }
  // The work one pair's closure may take (kDefaultWork): window events summed over its rounds
  // (each round orders its window, O(W · threads in it)). A pair osr's check rejects whose
  // closure needs more is not reported and is counted (`stopped_checks`): the bound keeps m2
  // within a small multiple of osr where a section held across much of the trace makes every
  // window span it.
  uint64_t work_limit_;
  uint32_t threads_;
  std::vector<std::vector<uint32_t>> snapshot_pos_;  // per thread: positions with a snapshot
  std::vector<std::vector<uint32_t>> snapshots_;     // per thread: T words per snapshot
  std::vector<std::vector<uint32_t>> start_;         // per thread: the cone of its fork
  // Per thread and position p (0..size): the sections held before event p (at the end for p =
  // size) are held_pool_[held_begin_[t][p], held_end_[t][p]).
  std::vector<std::vector<uint32_t>> held_begin_, held_end_;
  std::vector<uint32_t> held_pool_;                // acquires of the sections held
  std::vector<std::vector<VarThread>> variables_;  // per variable: per thread its accesses
  std::vector<std::vector<LockThread>> locks_;     // per lock: per thread its releases
  // State of one check, kept to reuse the memory.
  std::vector<uint32_t> lim_, base_, nodes_, cursor_, held_count_;
  uint32_t k_ = 0;
  uint32_t cap_ = 0;          // k is at most this (lowered when the prefix cannot run first)
  bool lowered_ = false;      // order_window failed only because the cap came down
  uint32_t e1_ = 0, e2_ = 0;  // the pair being checked; t1_, t2_ their lanes
  ThreadId t1_ = 0, t2_ = 0;
  uint32_t p1_ = 0, p2_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> derived_, edges_;
  std::vector<uint32_t> in_begin_, out_begin_, in_, out_, pending_, queue_, clock_, scratch_,
      scratch2_, writes_left_;
  std::vector<LockId> touched_locks_;
  std::vector<VariableId> touched_vars_;
  std::vector<Section> sections_;
  std::vector<uint32_t> held_now_;  // forced_out: the acquires of the sections held at X's frontier
  std::vector<std::pair<VariableId, uint32_t>> window_writes_;
  std::vector<uint32_t> holder_, readers_, last_, initial_left_, left_, node_of_;
  std::vector<uint8_t> seen_;
  uint64_t work_ = 0, stopped_ = 0;
  // The threads with events in the window (the clocks of Q have one entry per such thread) and
  // each thread's slot among them (kNoIndex for the others); the base of each slot.
  std::vector<ThreadId> active_;
  std::vector<uint32_t> slot_, active_base_;
  osr::Checker osr_;
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

std::vector<std::pair<uint32_t, uint32_t>> races_in_own_lanes(const TraceIndex& index) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  Analysis analysis(index, kDefaultWork, false);
  analysis.run([&](uint32_t first, uint32_t second) { out.emplace_back(first, second); });
  return out;
}

uint32_t lanes(const TraceIndex& index) {
  return make_lanes(index).count;
}

bool excluded(const TraceIndex& index, uint32_t first, uint32_t second) {
  Analysis analysis(index);
  return analysis.excluded(first, second);
}

std::vector<uint32_t> witness(const TraceIndex& index, uint32_t first, uint32_t second) {
  Analysis analysis(index);
  std::vector<uint32_t> order;
  if (!analysis.check(first, second, &order)) return {};
  order.push_back(first);
  order.push_back(second);
  return order;
}

std::unique_ptr<Engine> make_engine(EngineContext& c, uint64_t work) {
  // The lane limit is checked by the analysis (threads alive at once, not all threads).
  return std::make_unique<PairCheckEngine<Analysis>>(c, "m2", UINT32_MAX, work);
}

}  // namespace m2

static_assert(EngineOptions{}.m2_work == m2::kDefaultWork, "options.def states m2's default bound");

std::unique_ptr<Engine> make_m2(EngineContext& c) {
  // --m2-work 0: no bound.
  const uint64_t work = c.options.m2_work == 0 ? UINT64_MAX : c.options.m2_work;
  return m2::make_engine(c, work);
}

}  // namespace racepred
