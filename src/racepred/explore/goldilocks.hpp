// The Goldilocks-driven reduction of the dfs search (Elmas and Qadeer, "A New Lockset Algorithm
// and Its Applications", §5 "Stateless model checking"): the lock sets LS of §3 are computed
// along an execution, and an access whose lock set does not meet the locks its thread holds
// (a potential race) makes two nodes full branching points: the node before it and the node
// before the last access `la` of its variable. Other memory accesses stay points where the
// current thread simply goes on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "racepred/explore/execution.hpp"
#include "racepred/recording/raw_recording.hpp"

namespace racepred::explore {

// One event of an execution in the form the lock sets need (from its raw recording).
struct LsEvent {
  enum Kind : uint8_t { Access, Acquire, Release, Fork, Join, Send, Recv };
  Kind kind = Access;
  bool atomic = false;  // an atomic operation's access (two of them never race)
  bool write = false;   // an access that writes (a read-modify-write included)
  uint32_t tid = 0;
  uint64_t obj = 0;   // Access: the variable (an 8-byte word); locks, objects; Fork/Join: a tid
  uint64_t seq = 0;   // the recording's order
  uint64_t prev = 0;  // the sequence number of the thread's previous event + 1 (0: none)
};

// The events of a raw recording in sequence order (accesses by 8-byte word: a range is one
// event per word, at most 4,096; read locks as a send/recv order on the lock, which the
// reader does not hold). Throws InputError when the recording cannot be read.
std::vector<LsEvent> lockset_events(const std::string& raw);
// The same of a decoded recording.
std::vector<LsEvent> lockset_events(const recording::RawRecording& recording);

// Runs the lock sets over `events` and sets `racy` on the access points of `points` (the
// execution's choice points, with their sequence numbers) that the search must branch at.
// Returns the number of potential races (accesses whose lock set check failed).
uint64_t mark_racy_points(const std::vector<LsEvent>& events, std::vector<ChoicePoint>& points);

// The execution's class up to the order of independent operations (its Mazurkiewicz trace),
// as a 64-bit hash of its happens-before graph: each event (its thread, its place in the
// thread, kind and object) with the events of every thread that happen before it. Two
// executions have the same hash exactly when one is the other with adjacent independent
// operations swapped (up to hash collisions). Dependent: two accesses of the same 8-byte word
// of which one writes, two operations of one lock, a send and a receive of one object, two
// thread creations (thread numbers follow their order); a fork orders the child after it and
// a join the joined thread's events before it.
uint64_t trace_class(const std::vector<LsEvent>& events);

}  // namespace racepred::explore
