// hb: all HB race pairs (Sulzmann, "Dynamic data race prediction", "Vector clock based data race
// predictor algorithm - Offline Approach": algorithm VC_pre_post, then every pair of conflicting
// events whose pre vector clocks are incomparable). Fork and join are part of HB.
//
// Instead of comparing all pairs, each access is compared only with the earlier accesses that
// can still be unordered with it. Per variable and thread the accesses are kept in trace order,
// which is the order of their epochs j#k; by the epoch lemma an earlier access j#k is unordered
// with the current access of thread i iff k > Th(i)(j), so its partners from thread j are a
// suffix found by binary search. An access j#k is dropped once every thread that can still run
// knows it (k <= Th(t)(j) for all of them): it is HB-before every later event. That needs the
// whole trace (which threads still run, which start later without a fork), so the engine is an
// offline engine on the run's trace index. Under `annotate` it does not drop.
#include <algorithm>
#include <limits>

#include "racepred/clock/id_table.hpp"
#include "racepred/clock/thread_clocks.hpp"
#include "racepred/engines/clock_options.hpp"
#include "racepred/engines/hb/hb.hpp"
#include "racepred/engines/witness_source.hpp"
#include "racepred/report/notation.hpp"

namespace racepred {
namespace {

class HbAllPairs final : public OfflineEngine,
                         public OfflineAnnotator,
                         public HappensBeforeFirstRaceWitnesses {
 public:
  HbAllPairs(EngineContext& context, size_t prune_every)
      : OfflineAnnotator(context),
        symbols_(context.symbols),
        sink_(context.sink),
        min_prune_(std::max<size_t>(prune_every, 1)) {
    set_sparse_threshold(clocks_, context.options);
  }

  void run(const TraceIndex& index) override {
    if (annotating())
      annotate_all(index);
    else
      find_races(index);
  }

  Annotator* annotator() override { return this; }
  WitnessSource* witness_source() override { return this; }

 private:
  // Annotation: every event with the clocks before and after it and its race partners; nothing
  // is dropped.
  void annotate_all(const TraceIndex& index) {
    VectorClock pre, post;
    std::vector<Annotation>& rows = cells(index.size());
    const size_t n = symbols_.threads.size();
    for (uint32_t k = 0; k < index.size(); ++k) {
      const Event& event = index.event(k);
      const EventId id = index.id(k);
      clocks_.add_thread(event.thread);
      pre.assign(clocks_.view(event.thread));
      partners_.clear();
      process(id, event);
      post.assign(clocks_.view(event.thread));
      rows[k].push_back({"VC_pre_post", pre.to_string(n) + "_" + event_text(symbols_, event) + "_" +
                                            post.to_string(n)});
      rows[k].push_back({"races", races_text(partners_, id)});
    }
  }

  struct Entry {
    Clock clock;  // the access's epoch j#clock (j = the history's thread)
    LocationId location;
    EventId id;
  };
  struct Log {  // accesses of one thread to one variable, in trace order; dropped ones before head
    std::vector<Entry> entries;
    size_t head = 0;
    size_t live() const { return entries.size() - head; }
  };
  struct History {
    ThreadId thread;
    Clock last_write = 0;  // clock of the last write / read (saves a cache miss on entries)
    Clock last_read = 0;
    Log writes;
    Log reads;
  };
  struct Variable {
    std::vector<History> histories;  // one per thread that accessed the variable
  };

  // Reports (entry, current) for the entries of `log` unordered with the current access, i.e.
  // the suffix with clock > known = Th(i)(j). Returns how many.
  uint64_t check(const Log& log, ThreadId thread, Op op, Clock known, EventId id, const Event& e,
                 bool enumerate) {
    const auto begin = log.entries.begin() + static_cast<std::ptrdiff_t>(log.head);
    const auto first = std::upper_bound(begin, log.entries.end(), known,
                                        [](Clock k, const Entry& x) { return k < x.clock; });
    const auto count = static_cast<uint64_t>(log.entries.end() - first);
    if (enumerate) {
      for (auto it = first; it != log.entries.end(); ++it) {
        sink_.report(Race{Access{it->id, thread, it->location, op}, Access::of(id, e), e.target});
        if (annotating()) partners_.push_back(it->id);
      }
    }
    return count;
  }

  void access(EventId id, const Event& e) {
    clocks_.add_thread(e.thread);
    const ClockRef C = clocks_.view(e.thread);
    Variable& x = variables_[e.target];
    // Once the sink keeps no more races, later races are only counted.
    const bool enumerate = annotating() || sink_.accepting();
    uint64_t count = 0;
    History* own = nullptr;
    for (History& h : x.histories) {
      if (h.thread == e.thread) {
        own = &h;
        continue;
      }
      const Clock known = C.get(h.thread);
      if (h.last_write > known && h.writes.live())
        count += check(h.writes, h.thread, Op::Write, known, id, e, enumerate);
      if (e.op == Op::Write && h.last_read > known && h.reads.live())
        count += check(h.reads, h.thread, Op::Read, known, id, e, enumerate);
    }
    if (!enumerate && count) {
      sink_.add_uncounted_races(count);
      sink_.mark_racy(Access::of(id, e));
    }
    if (!own) {
      x.histories.push_back(History{e.thread, 0, 0, {}, {}});
      own = &x.histories.back();
    }
    const Clock k = C.get(e.thread);
    (e.op == Op::Write ? own->last_write : own->last_read) = k;
    (e.op == Op::Write ? own->writes : own->reads).entries.push_back(Entry{k, e.location, id});
    ++stored_;
  }

  void process(EventId id, const Event& e) {
    if (e.is_access()) access(id, e);
    clocks_.apply(e);
  }

  // Thread lifetimes (first and last event, the fork) come from the index; a thread without
  // events or fork has kNoIndex, which no position reaches.
  void find_races(const TraceIndex& index) {
    const uint32_t n = static_cast<uint32_t>(index.size());
    const uint32_t threads = index.thread_count();
    // Threads that start later without a fork know nothing: nothing can be dropped before
    // they started.
    unforked_pending_ = 0;
    for (ThreadId t = 0; t < threads; ++t)
      if (index.first_of(t) != kNoIndex && !(index.fork_of(t) < index.first_of(t)))
        ++unforked_pending_;

    next_prune_ = min_prune_;
    for (uint32_t k = 0; k < n; ++k) {
      const Event& e = index.event(k);
      if (index.first_of(e.thread) == k && !(index.fork_of(e.thread) < k)) --unforked_pending_;
      process(index.id(k), e);
      if (stored_ >= next_prune_) prune(index, k);
    }
  }

  // Drops the accesses every thread that can still run knows about. `k`: the current index.
  void prune(const TraceIndex& index, uint32_t k) {
    size_t histories = 0;
    if (unforked_pending_ == 0) {
      const size_t threads = clocks_.threads();
      known_.assign(threads, std::numeric_limits<Clock>::max());
      for (ThreadId t = 0; t < threads && t < index.thread_count(); ++t) {
        const uint32_t last = index.last_of(t);
        if (last == kNoIndex || last <= k) continue;  // done
        const bool started = index.first_of(t) <= k;
        const bool forked = index.fork_of(t) <= k;
        if (!started && !forked) continue;  // its forker stands for it
        const ClockRef th = clocks_.view(static_cast<ThreadId>(t));
        for (size_t j = 0; j < threads; ++j)
          known_[j] = std::min(known_[j], th.get(static_cast<ThreadId>(j)));
      }
      stored_ = 0;
      for (Variable& x : variables_) {
        for (History& h : x.histories) {
          const Clock known = h.thread < known_.size() ? known_[h.thread] : 0;
          drop_known(h.writes, known);
          drop_known(h.reads, known);
          stored_ += h.writes.live() + h.reads.live();
        }
        histories += x.histories.size();
      }
    } else {
      for (const Variable& x : variables_) histories += x.histories.size();
    }
    next_prune_ = std::max({2 * stored_, histories, min_prune_});
  }

  static void drop_known(Log& log, Clock known) {
    while (log.head < log.entries.size() && log.entries[log.head].clock <= known) ++log.head;
    if (log.head == log.entries.size()) {
      log.entries.clear();
      log.head = 0;
    } else if (log.head > 64 && log.head * 2 > log.entries.size()) {
      log.entries.erase(log.entries.begin(),
                        log.entries.begin() + static_cast<std::ptrdiff_t>(log.head));
      log.head = 0;
    }
  }

  const Symbols& symbols_;
  RaceSink& sink_;
  ThreadClocks clocks_;
  IdTable<Variable> variables_;
  size_t stored_ = 0;  // live entries (an upper bound between prunes)
  size_t min_prune_;
  size_t next_prune_ = 0;

  size_t unforked_pending_ = 0;
  std::vector<Clock> known_;

  // Annotation: the current event's race partners.
  std::vector<EventId> partners_;
};

}  // namespace

std::unique_ptr<Engine> make_hb(EngineContext& context) {
  return std::make_unique<HbAllPairs>(context, size_t{1} << 14);
}

std::unique_ptr<Engine> make_hb_engine(EngineContext& context, size_t prune_every) {
  return std::make_unique<HbAllPairs>(context, prune_every);
}

}  // namespace racepred
