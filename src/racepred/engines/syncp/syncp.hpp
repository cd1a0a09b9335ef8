// Sync-preserving races (Mathur, Pavlogiannis and Viswanathan, "Optimal prediction of
// synchronization-preserving races", POPL 2021): races with a witness reordering in which the
// lock acquires that occur keep their order in the trace.
//
// For conflicting accesses e1 <tr e2 let I(e1, e2) be the least set of events that contains
// the thread-order predecessors of e1 and e2 (a thread's fork included) and is closed under
//   thread order      (with fork -> first event of the child, last event -> join),
//   reads-from        (a read in I brings the last write before it in the trace),
//   sync orders       (a recv(o) in I brings every send(o) before it in the trace),
//   the lock rule     (an acquire a' in I brings its release when some later acquire a of the
//                      same lock is in I and a or a' takes the lock in write mode).
// (e1, e2) is a sync-preserving race iff e1 is not in I (e2 never is: I lies before e2 in the
// trace). I is an ideal, one prefix length per thread; the witness is I in trace order followed
// by e1 and e2, both enabled. With write-mode locks only, the lock rule is the paper's: every
// acquire of I but the latest has its release in I. Read-mode sections of one lock may overlap
// in the witness as they do in the trace, so two read acquires impose nothing on each other.
//
// The analysis (one pass over the index):
//   pre(u, p)   TRF clock: the closure of the first p events of u under thread order,
//               reads-from and sync orders, a prefix length per thread; stored only where it
//               changes (a read of a write not yet in it, a join, a recv, the thread's start),
//               found in O(1) through a bit per position marking where one is stored (and
//               likewise the acquires of each thread: whether a raise crosses one, which
//               sections are open at a frontier).
//   CS(u, l)    u's critical sections on l: acquire position, acquire index, release position.
//   A(x, u)     u's reads and writes of x; per slot s (below) that accesses x, per other
//               thread u and kind of pair (write-read, read-write, write-write) a forward-only
//               cursor and an ideal V (all of u's candidates are dropped at once when u's newest
//               is TRF-before e2; u is forgotten by the slot once it ended and is TRF-before).
// Slots: every per-thread table (clocks, J, stored pre, ideals) is indexed by slot; a thread
// forked after its forker joined another thread takes that one's slot, its positions after
// the other's: an ideal holding any of its events holds its fork, hence the join, hence all of
// the other thread, so a prefix length per slot is still an ideal (see syncp.cpp, "Slots").
// At an access e2 of t, for each other thread u and kind, the cursor's candidate e1 is dropped
// for good when it is in I(e1, e2): it is in pre(t, p2) (TRF-before), it shares a lock with e2
// (held in write mode by one of them: its section ends before e2's begins, so the lock rule
// brings its release), or the lock rule's fixpoint brings it in. The ideals of one key only grow
// (e1 and e2 only move forward), so each key's fixpoint resumes where the last one stopped.
// The first candidate that stays outside is the earliest partner of e2 in u of that kind.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "racepred/trace/trace_index.hpp"

namespace racepred::syncp {

// The races: for every access e2, every other thread u and every kind of e1 (read, write)
// conflicting with e2, the earliest e1 of that kind in u with (e1, e2) a sync-preserving race.
// Every event that is the later event of a sync-preserving race is the second of some pair.
// Index positions (first <tr second), in order of second, then first. share_slots = false gives
// every thread a slot of its own (for tests: the races are the same).
std::vector<std::pair<uint32_t, uint32_t>> races(const TraceIndex& index, bool share_slots = true);

// The slots the analysis needs (W, the width of its clocks and ideals): a thread forked after
// its forker joined another thread may take that thread's slot (see syncp.cpp, "Slots").
uint32_t slot_count(const TraceIndex& index);

// The ideal I(first, second) of two accesses, as a prefix length per thread (first and second:
// index positions, first <tr second). Each call makes the pass of races() once more (without
// the race checks): meant for the few races a user asks to see.
std::vector<uint32_t> ideal(const TraceIndex& index, uint32_t first, uint32_t second);

// The witness of a race: the events of I(first, second) in trace order, then first and second.
std::vector<uint32_t> witness(const TraceIndex& index, uint32_t first, uint32_t second);

}  // namespace racepred::syncp
