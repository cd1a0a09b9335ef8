// Critical sections and lock sets of Sulzmann and Thiemann §4–5: standard (Def. 4.1/4.2),
// cross-thread (Def. 4.3/4.4) and thread-indexed cross-thread (Def. 5.9) lock sets, and the
// lock-set race predictors P_DR (with ∩) and P'_DR (with ∩').
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "racepred/exact/search.hpp"
#include "racepred/report/race.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred::exact {

// Critical sections are the index's (TraceIndex::critical_sections()). A section whose release
// is kNoIndex (the lock is still held at the end) ends, following the footnote to §4 ("we can
// always add missing release events at the end"), with a virtual release placed right after the
// thread's last event (at the end of the thread rather than of the trace, so that a joined
// thread stays well-formed).

// e <mhb r for the section's release (virtual or not).
bool before_release(const TraceIndex& trace, const MustHappenBefore& mhb, const CriticalSection& cs,
                    uint32_t e);

// CS_S(x)^(a,r) (Def. 4.1) for the matching pair, as sorted event indices. CS-SAME-THREAD makes
// it the thread's events between a and its matching release.
std::vector<uint32_t> standard_section(const TraceIndex& trace, const CriticalSection& cs);
// The events in a cross-thread critical section guarded by cs.acquire (Def. 4.3 as printed), as
// sorted event indices: e with a <mhb e <mhb r for some release r of the lock by the thread
// after a (CS-CROSS-1; the latest such release, or the virtual one, is the weakest bound), and
// no correctly reordered prefix with a < r' < e for a release r' of the lock by the thread
// (CS-CROSS-2; r' = the matching release decides it, later ones follow it in program order).
// This can hold for events that are not <mhb the matching release: <mhb is read over prefixes
// ("every prefix that contains f contains e earlier"), and an event may be missing from a prefix
// that holds the matching release while every prefix holding both runs it first.
// docs/GROUND_TRUTH.md ("Critical sections") has the reasoning, the matching-release-only
// reading and examples/exact/cross_later_release.std, where the two differ.
std::vector<uint32_t> cross_section(const TraceIndex& trace, const MustHappenBefore& mhb,
                                    const CriticalSection& cs);

// A lock held by an event together with the thread of the guarding acquire, and its mode.
// Read-write locks follow the reduction (docs/ENGINES.md, "Read-write locks"): a read section
// of lock y by thread t holds (y,t), a write section every (y,u); so two held locks have a
// reduced lock in common iff they are the same lock and not both held in read mode.
struct HeldLock {
  LockId lock = 0;
  ThreadId thread = 0;
  bool read = false;
  friend bool operator==(const HeldLock&, const HeldLock&) = default;
  friend auto operator<=>(const HeldLock&, const HeldLock&) = default;
};
using LockSet = std::vector<HeldLock>;  // sorted, distinct

// LH_S(e) for every event (Def. 4.2), from program order alone (CS-SAME-THREAD makes
// CS-BRACKET a program-order condition). Every element has thread = thread(e).
std::vector<LockSet> standard_lock_sets(const TraceIndex& trace);
// LH_CT(e) for every event (Def. 5.9); LH_C(e) (Def. 4.4) is its projection on locks.
std::vector<LockSet> cross_lock_sets(const TraceIndex& trace, const MustHappenBefore& mhb);
// The locks of a thread-indexed set (π1), sorted and distinct.
std::vector<LockId> locks_of(const LockSet& set);

// L(e) ∩ L(f) = ∅ on the locks (P_DR), or M' ∩' N' = ∅ (P'_DR: a common lock only counts when
// acquired by different threads). A common lock held in read mode on both sides does not count.
bool disjoint(const LockSet& a, const LockSet& b);
bool disjoint_indexed(const LockSet& a, const LockSet& b);

enum class Intersection { Plain, Indexed };

// Lock sets interned: each event's set as an id into `sets`.
struct LockSetIds {
  std::vector<LockSet> sets;       // distinct
  std::vector<uint32_t> of_event;  // per event index
};
LockSetIds intern_lock_sets(const std::vector<LockSet>& per_event);
// LH_S interned directly (no per-event vectors; for large traces).
LockSetIds standard_lock_set_ids(const TraceIndex& trace);

// Lock sets as opaque keys, for callers that intern them elsewhere (ls-standard uses the clock
// kit's lock-set table, whose memory stays linear in the nesting depth): each event's key
// (equal keys: equal lock sets; keys below `count`) and whether two keys' sets are disjoint.
struct LockSetKeys {
  std::vector<uint32_t> of_event;
  uint32_t count = 0;
  std::function<bool(uint32_t, uint32_t)> disjoint;
};

// Reports every conflicting pair whose lock sets do not intersect into `sink`, in detection
// order; once the sink stops accepting, further pairs are counted in bulk (accesses of one
// variable with the same thread, lock set and kind form a class; compatible classes pair up
// completely).
void predict_races(const TraceIndex& trace, const LockSetIds& sets, Intersection intersection,
                   RaceSink& sink);
void predict_races(const TraceIndex& trace, const LockSetKeys& keys, RaceSink& sink);
// The same as index pairs (i < j), sorted: for tests.
std::vector<std::pair<uint32_t, uint32_t>> predicted_pairs(const TraceIndex& trace,
                                                           const std::vector<LockSet>& sets,
                                                           Intersection intersection);

// "{x, y}" (plain) or "{(x,T1), (y,T2)}" (indexed), with names when the trace has symbols.
std::string format_lock_set(const TraceIndex& trace, const LockSet& set, bool indexed);

}  // namespace racepred::exact
