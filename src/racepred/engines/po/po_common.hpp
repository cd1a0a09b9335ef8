// Shared pieces of the predictive partial-order engines (Sulzmann and Thiemann §2.3, appendices
// B-F; docs/ENGINES.md "Predictive partial orders"): per-variable access histories and the race
// check, the open critical sections of each thread with the variables they read and wrote, rule (a)
// release tables per (lock, variable), the per-lock list of critical sections that rule (b)
// walks, and the annotated view.
//
// Race reporting (all engines of the family): an access e2 of thread t is racy when some earlier
// conflicting access of another thread is not ordered before it. For each other thread u and
// each conflicting kind (read, write) the engine reports the pair (e1, e2) with e1 the latest
// such access of u that is unordered (and, with a lock-set filter, holds no lock in common with
// e2). Every relation here contains thread order, so without a filter "the latest access of u of
// that kind" is unordered as soon as any is: one epoch per (variable, thread, kind) suffices.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "racepred/clock/lock_set.hpp"
#include "racepred/clock/rows.hpp"
#include "racepred/clock/snapshot_pool.hpp"
#include "racepred/clock/thread_clocks.hpp"
#include "racepred/clock/vector_clock.hpp"
#include "racepred/engines/dispatch.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/engines/partner.hpp"
#include "racepred/report/notation.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::po {

inline constexpr ThreadId kNoThread = UINT32_MAX;

// Read-write locks (docs/ENGINES.md "Read-write locks", the standard reduction): a critical
// section of lock l taken in read mode is recorded as the token read_mode(l) (clock/lock_set.hpp)
// in the open CSs and the lock sets LH_S; a write section as l itself. Two sections share a
// reduced lock iff they are of the same l and not both read sections (of different threads).
// The lock token an acquire or release event names.
inline LockId section_token(const Event& e) {
  return is_read_lock_op(e.op) ? read_mode(e.target) : e.target;
}

template <class V>
void grow_to(V& v, size_t index) {
  if (index >= v.size()) v.resize(std::max(index + 1, v.size() * 3 / 2));
}

// "[1,0,2]" over `width` threads (a VectorClock or a SharedClock).
template <class C>
std::string show(const C& c, size_t width) {
  return c.to_string(std::max(width, c.size()));
}

// Base of every engine of the family, on the dispatch base of all online engines (Self defines
// the handlers, engines/dispatch.hpp): the sink, race reporting, and the annotated view (columns
// named after the paper's state, e.g. H_t, P_t; each shows the value after the event, then
// "races": the pairs reported at this event).
template <class Self>
class PoEngine : public DispatchEngine<Self>, public Annotator {
 public:
  explicit PoEngine(EngineContext& context) : symbols_(context.symbols), sink_(context.sink) {}

  Annotator* annotator() override { return this; }
  void before_event(EventId /*id*/, const Event& /*event*/) override {
    annotating_ = true;
    found_.clear();
  }
  void annotate(EventId id, const Event& e, Annotation& row) override {
    columns(e, row);
    std::sort(found_.begin(), found_.end());
    row.push_back({"races", races_text(found_, id)});
  }

  // Reports the pair (who, current access); `who` was thread u's access `op`. Once the sink
  // keeps no more races they are only counted (races come in detection order).
  // Races are counted, not listed: the sink keeps no more and the view is not annotated.
  bool counting() const { return !annotating_ && !sink_.accepting(); }
  // Counts n races of the access e whose first accesses are at n distinct locations, none the
  // location of another race of e (RaceSink::count_races_in_bulk); false: report them one by one.
  bool count_in_bulk(uint64_t n, EventId id, const Event& e) {
    return sink_.count_races_in_bulk(n, Access::of(id, e));
  }
  [[gnu::noinline, gnu::cold]] void report(Partner who, ThreadId u, Op op, EventId id,
                                           const Event& e) {
    if (!annotating_ && !sink_.accepting()) {
      sink_.count_race(who.location, Access::of(id, e));
      return;
    }
    sink_.report(Race{Access{who.event, u, who.location, op}, Access::of(id, e), e.target});
    if (annotating_) found_.push_back(who.event);
  }

 protected:
  // The engine's state columns for the event just processed.
  virtual void columns(const Event& e, Annotation& row) = 0;
  size_t width(const Event& e) const {
    size_t w = symbols_.threads.size();
    w = std::max<size_t>(w, size_t{e.thread} + 1);
    if (e.op == Op::Fork || e.op == Op::Join) w = std::max<size_t>(w, size_t{e.target} + 1);
    return w;
  }

  const Symbols& symbols_;
  RaceSink& sink_;

 private:
  bool annotating_ = false;
  std::vector<EventId> found_;  // the first events of the pairs reported at this event
};

// ---- Flat clock storage (hot paths) ----------------------------------------------------------
// The clock kit's rows (clock/rows.hpp): clocks sharing one stride (a power of two: the thread
// capacity) in one contiguous, zero-initialised array; loops in fixed blocks the compiler
// vectorises (join_clocks, copy_clock, any_unordered). Engines grow the stride of all their
// tables together when a thread id beyond it appears (rare: rows are copied once).
using ClockRows = racepred::ClockRows<Clock>;

inline std::string show_row(const Clock* c, size_t stride, size_t width) {
  VectorClock v;
  for (size_t j = 0; j < stride; ++j)
    if (c[j] != 0) v.set(static_cast<ThreadId>(j), c[j]);
  return show(v, width);
}

// Per variable x: W_x(u), R_x(u) as entries only for the threads u that accessed x (memory
// proportional to the accesses' threads, not variables × threads), each with the
// slot of its clock entry (the thread itself unless the engine reuses slots, ThreadClocks) and
// its time there. check() compares with `known`, a clock row indexed by slot (the caller makes
// the own entry large enough, e.g. C_t = P_t[t := N_t]): an entry of a thread whose slot was
// given to a later thread keeps its epoch s#k, which an event knows iff k <= known(s) (the new
// tenant of s starts past every value of the old one), so the pairs are those of per-thread
// rows. Reports go in thread order, writes first.
class SparseHistory {
 public:
  // 24 bytes: the access's Partner unpacked (a Partner member would pad the entry to 32).
  struct Entry {
    ThreadId thread;
    uint32_t slot;
    Clock time;
    LocationId location;
    EventId event;
    Partner who() const { return Partner{event, location}; }
  };
  // Reports every entry of another thread whose access is not known to `known` (indexed by
  // slot): the latest writes, and for a write also the latest reads, each in thread order.
  // `known` is row s of `rows` (its own entry s may differ): on a large variable, once races
  // are only counted, they are counted from the non-zero entries of that row (count_large).
  template <class Engine>
  [[gnu::always_inline]] void check(Engine& engine, EventId id, const Event& e, const Clock* known,
                                    const ThreadClocks& rows, uint32_t s) {
    const size_t x = e.target;
    if (x >= vars_.size()) return;
    const Var& v = vars_[x];
    if (v.big != 0) [[unlikely]]
      return check_large(engine, id, e, known, rows, s);
    report_each(engine, id, e, known, v);
  }
  // Variables of this many entries on are large (EngineOptions::bulk_count_from); call before
  // the first event.
  void large_from(uint64_t entries) { large_from_ = entries; }
  void record(EventId id, const Event& e, uint32_t slot, Clock time) {
    record(id, e, slot, time, e.op == Op::Write);
  }
  // The same for an access known to be a write (or not) where the caller knows it statically.
  // Inline when the thread's entry is among the list's last kScan (a scan), else a binary search
  // out of line (many threads).
  [[gnu::always_inline]] void record(EventId id, const Event& e, uint32_t slot, Clock time,
                                     bool write) {
    const size_t x = e.target;
    if (x < vars_.size()) [[likely]] {
      const Var& v = vars_[x];
      const std::span<Entry> list = write ? v.writes() : v.reads();
      const size_t n = list.size(), stop = n > kScan ? n - kScan : 0;
      for (size_t i = n; i-- > stop;)
        if (list[i].thread == e.thread) {
          list[i] = Entry{e.thread, slot, time, e.location, id};
          return;
        }
    }
    update_or_insert(id, e, slot, time, write);
  }
  // "W_x" / "R_x" columns: the epochs u#k of the latest accesses.
  std::string show(VariableId x, bool write) const {
    std::string s = "{";
    if (x < vars_.size())
      for (const Entry& en : write ? vars_[x].writes() : vars_[x].reads()) {
        if (s.size() > 1) s += ',';
        s += Epoch(en.thread, en.time).to_string();
      }
    return s + "}";
  }

 private:
  template <class Engine>
  [[gnu::always_inline]] static void report_each(Engine& engine, EventId id, const Event& e,
                                                 const Clock* known, const auto& v) {
    for (const Entry& en : v.writes())
      if (en.time > known[en.slot] && en.thread != e.thread) [[unlikely]]
        engine.report(en.who(), en.thread, Op::Write, id, e);
    if (e.op == Op::Write)
      for (const Entry& en : v.reads())
        if (en.time > known[en.slot] && en.thread != e.thread) [[unlikely]]
          engine.report(en.who(), en.thread, Op::Read, id, e);
  }

  // W_x then R_x, each sorted by thread, in one array (one allocation and 24 bytes per
  // variable; two vectors took 48). A new thread of x grows the array by a quarter, not double
  // (a list gets at most one insertion per thread; doubling left a third of tradebeans' 8
  // million entries unused), and an insertion into W_x moves R_x up by one.
  struct Var {
    std::unique_ptr<Entry[]> at;
    uint32_t w = 0, r = 0, capacity = 0;
    uint32_t big = 0;  // 0: small; kLarge: large, not indexed yet; else 2 + its index in bigs_
    std::span<Entry> writes() const { return {at.get(), w}; }
    std::span<Entry> reads() const { return {at.get() + w, r}; }
    void insert(uint32_t k, bool write, const Entry& entry) {
      const uint32_t n = w + r;
      if (n == capacity) {
        capacity += capacity / 4 + 1;
        auto grown = std::make_unique_for_overwrite<Entry[]>(capacity);
        std::copy(at.get(), at.get() + k, grown.get());
        std::copy(at.get() + k, at.get() + n, grown.get() + k + 1);
        at = std::move(grown);
      } else {
        std::copy_backward(at.get() + k, at.get() + n, at.get() + n + 1);
      }
      at[k] = entry;
      ++(write ? w : r);
    }
  };
  static constexpr size_t kScan = 8;
  // record() past the scan: the thread's entry found in thread order, or a new one there.
  [[gnu::noinline]] void update_or_insert(EventId id, const Event& e, uint32_t slot, Clock time,
                                          bool write) {
    const size_t x = e.target;
    if (x >= vars_.size()) grow_to(vars_, x);
    Var& v = vars_[x];
    const std::span<Entry> list = write ? v.writes() : v.reads();
    const Entry entry{e.thread, slot, time, e.location, id};
    const auto it = std::lower_bound(list.begin(), list.end(), e.thread,
                                     [](const Entry& a, ThreadId u) { return a.thread < u; });
    if (it != list.end() && it->thread == e.thread) {
      *it = entry;
      return;
    }
    v.insert(static_cast<uint32_t>(list.data() - v.at.get() + (it - list.begin())), write, entry);
    if (v.w + v.r >= large_from_) [[unlikely]]  // (entries are never removed)
      added(v, entry, write);
  }

  // Large variables (the flood of many threads on one variable): the threads of the entries are
  // indexed by slot, so that an access finds the entries known to it from the non-zero entries
  // of its clock and counts the others as its races in one step (RaceSink::count_races_in_bulk)
  // when their locations are distinct: every location of an indexed variable is marked (marks_,
  // shared by all), and `repeats` is set once one was marked before.
  static constexpr uint32_t kLarge = 1;
  struct Big {
    bool repeats = false;
    std::unordered_multimap<uint32_t, ThreadId> threads;  // slot -> the threads with entries
  };
  static const Entry* find(std::span<const Entry> list, ThreadId t) {
    auto it = std::lower_bound(list.begin(), list.end(), t,
                               [](const Entry& a, ThreadId u) { return a.thread < u; });
    return it != list.end() && it->thread == t ? &*it : nullptr;
  }
  bool mark(LocationId l) {
    if (l >= marks_.size()) marks_.resize(std::max<size_t>(size_t{l} + 1, marks_.size() * 2));
    const bool was = marks_[l] != 0;
    marks_[l] = 1;
    return was;
  }
  // The access e is checked and then recorded (check and record come in pairs): on an indexed
  // variable, the location that replaces its thread's entry is marked here, so that record's
  // common path (replacing an entry) has no test of its own.
  void marks_record(const Var& v, const Event& e) {
    const Entry* old = find(e.op == Op::Write ? v.writes() : v.reads(), e.thread);
    if (old != nullptr && old->location != e.location) bigs_[v.big - 2].repeats |= mark(e.location);
  }
  // A new entry (of a thread new to the list of its kind) of a large variable.
  [[gnu::noinline]] void added(Var& v, const Entry& entry, bool write) {
    if (v.big == 0) {
      v.big = kLarge;
      return;
    }
    if (v.big == kLarge) return;
    Big& g = bigs_[v.big - 2];
    g.repeats |= mark(entry.location);
    if (find(write ? v.reads() : v.writes(), entry.thread) == nullptr)
      g.threads.emplace(entry.slot, entry.thread);
  }
  // The large variable gets its index.
  [[gnu::noinline]] void index(Var& v) {
    v.big = static_cast<uint32_t>(bigs_.size()) + 2;
    Big& g = bigs_.emplace_back();
    for (const Entry& en : v.writes()) {
      g.repeats |= mark(en.location);
      g.threads.emplace(en.slot, en.thread);
    }
    for (const Entry& en : v.reads()) {
      g.repeats |= mark(en.location);
      if (find(v.writes(), en.thread) == nullptr) g.threads.emplace(en.slot, en.thread);
    }
  }
  template <class Engine>
  [[gnu::noinline]] void check_large(Engine& engine, EventId id, const Event& e, const Clock* known,
                                     const ThreadClocks& rows, uint32_t s) {
    if (!count_large(engine, id, e, known, rows, s))
      report_each(engine, id, e, known, vars_[e.target]);
    const Var& v = vars_[e.target];
    if (v.big > kLarge) marks_record(v, e);
  }
  // Counts the races of e on a large variable in bulk: the entries of other threads but those
  // known to `known`, which are at the non-zero entries of row s of `rows` (and at s). False:
  // they are reported one by one (races are listed, rows are dense, locations repeat, or the
  // sink stores the group).
  template <class Engine>
  bool count_large(Engine& engine, EventId id, const Event& e, const Clock* known,
                   const ThreadClocks& rows, uint32_t s) {
    if (!rows.sparse() || !engine.counting()) return false;
    Var& v = vars_[e.target];
    if (v.big == kLarge) index(v);
    const Big& g = bigs_[v.big - 2];
    const bool write = e.op == Op::Write;
    uint64_t n = v.w + (write ? v.r : 0);
    const std::span<const uint32_t> nonzeros = rows.nonzero_slots(s);
    if (g.repeats || nonzeros.size() >= n) return false;  // (visiting each costs no more)
    const ThreadId t = e.thread;
    n -= (find(v.writes(), t) != nullptr) + (write && find(v.reads(), t) != nullptr);
    const auto drop_known = [&](uint32_t j) {
      const auto [from, to] = g.threads.equal_range(j);
      for (auto it = from; it != to; ++it) {
        if (it->second == t) continue;
        const Entry* en = find(v.writes(), it->second);
        n -= en != nullptr && en->time <= known[j];
        if (!write) continue;
        en = find(v.reads(), it->second);
        n -= en != nullptr && en->time <= known[j];
      }
    };
    for (const uint32_t j : nonzeros)
      if (j != s) drop_known(j);
    drop_known(s);
    return n == 0 || engine.count_in_bulk(n, id, e);
  }

  std::vector<Var> vars_;
  uint64_t large_from_ = UINT64_MAX;
  std::vector<Big> bigs_;
  std::vector<uint8_t> marks_;  // by location: held by an indexed variable
};

// Per variable x: W_x(u), R_x(u) = the local time of u's latest write / read of x, with the
// access behind it. check(): report every u != t whose latest conflicting access is not known to
// `known` (an earlier access of u with local time k is ordered before the current event iff
// k <= known(u)).
class History {
 public:
  template <class Engine>
  void check(Engine& engine, EventId id, const Event& e, const VectorClock& known) {
    const size_t x = e.target;
    if (x >= vars_.size()) return;
    const Var& v = vars_[x];
    const ThreadId t = e.thread;
    for (size_t u = 0; u < v.w.size(); ++u)
      if (u != t && v.w[u] > known.get(static_cast<ThreadId>(u))) [[unlikely]]
        engine.report(v.ww[u], static_cast<ThreadId>(u), Op::Write, id, e);
    if (e.op == Op::Write)
      for (size_t u = 0; u < v.r.size(); ++u)
        if (u != t && v.r[u] > known.get(static_cast<ThreadId>(u))) [[unlikely]]
          engine.report(v.rw[u], static_cast<ThreadId>(u), Op::Read, id, e);
  }
  void record(EventId id, const Event& e, Clock time) {
    const size_t x = e.target;
    grow_to(vars_, x);
    Var& v = vars_[x];
    auto& c = e.op == Op::Write ? v.w : v.r;
    auto& w = e.op == Op::Write ? v.ww : v.rw;
    if (e.thread >= c.size()) {
      c.resize(size_t{e.thread} + 1, 0);
      w.resize(size_t{e.thread} + 1);
    }
    c[e.thread] = time;
    w[e.thread] = Partner{id, e.location};
  }
  // "W_x" / "R_x" columns: the epochs u#k of the latest accesses.
  std::string show(VariableId x, bool write) const {
    std::string s = "{";
    if (x < vars_.size()) {
      const auto& c = write ? vars_[x].w : vars_[x].r;
      for (size_t u = 0; u < c.size(); ++u)
        if (c[u] != 0) {
          if (s.size() > 1) s += ',';
          s += Epoch(static_cast<ThreadId>(u), c[u]).to_string();
        }
    }
    return s + "}";
  }

 private:
  struct Var {
    std::vector<Clock> w, r;
    std::vector<Partner> ww, rw;
  };
  std::vector<Var> vars_;
};

// Two sorted lock-token lists (lock ids, read mode in kReadMode) with no token in common.
inline bool disjoint(std::span<const LockId> a, std::span<const LockId> b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) return false;
    if (a[i] < b[j])
      ++i;
    else
      ++j;
  }
  return true;
}
// No reduced lock in common: no lock l held by both unless both hold it in read mode.
inline bool disjoint_rw(std::span<const LockId> a, std::span<const LockId> b) {
  for (LockId la : a) {
    const LockId l = lock_of(la);
    if (std::binary_search(b.begin(), b.end(), l)) return false;
    if (!is_read_mode(la) && std::binary_search(b.begin(), b.end(), l | kReadMode)) return false;
  }
  return true;
}

// The same with the standard lock-set filter of SDP and WDP: a pair is reported only when the
// two accesses hold no lock in common. Per (variable, thread, kind) the latest access for each
// distinct lock set is kept; the latest unordered one with a disjoint lock set is the partner
// (a later access of u with the same lock set is unordered whenever an earlier one is).
class FilteredHistory {
 public:
  template <class Engine>
  void check(Engine& engine, EventId id, const Event& e, const VectorClock& known,
             const std::vector<LockId>& held) {
    check_with(
        engine, id, e, [&](size_t u) { return known.get(static_cast<ThreadId>(u)); }, held);
  }
  // `known(u)`: the local time of u known to the current event.
  template <class Engine, class Known>
  void check_with(Engine& engine, EventId id, const Event& e, Known&& known,
                  const std::vector<LockId>& held) {
    if (read_modes_) [[unlikely]]
      check_read_modes(engine, id, e, known, held);
    else
      check_modes<false>(engine, id, e, known, held);
  }
  template <class Engine, class Known>
  [[gnu::noinline]] void check_read_modes(Engine& engine, EventId id, const Event& e, Known& known,
                                          const std::vector<LockId>& held) {
    check_modes<true>(engine, id, e, known, held);
  }
  // From the first read-lock event on, lock sets may hold read-mode tokens.
  void allow_read_modes() { read_modes_ = true; }
  template <bool kModes, class Engine, class Known>
  void check_modes(Engine& engine, EventId id, const Event& e, Known& known,
                   const std::vector<LockId>& held) {
    const size_t x = e.target;
    if (x >= vars_.size()) return;
    const ThreadId t = e.thread;
    for (size_t u = 0; u < vars_[x].size(); ++u) {
      if (u == t) continue;
      const Clock k = known(u);
      for (Op kind : {Op::Write, Op::Read}) {
        if (kind == Op::Read && e.op == Op::Read) continue;
        const Entry* best = nullptr;
        for (const Entry& en : vars_[x][u])
          if (en.kind == kind && en.time > k &&
              (kModes ? disjoint_rw(en.locks, held) : disjoint(en.locks, held)) &&
              (!best || en.who.event > best->who.event))
            best = &en;
        if (best) [[unlikely]]
          engine.report(best->who, static_cast<ThreadId>(u), kind, id, e);
      }
    }
  }
  // An entry whose lock set includes the new access's is dropped: whenever it would qualify
  // (unordered, disjoint lock sets), the new, later access qualifies too. So the entries of one
  // (variable, thread, kind) have pairwise incomparable lock sets (few in practice).
  void record(EventId id, const Event& e, Clock time, const std::vector<LockId>& held) {
    const size_t x = e.target;
    grow_to(vars_, x);
    if (e.thread >= vars_[x].size()) vars_[x].resize(size_t{e.thread} + 1);
    auto& entries = vars_[x][e.thread];
    size_t kept = 0;
    for (size_t k = 0; k < entries.size(); ++k) {
      Entry& en = entries[k];
      const bool covered = en.kind == e.op && std::includes(en.locks.begin(), en.locks.end(),
                                                            held.begin(), held.end());
      if (!covered) {
        if (kept != k) std::swap(entries[kept], en);
        ++kept;
      }
    }
    if (kept < entries.size()) {  // reuse a dropped entry's storage
      entries.resize(kept + 1);
      Entry& en = entries[kept];
      en.kind = e.op;
      en.time = time;
      en.who = Partner{id, e.location};
      en.locks.assign(held.begin(), held.end());
    } else {
      entries.push_back(Entry{e.op, time, Partner{id, e.location}, held});
    }
  }

 private:
  struct Entry {
    Op kind;
    Clock time;
    Partner who;
    std::vector<LockId> locks;  // sorted
  };
  std::vector<std::vector<std::vector<Entry>>> vars_;  // [x][u] -> entries
  bool read_modes_ = false;
};

// (variable, lock) -> position of the lock in the variable's list of rule-(a) slots, kept only
// for variables guarded by more than kShallow locks; shorter lists are scanned. Without it a
// release of deeply nested critical sections scans, for each variable of the section, a list as
// long as the nesting depth (cubic in the depth). Open addressing over 64-bit keys, half full.
class DeepSlotIndex {
 public:
  static constexpr size_t kShallow = 32;
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t find(VariableId x, LockId l) const {
    if (used_ == 0) return kNone;
    const uint64_t key = pack(x, l);
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      ++probes_;
      if (pos_[i] == kNone) return kNone;
      if (keys_[i] == key) return pos_[i];
    }
  }
  void insert(VariableId x, LockId l, uint32_t k) {
    if (2 * (used_ + 1) > pos_.size()) grow();
    place(pack(x, l), k);
    ++used_;
  }
  // A variable's list reached kShallow + 1 entries (or one more): index the lock at k.
  // locks(k) is the lock of the list's entry k.
  template <class LockAt>
  void added(VariableId x, size_t size, LockAt&& locks) {
    if (size == kShallow + 1)
      for (size_t k = 0; k < size; ++k) insert(x, locks(k), static_cast<uint32_t>(k));
    else if (size > kShallow + 1)
      insert(x, locks(size - 1), static_cast<uint32_t>(size - 1));
  }
  size_t size() const { return used_; }
  // Slots visited by find and insert (the work, for tests).
  uint64_t probes() const { return probes_; }

 private:
  static uint64_t pack(VariableId x, LockId l) { return (uint64_t{x} << 32) | l; }
  size_t home(uint64_t key) const {  // splitmix64's finalizer: ids are dense, keys regular
    key = (key ^ (key >> 30)) * 0xBF58476D1CE4E5B9ull;
    key = (key ^ (key >> 27)) * 0x94D049BB133111EBull;
    return static_cast<size_t>((key ^ (key >> 31)) >> shift_) & mask_;
  }
  void place(uint64_t key, uint32_t k) {
    size_t i = home(key);
    for (++probes_; pos_[i] != kNone; ++probes_) i = (i + 1) & mask_;
    keys_[i] = key;
    pos_[i] = k;
  }
  [[gnu::noinline]] void grow() {
    const size_t cap = pos_.empty() ? 64 : 2 * pos_.size();
    std::vector<uint64_t> keys(cap);
    std::vector<uint32_t> pos(cap, kNone);
    keys.swap(keys_);
    pos.swap(pos_);
    mask_ = cap - 1;
    shift_ = 64 - std::countr_zero(cap);
    for (size_t i = 0; i < pos.size(); ++i)
      if (pos[i] != kNone) place(keys[i], pos[i]);
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> pos_;  // kNone: empty
  size_t used_ = 0, mask_ = 0;
  int shift_ = 64;
  mutable uint64_t probes_ = 0;
};

// The annotated view's LH_t of a sorted lock list: "{l1,r:l2}" by name.
inline AnnotationCell lock_set_cell(const std::vector<LockId>& locks, const Symbols& symbols) {
  std::string s = "{";
  for (LockId l : locks) {
    if (s.size() > 1) s += ',';
    if (is_read_mode(l)) s += "r:";
    s += std::string(symbols.locks.name(lock_of(l)));
  }
  return {"LH_t", s + "}"};
}

// The open critical sections of each thread (innermost last), with the variables read and
// written inside each (rule (a) needs them at the release), and the sorted lock set LH_S.
class OpenSections {
 public:
  // lock_sets: keep LH_S (locks()) for the lock-set filter of sdp and wdp.
  explicit OpenSections(bool lock_sets = true) : lock_sets_(lock_sets) {}
  struct Cs {
    LockId lock;
    uint64_t entry;  // the CS's index in its lock's SectionList (or any id the engine chooses)
    std::vector<VariableId> reads, writes;
  };
  std::vector<Cs>& of(ThreadId t) {
    if (t >= open_.size()) [[unlikely]]
      grow_to(open_, t);
    return open_[t];
  }
  const std::vector<LockId>& locks(ThreadId t) {
    grow_to(sorted_, t);
    return sorted_[t];
  }
  // The annotated view's LH_t: "{l1,l2}" by name.
  AnnotationCell lock_set_column(ThreadId t, const Symbols& symbols) {
    return lock_set_cell(locks(t), symbols);
  }
  void acquire(ThreadId t, LockId l, uint64_t entry) {
    grow_to(spare_, t);
    if (spare_[t].empty()) {
      of(t).push_back(Cs{l, entry, {}, {}});
    } else {  // reuse a released CS's sets (no allocation once warm)
      Cs cs = std::move(spare_[t].back());
      spare_[t].pop_back();
      cs.lock = l;
      cs.entry = entry;
      cs.reads.clear();
      cs.writes.clear();
      of(t).push_back(std::move(cs));
    }
    if (!lock_sets_) return;
    grow_to(sorted_, t);
    auto& s = sorted_[t];
    s.insert(std::upper_bound(s.begin(), s.end(), l), l);
  }
  // Adds the access to every open CS of t (consecutive repeats of a variable are skipped; other
  // repeats only cost time at the release).
  void access(const Event& e) {
    for (Cs& cs : of(e.thread)) {
      auto& set = e.op == Op::Write ? cs.writes : cs.reads;
      if (set.empty() || set.back() != e.target) set.push_back(e.target);
    }
  }
  // Removes the CS of `l` (innermost match) and returns it; `found` false when t does not hold
  // l (the validator rejects such traces; engines then ignore the release).
  Cs release(ThreadId t, LockId l, bool& found) {
    Cs out{l, 0, {}, {}};
    found = release(t, l, out);
    return out;
  }
  // The same into `out`, whose previous sets are kept for reuse by later acquires.
  bool release(ThreadId t, LockId l, Cs& out) {
    auto& o = of(t);
    for (size_t k = o.size(); k-- > 0;)
      if (o[k].lock == l) {
        std::swap(out, o[k]);
        grow_to(spare_, t);
        spare_[t].push_back(std::move(o[k]));
        o.erase(o.begin() + static_cast<std::ptrdiff_t>(k));
        if (lock_sets_) {
          auto& s = sorted_[t];
          s.erase(std::lower_bound(s.begin(), s.end(), l));
        }
        return true;
      }
    return false;
  }

 private:
  std::vector<std::vector<Cs>> open_;
  std::vector<std::vector<Cs>> spare_;  // released CSs whose sets are reused
  std::vector<std::vector<LockId>> sorted_;
  bool lock_sets_;
};

// Dense slots per (lock, variable), allocated on first use: slot_of(l, x) is the index of the
// pair's slot in the engine's slot array, or creates one.
class PairSlots {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t find(LockId l, VariableId x) const {
    if (l >= slot_.size() || x >= slot_[l].size()) return kNone;
    return slot_[l][x];
  }
  uint32_t get_or_add(LockId l, VariableId x) {
    grow_to(slot_, l);
    auto& row = slot_[l];
    if (x >= row.size()) row.resize(std::max<size_t>(size_t{x} + 1, row.size() * 3 / 2), kNone);
    if (row[x] == kNone) row[x] = count_++;
    return row[x];
  }
  uint32_t count() const { return count_; }
  // fn(x, slot) for every slot of lock l.
  template <class Fn>
  void for_each(LockId l, Fn&& fn) const {
    if (l >= slot_.size()) return;
    for (size_t x = 0; x < slot_[l].size(); ++x)
      if (slot_[l][x] != kNone) fn(static_cast<VariableId>(x), slot_[l][x]);
  }

 private:
  std::vector<std::vector<uint32_t>> slot_;
  uint32_t count_ = 0;
};

// The latest release of a CS on l that read (or wrote) x, and the latest one by a thread other
// than that release's (WCP, SDP rule (a) "by another thread", ALGORITHMS pitfall ownA: a thread
// must not import the HB time of its own earlier release). HB times of the releases of one lock
// are monotone, so the latest release stands for the join over all of them.
struct LatestRelease {
  ThreadId last = kNoThread;
  VectorClock h;      // HB time of the latest qualifying release (by `last`)
  VectorClock other;  // HB time of the latest one by a thread other than `last` (zero if none)

  void update(ThreadId t, const VectorClock& time) {
    if (t != last) {
      other.assign(h);
      last = t;
    }
    h.assign(time);
  }
  // The latest qualifying release by a thread other than t, or null.
  const VectorClock* for_thread(ThreadId t) const {
    if (last == kNoThread) return nullptr;
    return last != t ? &h : &other;
  }
};

// The critical sections of one lock in trace order (WCP rule (b), SDP S3 and S4): the thread,
// the local time of the acquire, and the HB time of the release once it happened. Acquires of
// one lock are HB-ordered, so the sections whose acquire is before a given event form a prefix.
struct Section {
  ThreadId thread;
  Clock acq;  // local time (N_u) of the acquire
  bool closed = false;
  VectorClock rel;  // H at the release
};

// The plain WCP algorithm's state and steps (wcp.cpp has the notation), shared by the plain
// wcp engine and sdp, whose rules S3 and S5-S7 are WCP's. Sec: a critical section with at least
// the fields of Section; Slots: PairSlots' interface; Latest: LatestRelease's update(t, time),
// given the closed section's release time (sdp keeps a view of it, not a copy).
//
// kOwnLazily: H_t's own entry is N_t (n_), and h_[t] holds it only from the first time H_t is
// used whole (h_full), so a thread that never releases, sends or forks keeps an H as wide as the
// threads it knows, not as its id (sdp: with many short-lived threads, a clock per thread as wide
// as its id was quadratic). Otherwise h_[t](t) = N_t always (the plain versions read h_).
// VC: the clock type (VectorClock, or sdp's SharedClock: copies share storage).
template <class Sec, class Slots = PairSlots, class Latest = LatestRelease, bool kOwnLazily = false,
          class VC = VectorClock>
struct PlainWcpState {
  std::vector<Clock> n_;   // N_t
  std::vector<bool> ran_;  // the thread had an event
  std::vector<VC> h_, p_;  // kOwnLazily: h_[t](t) may be older than N_t (h_full)
  std::vector<VC> hl_, pl_;
  std::vector<VC> hs_;                      // H_o: the join of H at every send on o
  std::vector<std::vector<Sec>> sections_;  // CS_l
  std::vector<std::vector<size_t>> cursor_;
  Slots slots_;
  std::vector<std::array<Latest, 2>> rule_a_;  // [0]: read-releases, [1]: write-releases
  OpenSections open_;

  // acq(t, l): H_t ⊔= H_l, P_t ⊔= P_l (WCP-3, S5), and a new open CS of l. h_known: H_t knows
  // H_l already (knows_release).
  void acquire_lock(ThreadId t, LockId l, Sec open, bool h_known = false) {
    ensure_lock(l);
    if (!h_known) h_[t].join(hl_[l]);
    p_[t].join(pl_[l]);
    sections_[l].push_back(std::move(open));
    open_.acquire(t, l, sections_[l].size() - 1);
  }
  // H_t knows H_l, the HB time of the last release of l (the last CS of l, closed): an HB time
  // that holds the releasing thread's entry of a release holds all of its time (t's own
  // releases: H_t only grows). O(1) where the join walks the clocks.
  bool knows_release(ThreadId t, LockId l) const {
    if (l >= sections_.size() || sections_[l].empty() || !sections_[l].back().closed) return false;
    const Sec& last = sections_[l].back();
    return last.thread == t || last.rel.get(last.thread) <= h_[t].get(last.thread);
  }
  // WCP-2 (S3) at a release of l by t: the CSs of l whose acquire is WCP-before it are a prefix
  // (acquires of l are HB-ordered and WCP composes with HB); the last one stands for all. True if
  // one was joined.
  bool rule_b(ThreadId t, LockId l) {
    ensure_lock(l);
    const auto& list = sections_[l];
    grow_to(cursor_[l], t);
    size_t& i = cursor_[l][t];
    size_t last = SIZE_MAX;
    if constexpr (kOwnLazily) {
      // The due CSs are a prefix: found by galloping from the cursor, O(log) lookups (sdp: a
      // new thread's cursor starts at 0, and walking there cost every earlier CS of l).
      const auto due = [&](size_t k) {
        return list[k].closed && list[k].acq <= p_[t].get(list[k].thread);
      };
      if (i >= list.size() || !due(i)) return false;
      size_t lo = i + 1, hi = lo, step = 1;  // due on [i, lo)
      for (;;) {
        hi = lo + step - 1;
        if (hi >= list.size()) {
          hi = list.size();
          break;
        }
        if (!due(hi)) break;
        lo = hi + 1;
        step *= 2;
      }
      while (lo < hi) {  // the first CS not due lies in [lo, hi]
        const size_t mid = lo + (hi - lo) / 2;
        if (due(mid))
          lo = mid + 1;
        else
          hi = mid;
      }
      last = lo - 1;
      i = lo;
    } else {
      while (i < list.size() && list[i].closed && list[i].acq <= p_[t].get(list[i].thread))
        last = i++;
    }
    if (last == SIZE_MAX) return false;
    // The lazy (sdp) version skips a release P_t knows already: P_t is a join of HB times, and
    // one that knows r1 knows all of H(r1).
    if constexpr (kOwnLazily)
      if (list[last].rel.get(list[last].thread) <= p_[t].get(list[last].thread)) return true;
    p_[t].join(list[last].rel);
    return true;
  }
  // The rest of the release: rule-(a) bookkeeping, H_l := H_t, P_l := P_t, the CS closed with
  // H_t, N_t += 1 (unless `then_tick` is false: more locks are released by the same event).
  void close(ThreadId t, LockId l, const OpenSections::Cs& cs, bool then_tick = true) {
    Sec& sec = sections_[l][cs.entry];
    sec.closed = true;
    sec.rel.assign(h_full(t));
    for (VariableId x : cs.reads) rule_a_slot(l, x)[0].update(t, sec.rel);
    for (VariableId x : cs.writes) rule_a_slot(l, x)[1].update(t, sec.rel);
    hl_[l].assign(h_[t]);
    pl_[l].assign(p_[t]);
    if (then_tick) tick(t);
  }
  std::array<Latest, 2>& rule_a_slot(LockId l, VariableId x) {
    const uint32_t s = slots_.get_or_add(l, x);
    if (s >= rule_a_.size()) rule_a_.resize(size_t{s} + 1);
    return rule_a_[s];
  }
  // The rule-(a) slot of (l, x), or null.
  const std::array<Latest, 2>* find_rule_a(LockId l, VariableId x) const {
    const uint32_t s = slots_.find(l, x);
    return s == Slots::kNone || s >= rule_a_.size() ? nullptr : &rule_a_[s];
  }
  // The annotated view's N_t, H_t and P_t over `width` threads.
  void clock_columns(ThreadId t, size_t width, Annotation& row) const {
    row.push_back({"N_t", std::to_string(n_[t])});
    VC h = h_[t];
    h.set(t, n_[t]);
    row.push_back({"H_t", show(h, width)});
    row.push_back({"P_t", show(p_[t], width)});
  }
  // send(t,o), recv(t,o): a hard edge like fork/join, in HB and (composed with HB) in P:
  // H_o ⊔= H_t, then N_t += 1; P_t ⊔= H_o, H_t ⊔= H_o.
  void send_on(ThreadId t, LockId o) {
    grow_to(hs_, o);
    hs_[o].join(h_full(t));
    tick(t);
  }
  void recv_on(ThreadId t, LockId o) {
    if (o >= hs_.size()) return;
    p_[t].join(hs_[o]);
    h_[t].join(hs_[o]);
  }
  // N_t += 1; H_t(t) := N_t
  void tick(ThreadId t) {
    ++n_[t];
    if constexpr (!kOwnLazily) h_[t].set(t, n_[t]);
  }
  // H_t with its own entry: h_[t](t) := N_t (no more than that: others know older times of t).
  const VC& h_full(ThreadId t) {
    h_[t].set(t, n_[t]);
    return h_[t];
  }
  void ensure_thread(ThreadId t) {
    while (n_.size() <= t) {
      n_.push_back(1);
      ran_.push_back(false);
      h_.emplace_back();
      if constexpr (!kOwnLazily) h_.back().set(static_cast<ThreadId>(n_.size() - 1), 1);
      p_.emplace_back();
    }
  }
  void ensure_lock(LockId l) {
    if (l >= hl_.size()) {
      hl_.resize(size_t{l} + 1);
      pl_.resize(size_t{l} + 1);
      sections_.resize(size_t{l} + 1);
      cursor_.resize(size_t{l} + 1);
    }
  }

  // ---- Read-write locks: the standard reduction, literally (docs/ENGINES.md) ----------------
  // The lock ids of this state are reduced locks: (l,*) for every real lock l (the CSs of l's
  // write sections, standing for every (l,u) of a thread u that never took l in read mode) and
  // (l,u) for each thread u that did; (l,u) starts as a copy of (l,*)'s state at u's first read
  // acquire of l (until then both had exactly l's write sections). A read section of l by u is a
  // CS on (l,u) only; a write section one on (l,*) and every (l,u), acquired and released by the
  // one event (release_all).
  static constexpr LockId kNoLock = UINT32_MAX;
  std::vector<LockId> base_;                  // (l,*)
  std::vector<std::vector<LockId>> readers_;  // (l,u), kNoLock until u's first read acquire
  LockId next_ = 0;
  std::vector<LockId> ids_;                 // scratch: the reduced locks of the current event
  std::vector<OpenSections::Cs> released_;  // scratch: the CSs the current release closes

  // The reduced locks of a lock event of t: (l,t) for a read-mode event, (l,*) and every (l,u)
  // for a write-mode one. copied(from, to, slots) is called when (l,t) is made, with the rule-(a)
  // slot pairs (of from, of to) copied.
  template <class Copied>
  const std::vector<LockId>& reduced(const Event& e, ThreadId t, Copied&& copied) {
    const LockId l = e.target;
    if (l >= base_.size()) base_.resize(size_t{l} + 1, kNoLock);
    if (base_[l] == kNoLock) base_[l] = next_++;
    ids_.clear();
    if (is_read_lock_op(e.op)) [[unlikely]] {
      grow_to(readers_, l);
      if (t >= readers_[l].size()) readers_[l].resize(size_t{t} + 1, kNoLock);
      if (readers_[l][t] == kNoLock) {
        const LockId to = next_++;
        copied(base_[l], to, copy_lock(base_[l], to));
        readers_[l][t] = to;
      }
      ids_.push_back(readers_[l][t]);
    } else {
      ids_.push_back(base_[l]);
      if (l < readers_.size()) [[unlikely]]
        for (LockId r : readers_[l])
          if (r != kNoLock) ids_.push_back(r);
    }
    return ids_;
  }
  // The state of `from` copied to `to` (no CS of `from` is open: a read acquire); returns the
  // rule-(a) slot pairs (of from, of to).
  [[gnu::noinline]] std::vector<std::pair<uint32_t, uint32_t>> copy_lock(LockId from, LockId to) {
    ensure_lock(std::max(from, to));
    hl_[to] = hl_[from];
    pl_[to] = pl_[from];
    sections_[to] = sections_[from];
    cursor_[to] = cursor_[from];
    std::vector<std::pair<uint32_t, uint32_t>> slots;
    slots_.for_each(from, [&](VariableId x, uint32_t s) { slots.emplace_back(s, x); });
    for (auto& [s, c] : slots) {
      c = slots_.get_or_add(to, static_cast<VariableId>(c));
      if (std::max(s, c) >= rule_a_.size()) rule_a_.resize(size_t{std::max(s, c)} + 1);
      rule_a_[c] = rule_a_[s];
    }
    return slots;
  }
  // The release of t's CSs on `locks` by one event: before(cs) for each, WCP-2 (S3) on all of
  // them until nothing is joined, then on_close(cs) and close() for each and N_t += 1 once.
  // False if t held none of them.
  template <class Before, class OnClose>
  bool release_all(ThreadId t, const std::vector<LockId>& locks, Before&& before,
                   OnClose&& on_close) {
    released_.clear();
    for (LockId l : locks) {
      bool held = false;
      OpenSections::Cs cs = open_.release(t, l, held);
      if (held) released_.push_back(std::move(cs));
    }
    if (released_.empty()) return false;
    for (const OpenSections::Cs& cs : released_) before(cs);
    for (bool again = true; again;) {
      again = false;
      for (const OpenSections::Cs& cs : released_) again = rule_b(t, cs.lock) || again;
      again = again && released_.size() > 1;
    }
    for (const OpenSections::Cs& cs : released_) {
      on_close(cs);
      close(t, cs.lock, cs, false);
    }
    tick(t);
    return true;
  }
};

}  // namespace racepred::po
