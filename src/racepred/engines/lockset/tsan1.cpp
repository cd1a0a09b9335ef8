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
//
// The flood of many threads on one variable (sparse clocks): a set of many members is indexed by
// slot and by lock set, so an access drops the members before it from the non-zero entries of
// its clock and, counting, counts its races per lock set instead of visiting every member.
#include <algorithm>
#include <span>
#include <unordered_map>

#include "racepred/clock/id_table.hpp"
#include "racepred/clock/large_set.hpp"
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
  explicit Tsan1(EngineContext& context)
      : big_from_(context.options.bulk_count_from), symbols_(context.symbols), sink_(context.sink) {
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
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
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
    uint32_t big_w = 0, big_r = 0;  // large sets: 1 + the index in bigs_ (0: none)
    bool large = false;             // a set may be large: access_large
  };

  // A large set (sparse clocks only): its members by slot (one per slot: a thread's access
  // drops its earlier ones) and its live members per lock set. A dropped member becomes a hole
  // (clock 0, never an access's) until the set is compacted, so the members keep their order.
  static constexpr size_t kBigSets = 8;  // distinct lock sets counted; more: one by one
  struct Big {
    bool repeats = false;    // two members of large sets may share a location (marks_)
    bool many_sets = false;  // more than kBigSets lock sets: by_set is not kept
    uint32_t live = 0;
    uint32_t holes = 0;
    std::unordered_map<uint32_t, uint32_t> at;       // slot → position of its member
    std::vector<std::pair<SetId, uint32_t>> by_set;  // lock set → live members
  };
  // Marks location l as held by a large set; true if it was marked before.
  bool mark(LocationId l) {
    if (l >= marks_.size()) marks_.resize(std::max<size_t>(size_t{l} + 1, marks_.size() * 2));
    const bool was = marks_[l] != 0;
    marks_[l] = 1;
    return was;
  }
  static void count_set(Big& g, SetId s, int delta) {
    if (g.many_sets) return;
    for (auto& [set, n] : g.by_set)
      if (set == s) {
        n = static_cast<uint32_t>(static_cast<int64_t>(n) + delta);
        return;
      }
    if (g.by_set.size() == kBigSets) {
      g.many_sets = true;
      return;
    }
    g.by_set.emplace_back(s, static_cast<uint32_t>(delta));
  }
  // Indexes the members of `set` (positions, lock sets) in g.
  void index(Big& g, const std::vector<Entry>& set) {
    g.at.clear();
    g.by_set.clear();
    g.many_sets = false;
    for (uint32_t q = 0; q < set.size(); ++q) {
      g.at[set[q].slot] = q;
      count_set(g, set[q].locks, 1);
    }
    g.live = static_cast<uint32_t>(set.size());
    g.holes = 0;
  }
  // The set becomes large.
  [[gnu::noinline]] uint32_t make_big(const std::vector<Entry>& set) {
    uint32_t b;
    if (!free_bigs_.empty()) {
      b = free_bigs_.back();
      free_bigs_.pop_back();
    } else {
      b = static_cast<uint32_t>(bigs_.size());
      bigs_.emplace_back();
    }
    Big& g = bigs_[b];
    g.repeats = false;
    for (const Entry& a : set) g.repeats |= mark(a.location);
    index(g, set);
    return b + 1;
  }
  // Drops the members of a large set that happen before C (found from C's non-zero entries),
  // closes the holes once they are half the set; the set stops being large when few are left.
  [[gnu::noinline]] void drop_ordered_big(std::vector<Entry>& set, uint32_t& big, ClockRef C,
                                          std::span<const uint32_t> nonzeros) {
    Big& g = bigs_[big - 1];
    const auto drop = [&](uint32_t q) {
      count_set(g, set[q].locks, -1);
      set[q].clock = 0;
      g.at.erase(set[q].slot);
      --g.live;
      ++g.holes;
    };
    visit_members_before(set, g.at, C, nonzeros, drop);
    if (g.holes * 2 <= set.size()) return;
    set.erase(std::remove_if(set.begin(), set.end(), [](const Entry& a) { return a.clock == 0; }),
              set.end());
    if (set.size() < big_from_ / 8) {
      free_bigs_.push_back(big - 1);
      big = 0;
      return;
    }
    index(g, set);
  }
  void drop(std::vector<Entry>& set, uint32_t& big, ClockRef C, uint32_t slot) {
    if (big == 0) {
      if (set.size() < big_from_ || !clocks_.sparse() || annotating_) return drop_ordered(set, C);
      big = make_big(set);
    }
    drop_ordered_big(set, big, C, clocks_.nonzero_slots(slot));
  }
  void add(std::vector<Entry>& set, uint32_t big, const Entry& self) {
    if (big != 0) {
      Big& g = bigs_[big - 1];
      g.at[self.slot] = static_cast<uint32_t>(set.size());
      ++g.live;
      count_set(g, self.locks, 1);
      g.repeats |= mark(self.location);
    }
    set.push_back(self);
  }
  // The members of a set whose lock set is disjoint from ls (the races of an access with lock
  // set ls), counted per lock set; false when they must be visited (a small set, shared
  // locations, many lock sets).
  bool count_disjoint(const std::vector<Entry>& set, uint32_t big, SetId ls, uint64_t& n) const {
    if (set.empty()) return true;
    if (big == 0) return false;
    const Big& g = bigs_[big - 1];
    if (g.repeats || g.many_sets) return false;
    for (const auto& [s, k] : g.by_set)
      if (k != 0 && (read_locks_ ? disjoint_rw(locksets_, s, ls) : locksets_.disjoint(s, ls)))
        n += k;
    return true;
  }

  LockSetTable::NodeId& node(ThreadId t) { return nodes_[t]; }

  // Keeps the members that do not happen before C.
  static void drop_ordered(std::vector<Entry>& set, ClockRef C) {
    set.erase(std::remove_if(set.begin(), set.end(),
                             [&](const Entry& a) { return a.clock <= C[a.slot]; }),
              set.end());
  }

  void check(const std::vector<Entry>& set, SetId ls, EventId id, const Event& e) {
    for (const Entry& a : set) {
      if (a.clock == 0) [[unlikely]]
        continue;  // a hole of a large set
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
    if (x.large) [[unlikely]]
      return access_large(x, id, e);
    const ClockRef C = clocks_.view(e.thread);
    const uint32_t slot = clocks_.slot(e.thread);
    const SetId ls = locksets_.set_of(node(e.thread));
    drop_ordered(x.W, C);
    drop_ordered(x.R, C);
    enumerate_ = annotating_ || sink_.accepting();
    check(x.W, ls, id, e);
    if (e.op == Op::Write) check(x.R, ls, id, e);
    std::vector<Entry>& into = e.op == Op::Write ? x.W : x.R;
    into.push_back(Entry{e.thread, slot, C[slot], e.location, id, e.op, ls});
    if (into.size() >= big_from_) [[unlikely]]
      x.large = clocks_.sparse() && !annotating_;
  }
  // An access to a variable whose sets may be large (sparse clocks).
  [[gnu::noinline]] void access_large(Variable& x, EventId id, const Event& e) {
    const ClockRef C = clocks_.view(e.thread);
    const uint32_t slot = clocks_.slot(e.thread);
    const SetId ls = locksets_.set_of(node(e.thread));
    drop(x.W, x.big_w, C, slot);
    drop(x.R, x.big_r, C, slot);
    enumerate_ = annotating_ || sink_.accepting();
    // Counting, the races with large sets are counted per lock set (all of e's races at once).
    uint64_t n = 0;
    const bool bulk = !enumerate_ && (x.big_w | x.big_r) != 0 &&
                      count_disjoint(x.W, x.big_w, ls, n) &&
                      (e.op == Op::Read || count_disjoint(x.R, x.big_r, ls, n)) &&
                      (n == 0 || sink_.count_races_in_bulk(n, Access::of(id, e)));
    if (!bulk) {
      check(x.W, ls, id, e);
      if (e.op == Op::Write) check(x.R, ls, id, e);
    }
    const Entry self{e.thread, slot, C[slot], e.location, id, e.op, ls};
    if (e.op == Op::Write)
      add(x.W, x.big_w, self);
    else
      add(x.R, x.big_r, self);
    if ((x.big_w | x.big_r) == 0 && x.W.size() < big_from_ && x.R.size() < big_from_)
      x.large = false;
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

  uint64_t big_from_;  // members from which a set is large (EngineOptions::bulk_count_from)
  const Symbols& symbols_;
  RaceSink& sink_;
  ThreadClocks clocks_{/*lock_order=*/false};
  LockSetTable locksets_;
  bool read_locks_ = false;  // a read lock was seen: sets may hold read-hold tokens
  IdTable<LockSetTable::NodeId> nodes_{LockSetTable::kRoot};  // each thread's current lock set
  IdTable<Variable> variables_;
  std::vector<Big> bigs_;            // the indexes of large sets
  std::vector<uint32_t> free_bigs_;  // indexes given back
  std::vector<uint8_t> marks_;       // by location: held by a large set
  bool enumerate_ = true;            // the current access reports its pairs one by one
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
