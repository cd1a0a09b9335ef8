#include "racepred/explore/witness_order.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "racepred/format/explore_channel.hpp"

namespace racepred::explore {
namespace {

namespace ch = format::explore;
using StepKind = WitnessPlan::StepKind;

// The runtime's operation codes (recorder/sched.hpp's VisibleOp; the channel header names the
// few explore needs, the rest are fixed by the same enumeration).
enum : uint8_t {
  kCreate = 1,
  kJoin = 2,
  kLock = 4,
  kTrylock = 5,
  kTimedlock = 6,
  kUnlock = 7,
  kRdlock = 8,
  kTryRdlock = 9,
  kTimedRdlock = 10,
  kWrlock = 11,
  kTryWrlock = 12,
  kTimedWrlock = 13,
  kRwUnlockRead = 14,
  kRwUnlockWrite = 15,
  kCondWait = 16,
  kCondTimedWait = 17,
  kFileLock = 31,
  kFileUnlock = 32,
};
static_assert(ch::kOpThreadCreate == kCreate && ch::kOpThreadJoin == kJoin &&
              ch::kOpMutexLock == kLock && ch::kOpAccess == 33);

enum class Hook : uint8_t {
  Other,
  Acquire,
  ReadAcquire,
  Release,
  ReadRelease,
  CondWait,
  Create,
  Join
};

Hook hook_of(uint8_t op) {
  switch (op) {
    case kLock:
    case kTrylock:
    case kTimedlock:
    case kWrlock:
    case kTryWrlock:
    case kTimedWrlock:
    case kFileLock:
      return Hook::Acquire;
    case kRdlock:
    case kTryRdlock:
    case kTimedRdlock:
      return Hook::ReadAcquire;
    case kUnlock:
    case kRwUnlockWrite:
    case kFileUnlock:
      return Hook::Release;
    case kRwUnlockRead:
      return Hook::ReadRelease;
    case kCondWait:
    case kCondTimedWait:
      return Hook::CondWait;
    case kCreate:
      return Hook::Create;
    case kJoin:
      return Hook::Join;
    default:
      return Hook::Other;
  }
}

bool is_try(uint8_t op) {
  return op == kTrylock || op == kTryRdlock || op == kTryWrlock;
}

// "0x55d7ef6d0200" -> its value; 0 for any other name.
uint64_t address_of(std::string_view name) {
  if (name.size() < 3 || name.substr(0, 2) != "0x") return 0;
  uint64_t v = 0;
  for (const char ch : name.substr(2)) {
    const int d = ch >= '0' && ch <= '9'   ? ch - '0'
                  : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                  : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                           : -1;
    if (d < 0 || v >> 60) return 0;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

WitnessPlan plan_witness(const Trace& trace, const Trace& named, const witness::Witness& w) {
  WitnessPlan p;
  p.trace = &trace;
  p.named = &named;
  p.notion = w.notion;
  const size_t n = trace.events.size();
  p.rank.assign(n, WitnessPlan::kNotInWitness);
  ThreadId threads = 0;
  for (const Event& e : trace.events) threads = std::max<ThreadId>(threads, e.thread + 1);
  p.events.resize(threads);
  for (size_t i = 0; i < n; ++i) p.events[trace.events[i].thread].push_back(i);
  if (n) p.main = trace.events[0].thread;

  // T' in order: the cut's events in trace order, then the listed prefix.
  std::vector<size_t> order;
  std::vector<size_t> cut(threads, SIZE_MAX);
  for (const EventId id : w.cut) {
    const size_t i = trace.index_of(id);
    if (i == SIZE_MAX) {
      p.error = "the witness names event " + std::to_string(id) + ", not in the recorded run";
      return p;
    }
    cut[trace.events[i].thread] = i;
  }
  if (!w.cut.empty())
    for (size_t i = 0; i < n; ++i) {
      const size_t c = cut[trace.events[i].thread];
      if (c != SIZE_MAX && i <= c) order.push_back(i);
    }
  for (const EventId id : w.prefix) {
    const size_t i = trace.index_of(id);
    if (i == SIZE_MAX) {
      p.error = "the witness names event " + std::to_string(id) + ", not in the recorded run";
      return p;
    }
    order.push_back(i);
  }
  const size_t first = trace.index_of(w.first), second = trace.index_of(w.second);
  if (first == SIZE_MAX || second == SIZE_MAX) {
    p.error = "the witness's race is not in the recorded run";
    return p;
  }
  // Adjacent: T' ends with the two accesses; they are run as the race, not as steps.
  if (w.notion == witness::Notion::Adjacent && order.size() >= 2 &&
      order[order.size() - 2] == first && order.back() == second)
    order.resize(order.size() - 2);
  for (size_t k = 0; k < order.size(); ++k) p.rank[order[k]] = k;
  p.witness_events = order.size();

  for (uint32_t l = 0; l < trace.symbols.locks.size(); ++l)
    p.lock_address.push_back(address_of(trace.lock_name(l)));

  // Each thread's steps: the events a visible operation of its own does.
  p.steps.resize(threads);
  p.whole.assign(threads, true);
  for (ThreadId t = 0; t < threads; ++t) {
    const std::vector<size_t>& ev = p.events[t];
    for (size_t j = 0; j < ev.size(); ++j) {
      const Event& e = trace.events[ev[j]];
      if (p.rank[ev[j]] == WitnessPlan::kNotInWitness) p.whole[t] = false;
      // A condition wait: rel(m) before its hook, then recv(cv) and acq(m) at one location.
      const auto same = [&](size_t k, Op op, bool same_target) {
        if (k >= ev.size()) return false;
        const Event& f = trace.events[ev[k]];
        return f.op == op && f.location == e.location && (!same_target || f.target == e.target);
      };
      WitnessPlan::Step s;
      s.index = ev[j];
      s.position = j;
      s.object = e.target;
      s.rank = p.rank[ev[j]];
      switch (e.op) {
        case Op::Acquire:
          if (j >= 2 && same(j - 1, Op::Recv, false) && same(j - 2, Op::Release, true)) {
            s.kind = StepKind::CondWait;
            s.cv = trace.events[ev[j - 1]].target;
          } else {
            s.kind = StepKind::Acquire;
          }
          break;
        case Op::ReadAcquire:
          s.kind = StepKind::ReadAcquire;
          break;
        case Op::Release:
          if (same(j + 1, Op::Recv, false) && same(j + 2, Op::Acquire, true)) continue;
          s.kind = StepKind::Release;
          break;
        case Op::ReadRelease:
          s.kind = StepKind::ReadRelease;
          break;
        case Op::Fork:
          s.kind = StepKind::Fork;
          break;
        case Op::Join:
          s.kind = StepKind::Join;
          break;
        default:
          continue;
      }
      p.steps[t].push_back(s);
    }
  }

  // The racing accesses: their threads' steps before them, and the arrivals at an access point
  // between the last of those steps and the access.
  p.race_locations[0] = trace.events[first].location;
  p.race_locations[1] = trace.events[second].location;
  const size_t racing[2] = {first, second};
  for (int k = 0; k < 2; ++k) {
    WitnessPlan::Access& a = p.race[k];
    a.index = racing[k];
    a.thread = trace.events[a.index].thread;
    a.address = address_of(trace.variable_name(trace.events[a.index].target));
    const std::vector<size_t>& ev = p.events[a.thread];
    const size_t position =
        static_cast<size_t>(std::lower_bound(ev.begin(), ev.end(), a.index) - ev.begin());
    size_t from = 0;
    for (const WitnessPlan::Step& s : p.steps[a.thread])
      if (s.position < position) {
        ++a.steps_before;
        from = s.position + 1;
      }
    for (size_t j = from; j < position; ++j) {
      const Event& e = trace.events[ev[j]];
      if (e.is_access() && p.is_race_location(e.location)) ++a.arrivals_before;
    }
  }
  if (p.race[0].thread == p.race[1].thread) p.error = "the two accesses are of one thread";
  return p;
}

WitnessOrder::WitnessOrder(const WitnessPlan& plan, bool later_first)
    : plan_(plan), later_first_(later_first) {
  threads_.resize(plan.steps.size());
}

std::string WitnessOrder::thread_text(ThreadId t) const {
  return std::string(plan_.named->thread_name(t));
}

// "acquire of m at file.c:12"
std::string WitnessOrder::event_text(size_t index) const {
  const Trace& t = *plan_.named;
  const Event& e = t.events[index];
  std::string s(op_long_name(e.op));
  s += " of ";
  s += std::string(t.target_name(e));
  s += " at ";
  s += std::string(t.location_name(e.location));
  return s;
}

std::string WitnessOrder::hook_text(const Candidate& c) const {
  std::string s = operation_name(c.op);
  if (c.op == kCreate || c.op == ch::kOpNone) return s;
  if (c.op == kJoin) {
    const auto it = by_run_.find(static_cast<uint32_t>(c.obj - 1));
    return s + " of " +
           (it != by_run_.end() ? thread_text(it->second) : "thread " + std::to_string(c.obj - 1));
  }
  const auto it = address_lock_.find(c.obj);
  if (it != address_lock_.end())
    return s + " of " + std::string(plan_.named->symbols.locks.name(it->second));
  return s + " of " + hex(c.obj);
}

bool WitnessOrder::bind_lock(uint32_t lock, uint64_t address, bool commit) {
  if (lock < plan_.lock_address.size() && plan_.lock_address[lock]) {
    if (address != plan_.lock_address[lock]) return false;
    if (commit) {
      lock_address_[lock] = address;
      address_lock_[address] = lock;
    }
    return true;
  }
  const auto a = lock_address_.find(lock);
  const auto b = address_lock_.find(address);
  if (a != lock_address_.end() || b != address_lock_.end())
    return a != lock_address_.end() && a->second == address;
  if (commit) {
    lock_address_[lock] = address;
    address_lock_[address] = lock;
  }
  return true;
}

// The rank a thread that is not at one of its steps works toward: its first event after its last
// step (a racing thread: its access, after T'), or kNotInWitness when that is not in T'.
uint64_t WitnessOrder::free_key(ThreadId t) const {
  const ThreadState& st = threads_[t];
  const std::vector<WitnessPlan::Step>& steps = plan_.steps[t];
  const size_t from = st.steps == 0 ? 0 : steps[st.steps - 1].position + 1;
  const std::vector<size_t>& ev = plan_.events[t];
  uint64_t key = WitnessPlan::kNotInWitness;
  if (from >= ev.size()) {
    // Its events are all done: it may end (a join of it in T' needs that).
    if (plan_.whole[t]) key = 0;
  } else if (plan_.rank[ev[from]] != WitnessPlan::kNotInWitness) {
    key = plan_.rank[ev[from]];
  } else {
    for (int k = 0; k < 2; ++k)
      if (ev[from] == plan_.race[k].index) key = plan_.witness_events + k;
  }
  // A thread that keeps running without reaching a step (a spin loop on an atomic flag) gives
  // way to the others.
  if (key != WitnessPlan::kNotInWitness && st.free_runs > 64)
    key += plan_.witness_events + 2 + st.free_runs;
  return key;
}

// Choices at non-step hooks a thread may take in a row before the steering gives up.
constexpr uint64_t kMaxFreeRuns = 20000;

size_t WitnessOrder::fallback(const ChoicePoint& point) {
  return options_of(point, false).default_index;
}

size_t WitnessOrder::diverge(const ChoicePoint& point, std::string text) {
  if (divergence_.empty()) divergence_ = std::move(text);
  phase_ = Phase::Free;
  return fallback(point);
}

size_t WitnessOrder::choose(const ChoicePoint& point) {
  const bool gives_way = fairness_.gives_way(point);
  const auto& c = point.candidates;
  if (phase_ == Phase::Free) return options_of(point, gives_way).default_index;
  if (phase_ == Phase::Second) {
    phase_ = Phase::Free;
    for (size_t i = 0; i < c.size(); ++i)
      if (c[i].tid == second_tid_) {
        raced_ = true;
        return i;
      }
    return diverge(point, "the second access's thread could not run after the first access");
  }
  // The first choice: the main threads meet.
  if (plan_.main < threads_.size() && threads_[plan_.main].run_tid == UINT32_MAX &&
      by_run_.empty()) {
    threads_[plan_.main].run_tid = point.current;
    by_run_[point.current] = plan_.main;
  }
  // A thread seen for the first time is the child of the oldest creation not yet seen.
  for (const Candidate& k : c)
    if (!by_run_.count(k.tid) && k.op == ch::kOpNone && !pending_children_.empty()) {
      const ThreadId child = pending_children_.front().first;
      pending_children_.erase(pending_children_.begin());
      if (child < threads_.size()) {
        threads_[child].run_tid = k.tid;
        by_run_[k.tid] = child;
      }
    }

  enum class Choice : uint8_t { Free, Step, Recursive, Unlocked };
  size_t best = SIZE_MAX;
  uint64_t best_key = WitnessPlan::kNotInWitness;
  Choice best_choice = Choice::Free;
  size_t at_race[2] = {SIZE_MAX, SIZE_MAX};
  for (size_t i = 0; i < c.size(); ++i) {
    const Candidate& k = c[i];
    const auto bound = by_run_.find(k.tid);
    if (bound == by_run_.end()) continue;  // a thread the recorded run does not have: parked
    const ThreadId t = bound->second;
    ThreadState& st = threads_[t];
    uint64_t key = WitnessPlan::kNotInWitness;
    Choice choice = Choice::Free;
    if (k.op == ch::kOpAccess) {
      if (k.point != 0)
        for (int r = 0; r < 2; ++r)
          if (plan_.race[r].thread == t && st.steps == plan_.race[r].steps_before &&
              st.arrivals == plan_.race[r].arrivals_before) {
            if (plan_.race[r].address && plan_.race[r].address != k.obj)
              return diverge(point, "diverged at event " +
                                        std::to_string(plan_.trace->ids[plan_.race[r].index]) +
                                        " (thread " + thread_text(t) + " did memory access of " +
                                        hex(k.obj) + " where the witness has " +
                                        event_text(plan_.race[r].index) + ")");
            at_race[r] = i;
          }
      if ((at_race[0] == i) || (at_race[1] == i)) continue;
      key = free_key(t);
    } else if (const Hook hook = hook_of(k.op);
               hook == Hook::Other || k.times_out || point.timeouts) {
      key = free_key(t);  // no step (a timed operation chosen to time out records nothing)
    } else {
      const uint32_t depth =
          hook == Hook::Acquire || hook == Hook::ReadAcquire || hook == Hook::Release ||
                  hook == Hook::ReadRelease
              ? [&] {
                  const auto d = depth_.find({k.tid, k.obj});
                  return d == depth_.end() ? 0u : d->second;
                }()
              : 0u;
      if ((hook == Hook::Acquire || hook == Hook::ReadAcquire) && depth > 0) {
        choice = Choice::Recursive;  // a re-entrant acquire: no event
        key = free_key(t);
      } else if ((hook == Hook::Release || hook == Hook::ReadRelease) && depth > 1) {
        choice = Choice::Unlocked;  // the inner release of a re-entrant hold: no event
        key = free_key(t);
      } else {
        const std::vector<WitnessPlan::Step>& steps = plan_.steps[t];
        const WitnessPlan::Step* s = st.steps < steps.size() ? &steps[st.steps] : nullptr;
        bool agrees = false;
        if (s) switch (s->kind) {
            case StepKind::Acquire:
              agrees = hook == Hook::Acquire && bind_lock(s->object, k.obj, false);
              break;
            case StepKind::ReadAcquire:
              agrees = hook == Hook::ReadAcquire && bind_lock(s->object, k.obj, false);
              break;
            case StepKind::Release:
              agrees = hook == Hook::Release && bind_lock(s->object, k.obj, false);
              break;
            case StepKind::ReadRelease:
              agrees = hook == Hook::ReadRelease && bind_lock(s->object, k.obj, false);
              break;
            case StepKind::CondWait:
              agrees = hook == Hook::CondWait && bind_lock(s->cv, k.obj, false);
              break;
            case StepKind::Fork:
              agrees = hook == Hook::Create;
              break;
            case StepKind::Join:
              agrees = hook == Hook::Join && s->object < threads_.size() &&
                       threads_[s->object].run_tid != UINT32_MAX &&
                       threads_[s->object].run_tid + uint64_t{1} == k.obj;
              break;
          }
        // A racing thread whose steps before its access are done must do that access next.
        size_t racing = SIZE_MAX;
        for (int r = 0; r < 2; ++r)
          if (plan_.race[r].thread == t && st.steps == plan_.race[r].steps_before)
            racing = plan_.race[r].index;
        if (!agrees && is_try(k.op)) {
          key = free_key(t);  // a try that fails records nothing
        } else if (agrees && racing == SIZE_MAX) {
          choice = Choice::Step;
          key = s->rank;  // a step after T' (kNotInWitness): the thread waits
        } else if (!agrees && racing == SIZE_MAX && s && s->rank == WitnessPlan::kNotInWitness) {
          key = WitnessPlan::kNotInWitness;  // past the witness: it waits, whatever it does
        } else {
          const size_t at = racing != SIZE_MAX ? racing : s ? s->index : SIZE_MAX;
          if (at == SIZE_MAX)
            return diverge(point, "diverged after the recorded run's events of thread " +
                                      thread_text(t) + " (thread " + thread_text(t) + " did " +
                                      hook_text(k) + " where the recorded run ends the thread)");
          return diverge(point, "diverged at event " + std::to_string(plan_.trace->ids[at]) +
                                    " (thread " + thread_text(t) + " did " + hook_text(k) +
                                    " where the witness has " + event_text(at) + ")");
        }
      }
    }
    // A creator whose child has not appeared yet finishes the creation first.
    if (choice == Choice::Free && !pending_children_.empty() &&
        pending_children_.front().second == k.tid)
      key = 0;
    if (key < best_key) {
      best = i;
      best_key = key;
      best_choice = choice;
    }
  }

  if (at_race[0] != SIZE_MAX && at_race[1] != SIZE_MAX) {
    // Adjacent: in the witness's order. Enabled: either order continues the witness.
    const bool later_is_1 = plan_.race[1].index > plan_.race[0].index;
    const int go = plan_.notion == witness::Notion::Enabled && later_first_ == later_is_1 ? 1 : 0;
    second_tid_ = c[at_race[1 - go]].tid;
    phase_ = Phase::Second;
    return at_race[go];
  }
  if (best == SIZE_MAX) {
    // Nothing the witness allows can run: name the earliest event it waits for.
    uint64_t want = WitnessPlan::kNotInWitness;
    size_t at = SIZE_MAX;
    ThreadId who = 0;
    for (ThreadId t = 0; t < threads_.size(); ++t) {
      const ThreadState& st = threads_[t];
      const std::vector<WitnessPlan::Step>& steps = plan_.steps[t];
      if (st.steps < steps.size() && steps[st.steps].rank < want) {
        want = steps[st.steps].rank;
        at = steps[st.steps].index;
        who = t;
      }
    }
    if (at == SIZE_MAX) {
      for (int r = 0; r < 2; ++r)
        if (at_race[r] == SIZE_MAX)
          return diverge(point, "thread " + thread_text(plan_.race[r].thread) +
                                    " did not stop at its access (" +
                                    event_text(plan_.race[r].index) +
                                    "): the thread took another path");
      return diverge(point, "the witness could not be followed");
    }
    return diverge(point, "diverged at event " + std::to_string(plan_.trace->ids[at]) +
                              " (thread " + thread_text(who) +
                              " cannot run: it waits or has ended where the witness has " +
                              event_text(at) + ")");
  }

  // Commit the choice.
  const Candidate& k = c[best];
  if (best_choice == Choice::Free && threads_[by_run_.at(k.tid)].free_runs > kMaxFreeRuns)
    return diverge(point, "thread " + thread_text(by_run_.at(k.tid)) + " ran " +
                              std::to_string(kMaxFreeRuns) +
                              " operations without reaching the witness's next event (a loop "
                              "that waits for a value the witness does not order: a relaxed "
                              "atomic flag, or input)");
  const ThreadId t = by_run_.at(k.tid);
  ThreadState& st = threads_[t];
  switch (best_choice) {
    case Choice::Step: {
      const WitnessPlan::Step& s = plan_.steps[t][st.steps];
      switch (s.kind) {
        case StepKind::Acquire:
        case StepKind::ReadAcquire:
          bind_lock(s.object, k.obj, true);
          depth_[{k.tid, k.obj}] = 1;
          break;
        case StepKind::Release:
        case StepKind::ReadRelease:
          bind_lock(s.object, k.obj, true);
          depth_.erase({k.tid, k.obj});
          break;
        case StepKind::CondWait:
          bind_lock(s.cv, k.obj, true);
          break;
        case StepKind::Fork:
          pending_children_.push_back({s.object, k.tid});
          break;
        case StepKind::Join:
          break;
      }
      ++st.steps;
      st.arrivals = 0;
      st.free_runs = 0;
      ++steps_run_;
      break;
    }
    case Choice::Recursive:
      ++depth_[{k.tid, k.obj}];
      ++st.free_runs;
      break;
    case Choice::Unlocked:
      --depth_[{k.tid, k.obj}];
      ++st.free_runs;
      break;
    case Choice::Free:
      if (k.op == ch::kOpAccess && k.point != 0) ++st.arrivals;
      ++st.free_runs;
      break;
  }
  return best;
}

std::string compare_with_witness(const WitnessPlan& plan, const WitnessOrder& order,
                                 const Trace& run, const Trace& shown) {
  const Trace& trace = *plan.trace;
  // The execution's events by thread name.
  std::map<std::string, std::vector<size_t>, std::less<>> by_name;
  for (size_t i = 0; i < run.events.size(); ++i)
    by_name[std::string(run.thread_name(run.events[i].thread))].push_back(i);
  const auto plain_address = [](std::string_view name) { return address_of(name) != 0; };
  uint64_t best_rank = WitnessPlan::kNotInWitness;
  std::string best;
  for (ThreadId t = 0; t < plan.events.size(); ++t) {
    const uint32_t tid = order.run_tid(t);
    if (tid == UINT32_MAX) continue;
    std::string name = "T";  // (not "T" + to_string: gcc 12 warns falsely, -Wrestrict)
    name += std::to_string(tid);
    const auto found = by_name.find(name);
    static const std::vector<size_t> kNone;
    const std::vector<size_t>& mine = found == by_name.end() ? kNone : found->second;
    const std::vector<size_t>& ev = plan.events[t];
    for (size_t j = 0; j < ev.size(); ++j) {
      const size_t i = ev[j];
      const bool racing = i == plan.race[0].index || i == plan.race[1].index;
      const uint64_t rank = racing ? plan.witness_events : plan.rank[i];
      if (rank == WitnessPlan::kNotInWitness) continue;
      if (rank >= best_rank) break;  // a difference found earlier in the witness stands
      const Event& e = trace.events[i];
      std::string did;
      if (j >= mine.size()) {
        did = "nothing more";
      } else {
        const Event& f = run.events[mine[j]];
        bool same =
            f.op == e.op && run.location_name(f.location) == trace.location_name(e.location);
        if (same && (is_lock_op(e.op) || is_sync_op(e.op)))
          same = run.target_name(f) == trace.target_name(e);
        if (same && e.is_access() && plain_address(trace.target_name(e)) &&
            plain_address(run.target_name(f)))
          same = run.target_name(f) == trace.target_name(e);
        if (same) continue;
        const Event& g = shown.events[mine[j]];
        did = std::string(op_long_name(g.op)) + " of " + std::string(shown.target_name(g)) +
              " at " + std::string(shown.location_name(g.location));
      }
      best_rank = rank;
      const Trace& named = *plan.named;
      const Event& n = named.events[i];
      best = "diverged at event " + std::to_string(trace.ids[i]) + " (thread " +
             std::string(named.thread_name(t)) + " did " + did + " where the witness has " +
             std::string(op_long_name(n.op)) + " of " + std::string(named.target_name(n)) + " at " +
             std::string(named.location_name(n.location)) + ")";
      break;
    }
  }
  return best;
}

}  // namespace racepred::explore
