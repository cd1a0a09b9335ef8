// tsan1: the lockset-style data race predictor of the "Dynamic data race prediction" notes' Go
// framework ("Lockset style data race predictor (similar to TSan V1)"). Vector clocks order events
// by program order, fork and join only (critical sections are not ordered); every thread keeps its
// lock set. Per variable, W(x) and R(x) hold the most recent writes and reads that are mutually
// concurrent, each with the lock set it held:
//
//   write(e)  concW = {w ∈ W(x) | w not before e};  concR = {r ∈ R(x) | r not before e}
//             race (a, e) for a ∈ concW ∪ concR whose lock set is disjoint from LS(e)
//             W(x) = concW ∪ {e};  R(x) = concR
//   read(e)   the same with concW only; W(x) = concW;  R(x) = concR ∪ {e}
//
// Members are epochs j#k (before e iff k <= Th(i)(j)) with the id of their lock set in the
// lock-set engine's LockSetTable (disjointness is a bit test); two never come from one thread.
// Only the latest concurrent accesses are kept (Sulzmann, "Dynamic data race prediction", trace2:
// "No race reported cause we only keep track of the latest write"), so its pairs are a subset of
// the lockset pairs.
#include <algorithm>

#include "racepred/clock/id_table.hpp"
#include "racepred/clock/lock_set.hpp"
#include "racepred/clock/thread_clocks.hpp"
#include "racepred/engines/clock_options.hpp"
#include "racepred/engines/dispatch.hpp"
#include "racepred/engines/lockset/read_locks.hpp"
#include "racepred/report/notation.hpp"

namespace racepred {
namespace {

class Tsan1 final : public DispatchEngine<Tsan1>, public Annotator {
 public:
  explicit Tsan1(EngineContext& context) : symbols_(context.symbols), sink_(context.sink) {
    set_clock_options(clocks_, context.options, context.annotate);
  }

  void before(EventId, const Event& e) {
    clocks_.add_thread(e.thread);
    if (annotating_) {
      pre_.assign(clocks_.view(e.thread));
      pairs_.clear();
    }
  }
  // acq(t,y), rel(t,y): the lock set of t; the clocks ignore locks (fork/join order only).
  void acquire(EventId, const Event& e) {
    node(e.thread) = locksets_.acquire(node(e.thread), e.target);
  }
  void release(EventId, const Event& e) {
    node(e.thread) = locksets_.release(node(e.thread), e.target);
  }
  // racq(t,y), rrel(t,y): y held in read mode (engines/lockset/read_locks.hpp)
  void read_acquire(EventId, const Event& e) {
    read_locks_ = true;
    node(e.thread) = locksets_.acquire(node(e.thread), read_mode(e.target));
  }
  void read_release(EventId, const Event& e) {
    node(e.thread) = locksets_.release(node(e.thread), read_mode(e.target));
  }
  // send/recv: not in the lock sets; the clocks order them in after() (the HB part).
  void send(EventId, const Event&) {}
  void recv(EventId, const Event&) {}
  void read(EventId id, const Event& e) { access(id, e); }
  void write(EventId id, const Event& e) { access(id, e); }
  void after(EventId id, const Event& e) {
    clocks_.apply(e);  // fork/join and send/recv order, then inc(Th(t), t)
    if (annotating_ && e.is_access()) pre_clocks_.push_back({id, pre_});
  }

  Annotator* annotator() override { return this; }
  void before_event(EventId, const Event&) override { annotating_ = true; }
  // Vector clock and lock set at the event, W(x) and R(x) after it, races found at it.
  void annotate(EventId id, const Event& e, Annotation& row) override {
    std::string LS, W, R;
    if (e.is_access()) {
      const Variable& x = variables_[e.target];
      LS = locks_text(locksets_.set_of(node(e.thread)));
      W = set_text(x.W, e.target);
      R = set_text(x.R, e.target);
    }
    row.push_back({"Th(t)", pre_.to_string(symbols_.threads.size())});
    row.push_back({"LS(t)", LS});
    row.push_back({"W(x)", W});
    row.push_back({"R(x)", R});
    row.push_back({"races", races_text(pairs_, id)});
  }

 private:
  using SetId = LockSetTable::SetId;
  struct Entry {
    ThreadId thread;
    uint32_t slot;  // the thread's slot in the clocks (ThreadClocks)
    Clock clock;
    LocationId location;
    EventId id;
    Op op;
    SetId locks;
  };
  struct Variable {
    std::vector<Entry> W, R;
  };

  LockSetTable::NodeId& node(ThreadId t) { return nodes_[t]; }

  // Keeps the members that do not happen before C.
  static void drop_ordered(std::vector<Entry>& set, ClockRef C) {
    set.erase(std::remove_if(set.begin(), set.end(),
                             [&](const Entry& a) { return a.clock <= C[a.slot]; }),
              set.end());
  }

  void check(const std::vector<Entry>& set, SetId ls, EventId id, const Event& e) {
    for (const Entry& a : set) {
      if (read_locks_ ? !disjoint_rw(locksets_, a.locks, ls) : !locksets_.disjoint(a.locks, ls))
        continue;
      if (!enumerate_) {  // the sink keeps no more races: count them
        // An event's earlier accesses are mostly at one location: that pair is counted once.
        if (a.location == counted_location_ && id == counted_event_) {
          sink_.count_race_again();
        } else {
          sink_.count_race(a.location, Access::of(id, e));
          counted_location_ = a.location;
          counted_event_ = id;
        }
        continue;
      }
      sink_.report(Race{Access{a.id, a.thread, a.location, a.op}, Access::of(id, e), e.target});
      if (annotating_) pairs_.push_back(a.id);
    }
  }

  void access(EventId id, const Event& e) {
    Variable& x = variables_[e.target];
    const ClockRef C = clocks_.view(e.thread);
    const uint32_t slot = clocks_.slot(e.thread);
    const SetId ls = locksets_.set_of(node(e.thread));
    drop_ordered(x.W, C);
    drop_ordered(x.R, C);
    enumerate_ = annotating_ || sink_.accepting();
    check(x.W, ls, id, e);
    if (e.op == Op::Write) check(x.R, ls, id, e);
    (e.op == Op::Write ? x.W : x.R)
        .push_back(Entry{e.thread, slot, C[slot], e.location, id, e.op, ls});
  }

  std::string locks_text(SetId set) const {
    std::string s = "{";
    for (LockId y : locksets_.sorted_locks(set)) {
      if (s.size() > 1) s += ',';
      if (is_read_mode(y)) s += "r:";
      s += symbols_.locks.name(lock_of(y));
    }
    s += '}';
    return s;
  }
  // "{0#w(x)_1 [1,0] {}, 1#w(x)_3 [0,1] {y}}" in trace order.
  std::string set_text(const std::vector<Entry>& set, VariableId x) const {
    std::vector<const Entry*> members;
    for (const Entry& a : set) members.push_back(&a);
    std::sort(members.begin(), members.end(),
              [](const Entry* a, const Entry* b) { return a->id < b->id; });
    std::string s = "{";
    for (const Entry* a : members) {
      if (s.size() > 1) s += ", ";
      s += event_ref_hash(symbols_, a->id, Event{a->op, a->thread, x, a->location});
      auto it = std::lower_bound(pre_clocks_.begin(), pre_clocks_.end(), a->id,
                                 [](const auto& p, EventId k) { return p.first < k; });
      s += ' ';
      s += it->second.to_string(symbols_.threads.size());
      s += ' ';
      s += locks_text(a->locks);
    }
    s += '}';
    return s;
  }

  const Symbols& symbols_;
  RaceSink& sink_;
  ThreadClocks clocks_{/*lock_order=*/false};
  LockSetTable locksets_;
  bool read_locks_ = false;  // a read lock was seen: sets may hold read-hold tokens
  IdTable<LockSetTable::NodeId> nodes_{LockSetTable::kRoot};  // each thread's current lock set
  IdTable<Variable> variables_;
  bool enumerate_ = true;  // the current access reports its pairs one by one
  // The pair count_race counted last: its first location and second event.
  LocationId counted_location_ = 0;
  EventId counted_event_ = kNoEvent;

  bool annotating_ = false;
  std::vector<std::pair<EventId, VectorClock>> pre_clocks_;
  VectorClock pre_;
  std::vector<EventId> pairs_;
};

}  // namespace

std::unique_ptr<Engine> make_tsan1(EngineContext& context) {
  return std::make_unique<Tsan1>(context);
}

}  // namespace racepred
