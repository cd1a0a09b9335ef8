#include "racepred/exact/locksets.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

namespace racepred::exact {

std::vector<CriticalSection> critical_sections(const ExactTrace& trace) {
  std::vector<CriticalSection> sections;
  for (uint32_t i = 0; i < trace.size(); ++i) {
    const Event& e = trace.event(i);
    if (e.op == Op::Acquire) sections.push_back({i, trace.matching(i), e.target, e.thread});
  }
  return sections;
}

namespace {
uint32_t last_event_of(const ExactTrace& trace, ThreadId t) {
  return trace.thread_events(t).back();
}
bool after_in_thread(const ExactTrace& trace, uint32_t a, uint32_t e) {
  return trace.event(e).thread == trace.event(a).thread && e > a;
}
}  // namespace

bool before_release(const ExactTrace& trace, const MustHappenBefore& mhb, const CriticalSection& cs,
                    uint32_t e) {
  if (cs.release != kNoIndex) return mhb.before(e, cs.release);
  // Virtual release right after the thread's last event: e must precede it iff e is a later
  // event of the same thread or e <mhb last(t) (the release can always run right after last(t)).
  if (after_in_thread(trace, cs.acquire, e)) return true;
  const uint32_t last = last_event_of(trace, cs.thread);
  return e != last && mhb.before(e, last);
}

std::vector<uint32_t> standard_section(const ExactTrace& trace, const CriticalSection& cs) {
  std::vector<uint32_t> members;
  for (uint32_t i : trace.thread_events(cs.thread))
    if (i > cs.acquire && (cs.release == kNoIndex || i < cs.release)) members.push_back(i);
  return members;
}

std::vector<uint32_t> cross_section(const ExactTrace& trace, const MustHappenBefore& mhb,
                                    const CriticalSection& cs) {
  std::vector<uint32_t> members;
  for (uint32_t i = 0; i < trace.size(); ++i)
    if (mhb.before(cs.acquire, i) && before_release(trace, mhb, cs, i)) members.push_back(i);
  return members;
}

std::vector<LockSet> standard_lock_sets(const ExactTrace& trace) {
  std::vector<LockSet> sets(trace.size());
  for (uint32_t t = 0; t < trace.thread_count(); ++t) {
    LockSet held;  // sections open in thread t
    for (uint32_t i : trace.thread_events(t)) {
      const Event& e = trace.event(i);
      if (e.op == Op::Release) {
        // The release is not in its own section, but in every other open one.
        held.erase(std::find(held.begin(), held.end(), HeldLock{e.target, t}));
      }
      sets[i] = held;
      std::sort(sets[i].begin(), sets[i].end());
      if (e.op == Op::Acquire) held.push_back({e.target, t});
    }
  }
  return sets;
}

std::vector<LockSet> cross_lock_sets(const ExactTrace& trace, const MustHappenBefore& mhb) {
  std::vector<LockSet> sets(trace.size());
  for (const CriticalSection& cs : critical_sections(trace))
    for (uint32_t i : cross_section(trace, mhb, cs)) sets[i].push_back({cs.lock, cs.thread});
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
      if (x.lock == y.lock) return false;
  return true;
}

bool disjoint_indexed(const LockSet& a, const LockSet& b) {
  for (const HeldLock& x : a)
    for (const HeldLock& y : b)
      if (x.lock == y.lock && x.thread != y.thread) return false;
  return true;
}

namespace {

// The classes of accesses to one variable: same thread, same lock set, same kind of access.
// Pairs between compatible classes are all predicted, so they can be counted in bulk.
struct AccessClass {
  ThreadId thread;
  uint32_t lock_set;  // interned
  bool write;
  std::vector<uint32_t> events;  // seen so far, in trace order
};

class Predictor {
 public:
  Predictor(const ExactTrace& trace, const std::vector<LockSet>& sets, Intersection intersection)
      : trace_(trace), sets_(sets), intersection_(intersection) {}

  template <typename Report, typename Count>
  void run(Report report, Count count, const std::function<bool()>& accepting) {
    std::vector<std::vector<AccessClass>> classes(trace_.variable_count());
    std::vector<uint32_t> earlier;
    for (uint32_t f = 0; f < trace_.size(); ++f) {
      const Event& e = trace_.event(f);
      if (!e.is_access()) continue;
      const uint32_t ls = intern(sets_[f]);
      const bool write = e.op == Op::Write;
      auto& mine = classes[e.target];
      uint64_t total = 0;
      for (const AccessClass& c : mine)
        if (c.thread != e.thread && (c.write || write) && compatible(c.lock_set, ls))
          total += c.events.size();
      if (total > 0) {
        if (accepting()) {
          earlier.clear();
          for (const AccessClass& c : mine)
            if (c.thread != e.thread && (c.write || write) && compatible(c.lock_set, ls))
              earlier.insert(earlier.end(), c.events.begin(), c.events.end());
          std::sort(earlier.begin(), earlier.end());
          uint64_t reported = 0;
          for (uint32_t first : earlier) {
            if (!accepting()) break;
            report(first, f);
            ++reported;
          }
          if (reported < total) count(f, total - reported, reported == 0);
        } else {
          count(f, total, true);
        }
      }
      auto it = std::find_if(mine.begin(), mine.end(), [&](const AccessClass& c) {
        return c.thread == e.thread && c.lock_set == ls && c.write == write;
      });
      if (it == mine.end()) it = mine.insert(mine.end(), AccessClass{e.thread, ls, write, {}});
      it->events.push_back(f);
    }
  }

 private:
  uint32_t intern(const LockSet& set) {
    auto [it, inserted] = ids_.try_emplace(set, static_cast<uint32_t>(interned_.size()));
    if (inserted) interned_.push_back(&it->first);
    return it->second;
  }

  bool compatible(uint32_t a, uint32_t b) {
    const uint64_t key = (uint64_t{std::min(a, b)} << 32) | std::max(a, b);
    auto [it, inserted] = compatible_.try_emplace(key, false);
    if (inserted)
      it->second = intersection_ == Intersection::Plain
                       ? disjoint(*interned_[a], *interned_[b])
                       : disjoint_indexed(*interned_[a], *interned_[b]);
    return it->second;
  }

  const ExactTrace& trace_;
  const std::vector<LockSet>& sets_;
  Intersection intersection_;
  std::map<LockSet, uint32_t> ids_;
  std::vector<const LockSet*> interned_;
  std::unordered_map<uint64_t, bool> compatible_;
};

}  // namespace

void predict_races(const ExactTrace& trace, const std::vector<LockSet>& sets,
                   Intersection intersection, RaceSink& sink) {
  Predictor predictor(trace, sets, intersection);
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

std::vector<std::pair<uint32_t, uint32_t>> predicted_pairs(const ExactTrace& trace,
                                                           const std::vector<LockSet>& sets,
                                                           Intersection intersection) {
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  Predictor predictor(trace, sets, intersection);
  predictor.run([&](uint32_t first, uint32_t second) { pairs.emplace_back(first, second); },
                [](uint32_t, uint64_t, bool) {}, [] { return true; });
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

std::string format_lock_set(const ExactTrace& trace, const LockSet& set, bool indexed) {
  std::string s = "{";
  bool first = true;
  auto separate = [&] {
    if (!first) s += ", ";
    first = false;
  };
  if (indexed) {
    for (const HeldLock& h : set) {
      separate();
      s += '(';
      s += trace.lock_name(h.lock);
      s += ',';
      s += trace.thread_name(h.thread);
      s += ')';
    }
  } else {
    for (LockId l : locks_of(set)) {
      separate();
      s += trace.lock_name(l);
    }
  }
  s += '}';
  return s;
}

}  // namespace racepred::exact
