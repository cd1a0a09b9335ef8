// M2 (Pavlogiannis, "Fast, sound, and effectively complete dynamic race prediction", POPL 2020):
// for each candidate pair, the causal cone of the two accesses is closed under the paper's lock
// and observation rules and then linearised; a successful linearisation is the witness. Sound
// on every trace, and complete for traces of two threads (the paper's theorem; checked against
// the exact ground truth by the property tests).
//
// For conflicting accesses e1 <tr e2 of different threads:
//   X          the least set that holds the thread predecessors of e1 and e2 (the forks of their
//              threads included) and is closed under thread order, fork -> child, child's last
//              event -> join, reads-from (a read brings the last write before it) and send(o) ->
//              later recv(o) (a recv brings every earlier send of its object). X grows by the
//              releases the lock rule forces, each with its own cone.
//   Q          a partial order on X: thread order, the edges above, and what the rules add until
//              nothing changes:
//     lock       two sections c1, c2 of one lock in different threads, not both read sections:
//                acq(c1) <Q rel(c2) forces rel(c1) <Q acq(c2); a section whose release is not
//                in X is open and goes last (every other section of its lock is released before
//                its acquire); when rel(c1) is not in X it is added to X. Of two open sections
//                the one whose acquire Q orders first is closed; unordered, the one whose
//                release's cone holds neither access, else the earlier in the trace.
//     observation  a read r that reads w in the trace and another write w' of its variable:
//                w' <Q r forces w' <Q w; w <Q w' forces r <Q w'; a read of the initial value
//                goes before every write of its variable in X.
// (e1, e2) is an M2 race iff it is an OSR race (osr.hpp; tried first, with OSR's witness: with
// three or more threads the greedy schedule below can get stuck where OSR's order has a
// linearisation), or neither is in X, Q is acyclic and a linearisation of Q over X
// respects the locks (a greedy schedule that lets a thread holding a lock go first, else the
// earliest event in the trace) with every read of X reading its trace write. The schedule is
// checked step by step, so every report is a correctly reordered prefix after which e1 and e2
// are both enabled: the witness. A pair rejected this way gets a second attempt that first
// closes every open section whose release's cone holds neither access (OSR's optimism: M2's own
// choices can leave a third thread's section open where a witness needs it closed); it is
// checked the same way.
//
// Where the paper's model has no such op: read-write locks (two read sections impose nothing on
// each other and may both stay open); send/recv (a hard order, as fork/join); a granted `req`
// is a local event and a pending one (its thread's last event) can never be in X.
//
// Cost: the cones come from clocks stored where they change (as syncp's and osr's), one word per
// lane: a thread forked after its forker joined another (that ended holding no lock) runs in the
// joined one's lane, so the width is the threads alive at once (m2.cpp, Lanes). Before M2's
// closure, a pair osr rejects passes a necessary closure (cones, and releases forced because
// sections of one lock cannot overlap; m2.cpp, forced_out) that rejects most non-races. The events
// of X before the earliest acquire of an open section (or before an event a rule orders after
// the window, which then starts there) run first, in trace order (a valid prefix:
// each of its sections is closed or still held at the cut, each read has its write), and only
// the rest of X (the window) is closed and linearised. Per checked pair the work is polynomial
// in the window: Q as a clock per event (one entry per thread with events in the window), the
// lock rule over the pairs of the window's sections,
// the observation rule over its reads and writes of one variable. Running the prefix first is a
// choice of this implementation: every report stays sound, and checked against the exact ground
// truth it loses no race on two threads. A pair's closure stops after a bound on its work (window
// events summed over its rounds; kDefaultWork, the default of --m2-work; 0 there: no bound):
// such a pair is not reported and is counted.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "racepred/trace/trace_index.hpp"

namespace racepred {
class Engine;
struct EngineContext;
}  // namespace racepred

namespace racepred::m2 {

// The work M2's closure of one pair may take by default (`--m2-work`, engines/options.def):
// window events summed over its rounds. A pair osr's check rejects whose closure needs more is
// not reported; the run's extras count it (`stopped_checks`) and the text report says so.
constexpr uint64_t kDefaultWork = uint64_t{1} << 18;

// The registered engine with another work bound (tests).
std::unique_ptr<Engine> make_engine(EngineContext& context, uint64_t work);

// The races: for every access e2, every other thread u and every kind of e1 (read, write)
// conflicting with e2, the earliest e1 of that kind in u with (e1, e2) an M2 race. Index
// positions (first <tr second), in order of second, then first.
std::vector<std::pair<uint32_t, uint32_t>> races(const TraceIndex& index);

// The races computed with every thread in its own lane (no thread takes the lane of one its
// forker joined): the same as races() (tests).
std::vector<std::pair<uint32_t, uint32_t>> races_in_own_lanes(const TraceIndex& index);

// How many lanes the cone clocks need: threads alive at once, as m2.cpp assigns them (a thread
// forked after its forker joined another runs in that one's lane).
uint32_t lanes(const TraceIndex& index);

// Whether (first, second) is an M2 race (index positions of conflicting accesses, first <tr
// second).
bool is_race(const TraceIndex& index, uint32_t first, uint32_t second);

// Whether the necessary closure m2 applies before its own (m2.cpp, forced_out) shows that no
// correctly reordered prefix leaves first and second both enabled: true only for pairs that are
// not predictable races under the enabled notion (then m2 rejects them too).
bool excluded(const TraceIndex& index, uint32_t first, uint32_t second);

// The witness of a race: the linearisation of X, then first and second; empty when (first,
// second) is not an M2 race.
std::vector<uint32_t> witness(const TraceIndex& index, uint32_t first, uint32_t second);

}  // namespace racepred::m2
