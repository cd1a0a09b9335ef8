#include "racepred/exact/locksets.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

namespace racepred::exact {

namespace {
uint32_t last_event_of(const TraceIndex& trace, ThreadId t) {
  return trace.thread_events(t).back();
}
bool after_in_thread(const TraceIndex& trace, uint32_t a, uint32_t e) {
  return trace.event(e).thread == trace.event(a).thread && e > a;
}
}  // namespace

bool before_release(const TraceIndex& trace, const MustHappenBefore& mhb, const CriticalSection& cs,
                    uint32_t e) {
  if (cs.release != kNoIndex) return mhb.before(e, cs.release);
  // Virtual release right after the thread's last event: e must precede it iff e is a later
  // event of the same thread or e <mhb last(t) (the release can always run right after last(t)).
  if (after_in_thread(trace, cs.acquire, e)) return true;
  const uint32_t last = last_event_of(trace, cs.thread);
  return e != last && mhb.before(e, last);
}

std::vector<uint32_t> standard_section(const TraceIndex& trace, const CriticalSection& cs) {
  std::vector<uint32_t> members;
  for (uint32_t i : trace.thread_events(cs.thread))
    if (i > cs.acquire && (cs.release == kNoIndex || i < cs.release)) members.push_back(i);
  return members;
}

namespace {
// The section of the thread's last acquire of the lock at or after cs.acquire: its release (or
// the virtual one) is the latest release that can close a cross-thread section opened by cs.
CriticalSection last_section(const TraceIndex& trace, const CriticalSection& cs) {
  CriticalSection last = cs;
  for (uint32_t i : trace.thread_events(cs.thread)) {
    const Event& e = trace.event(i);
    if (i > last.acquire && is_acquire_op(e.op) && e.target == cs.lock &&
        (e.op == Op::ReadAcquire) == cs.read) {
      last.acquire = i;
      last.release = trace.matching(i);
    }
  }
  return last;
}
}  // namespace

std::vector<uint32_t> cross_section(const TraceIndex& trace, const MustHappenBefore& mhb,
                                    const CriticalSection& cs) {
  const CriticalSection last = last_section(trace, cs);
  std::vector<uint32_t> members;
  for (uint32_t i = 0; i < trace.size(); ++i) {
    if (!mhb.before(cs.acquire, i) || !before_release(trace, mhb, last, i)) continue;  // CROSS-1
    // CS-CROSS-2: no prefix runs the matching release between a and e (the virtual release,
    // when there is no matching one, is the last release and cannot come before e).
    if (cs.release != kNoIndex && !mhb.before_in_common(i, cs.release)) continue;
    members.push_back(i);
  }
  return members;
}

std::vector<LockSet> standard_lock_sets(const TraceIndex& trace) {
  std::vector<LockSet> sets(trace.size());
  for (uint32_t t = 0; t < trace.thread_count(); ++t) {
    LockSet held;  // sections open in thread t
    for (uint32_t i : trace.thread_events(t)) {
      const Event& e = trace.event(i);
      const HeldLock h{e.target, t, is_read_lock_op(e.op)};
      if (is_release_op(e.op)) {
        // The release is not in its own section, but in every other open one.
        held.erase(std::find(held.begin(), held.end(), h));
      }
      sets[i] = held;
      std::sort(sets[i].begin(), sets[i].end());
      if (is_acquire_op(e.op)) held.push_back(h);
    }
  }
  return sets;
}

std::vector<LockSet> cross_lock_sets(const TraceIndex& trace, const MustHappenBefore& mhb) {
  std::vector<LockSet> sets(trace.size());
  for (const CriticalSection& cs : trace.critical_sections())
    for (uint32_t i : cross_section(trace, mhb, cs))
      sets[i].push_back({cs.lock, cs.thread, cs.read});
  for (LockSet& s : sets) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  return sets;
}

std::vector<LockId> locks_of(const LockSet& set) {
  std::vector<LockId> locks;
  for (const HeldLock& h : set) locks.push_back(h.lock);
  locks.erase(std::unique(locks.begin(), locks.end()), locks.end());  // set is sorted by lock
  return locks;
}

bool disjoint(const LockSet& a, const LockSet& b) {
  for (const HeldLock& x : a)
    for (const HeldLock& y : b)
      if (x.lock == y.lock && !(x.read && y.read)) return false;
  return true;
}

bool disjoint_indexed(const LockSet& a, const LockSet& b) {
  for (const HeldLock& x : a)
    for (const HeldLock& y : b)
      if (x.lock == y.lock && x.thread != y.thread && !(x.read && y.read)) return false;
  return true;
}

namespace {
// The plain intersection's view of a set: each lock once (thread 0), in read mode only when
// every hold of it is in read mode (a write hold meets every hold of the lock).
LockSet plain_key(const LockSet& set) {
  LockSet key;
  for (const HeldLock& h : set) {  // sorted by lock
    if (!key.empty() && key.back().lock == h.lock)
      key.back().read = key.back().read && h.read;
    else
      key.push_back({h.lock, 0, h.read});
  }
  return key;
}
}  // namespace

LockSetIds intern_lock_sets(const std::vector<LockSet>& per_event) {
  LockSetIds ids;
  std::map<LockSet, uint32_t> index;
  ids.of_event.reserve(per_event.size());
  for (const LockSet& set : per_event) {
    auto [it, inserted] = index.try_emplace(set, static_cast<uint32_t>(ids.sets.size()));
    if (inserted) ids.sets.push_back(set);
    ids.of_event.push_back(it->second);
  }
  return ids;
}

LockSetIds standard_lock_set_ids(const TraceIndex& trace) {
  LockSetIds ids;
  std::map<LockSet, uint32_t> index;
  auto intern = [&](const LockSet& set) {
    auto [it, inserted] = index.try_emplace(set, static_cast<uint32_t>(ids.sets.size()));
    if (inserted) ids.sets.push_back(set);
    return it->second;
  };
  ids.of_event.assign(trace.size(), 0);
  for (uint32_t t = 0; t < trace.thread_count(); ++t) {
    LockSet held;  // sorted
    uint32_t id = intern(held);
    for (uint32_t i : trace.thread_events(t)) {
      const Event& e = trace.event(i);
      const HeldLock h{e.target, t, is_read_lock_op(e.op)};
      if (is_release_op(e.op)) {  // not in its own section, but in every other open one
        held.erase(std::find(held.begin(), held.end(), h));
        id = intern(held);
      }
      ids.of_event[i] = id;
      if (is_acquire_op(e.op)) {
        held.insert(std::upper_bound(held.begin(), held.end(), h), h);
        id = intern(held);
      }
    }
  }
  return ids;
}

namespace {

// Accesses of one variable with the same lock-set key and kind; pairs between two groups whose
// keys do not intersect are predicted unless both accesses are by the same thread.
struct AccessGroup {
  uint32_t key;
  bool write;
  uint64_t count = 0;
  std::vector<std::pair<ThreadId, uint64_t>> per_thread;  // accesses of each thread
  std::vector<uint32_t> events;  // in trace order, kept only while pairs are still enumerated

  uint64_t count_of(ThreadId t) const {
    for (const auto& [thread, n] : per_thread)
      if (thread == t) return n;
    return 0;
  }
  void add(ThreadId t) {
    ++count;
    for (auto& [thread, n] : per_thread)
      if (thread == t) {
        ++n;
        return;
      }
    per_thread.emplace_back(t, 1);
  }
};

// Keys for LockSetIds: with the plain intersection only the locks matter, so sets that differ in
// threads alone (LH_S of different threads) share one key, which keeps the cache small.
LockSetKeys keys_of(const LockSetIds& sets, Intersection intersection) {
  auto key_sets = std::make_shared<std::vector<LockSet>>();
  std::map<LockSet, uint32_t> index;
  std::vector<uint32_t> key_of;  // per lock set id
  key_of.reserve(sets.sets.size());
  for (const LockSet& set : sets.sets) {
    const LockSet key = intersection == Intersection::Plain ? plain_key(set) : set;
    auto [it, inserted] = index.try_emplace(key, static_cast<uint32_t>(key_sets->size()));
    if (inserted) key_sets->push_back(key);
    key_of.push_back(it->second);
  }
  LockSetKeys keys;
  keys.of_event.reserve(sets.of_event.size());
  for (uint32_t id : sets.of_event) keys.of_event.push_back(key_of[id]);
  keys.count = static_cast<uint32_t>(key_sets->size());
  keys.disjoint = [key_sets, intersection](uint32_t a, uint32_t b) {
    return intersection == Intersection::Plain ? disjoint((*key_sets)[a], (*key_sets)[b])
                                               : disjoint_indexed((*key_sets)[a], (*key_sets)[b]);
  };
  return keys;
}

class Predictor {
 public:
  Predictor(const TraceIndex& trace, const LockSetKeys& keys) : trace_(trace), keys_(keys) {
    const size_t n = keys.count;
    if (n <= kDenseLimit) dense_.assign(n * n, -1);
  }

  // report(first, second) while accepting() holds, then count(second, n, mark) for pairs not
  // reported one by one (mark: second has no reported pair).
  template <typename Report, typename Count, typename Accepting>
  void run(Report report, Count count, Accepting accepting) {
    std::vector<std::vector<AccessGroup>> groups(trace_.variable_count());
    std::vector<uint32_t> earlier;
    bool enumerate = true;
    for (uint32_t f = 0; f < trace_.size(); ++f) {
      const Event& e = trace_.event(f);
      if (!e.is_access()) continue;
      const uint32_t key = keys_.of_event[f];
      const bool write = e.op == Op::Write;
      auto& mine = groups[e.target];
      auto pairs_with = [&](const AccessGroup& g) {
        return (g.write || write) && disjoint_keys(g.key, key);
      };
      uint64_t total = 0;
      for (const AccessGroup& g : mine)
        if (pairs_with(g)) total += g.count - g.count_of(e.thread);
      if (enumerate && !accepting()) {
        enumerate = false;  // the sink is full: from now on only counts
        for (auto& per_variable : groups)
          for (AccessGroup& g : per_variable) std::vector<uint32_t>().swap(g.events);
      }
      if (total > 0) {
        uint64_t reported = 0;
        if (enumerate) {
          earlier.clear();
          for (const AccessGroup& g : mine)
            if (pairs_with(g))
              for (uint32_t i : g.events)
                if (trace_.event(i).thread != e.thread) earlier.push_back(i);
          std::sort(earlier.begin(), earlier.end());
          for (uint32_t first : earlier) {
            if (!accepting()) break;
            report(first, f);
            ++reported;
          }
        }
        if (reported < total) count(f, total - reported, reported == 0);
      }
      AccessGroup* own = nullptr;
      for (AccessGroup& g : mine)
        if (g.key == key && g.write == write) own = &g;
      if (!own) own = &mine.emplace_back(AccessGroup{key, write, 0, {}, {}});
      own->add(e.thread);
      if (enumerate) own->events.push_back(f);
    }
  }

 private:
  static constexpr size_t kDenseLimit = 4096;  // distinct lock sets with a dense cache

  bool disjoint_keys(uint32_t a, uint32_t b) {
    if (!dense_.empty()) {
      int8_t& known = dense_[size_t{a} * keys_.count + b];
      if (known < 0) known = compute(a, b);
      return known != 0;
    }
    const uint64_t key = (uint64_t{std::min(a, b)} << 32) | std::max(a, b);
    auto [it, inserted] = sparse_.try_emplace(key, false);
    if (inserted) it->second = compute(a, b);
    return it->second;
  }

  bool compute(uint32_t a, uint32_t b) const { return keys_.disjoint(a, b); }

  const TraceIndex& trace_;
  const LockSetKeys& keys_;
  std::vector<int8_t> dense_;  // -1 unknown, 0 intersecting, 1 disjoint
  std::unordered_map<uint64_t, bool> sparse_;
};

}  // namespace

void predict_races(const TraceIndex& trace, const LockSetIds& sets, Intersection intersection,
                   RaceSink& sink) {
  predict_races(trace, keys_of(sets, intersection), sink);
}

void predict_races(const TraceIndex& trace, const LockSetKeys& keys, RaceSink& sink) {
  Predictor predictor(trace, keys);
  predictor.run(
      [&](uint32_t first, uint32_t second) {
        sink.report(Race{Access::of(trace.id(first), trace.event(first)),
                         Access::of(trace.id(second), trace.event(second)),
                         trace.event(second).target});
      },
      [&](uint32_t second, uint64_t n, bool mark) {
        sink.add_uncounted_races(n);
        if (mark) sink.mark_racy(Access::of(trace.id(second), trace.event(second)));
      },
      [&] { return sink.accepting(); });
}

std::vector<std::pair<uint32_t, uint32_t>> predicted_pairs(const TraceIndex& trace,
                                                           const std::vector<LockSet>& sets,
                                                           Intersection intersection) {
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  const LockSetKeys keys = keys_of(intern_lock_sets(sets), intersection);
  Predictor predictor(trace, keys);
  predictor.run([&](uint32_t first, uint32_t second) { pairs.emplace_back(first, second); },
                [](uint32_t, uint64_t, bool) {}, [] { return true; });
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

std::string format_lock_set(const TraceIndex& trace, const LockSet& set, bool indexed) {
  std::string s = "{";
  bool first = true;
  auto separate = [&] {
    if (!first) s += ", ";
    first = false;
  };
  // A lock held in read mode only is written r:NAME.
  if (indexed) {
    for (const HeldLock& h : set) {
      separate();
      s += '(';
      if (h.read) s += "r:";
      s += trace.lock_name(h.lock);
      s += ',';
      s += trace.thread_name(h.thread);
      s += ')';
    }
  } else {
    for (const HeldLock& h : plain_key(set)) {
      separate();
      if (h.read) s += "r:";
      s += trace.lock_name(h.lock);
    }
  }
  s += '}';
  return s;
}

}  // namespace racepred::exact
