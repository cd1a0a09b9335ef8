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

}  // namespace racepred::explore
