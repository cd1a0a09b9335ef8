// The events of a recording, before names: the merged records become events whose threads,
// variables and locks have ids (the address model) and whose locations are indices into the
// recorded code addresses, which naming.hpp turns into source lines.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "racepred/recording/address_model.hpp"
#include "racepred/recording/raw_recording.hpp"
#include "racepred/trace/event.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred::recording {

struct Assembled {
  std::vector<Event> events;  // location: an index into pcs
  SymbolTable threads;        // "T<tid>", in order of first appearance (final names)
  AddressModel addresses;     // the variables' and locks' keys, the allocation sites
  std::vector<uint64_t> pcs;  // the code address of each location index
  // Locations of events that a system library made for the user (kRawCaller): the location
  // index and the caller's code address, named instead when the first is a system header's.
  std::vector<std::pair<uint32_t, uint64_t>> callers;
  // The threads' stacks (kRawStack), in recording order: [low, high) and the trace's thread id.
  struct Stack {
    uint64_t low, high;
    uint32_t thread;
  };
  std::vector<Stack> stacks;
  uint64_t cut_events = 0;  // records dropped at the consistent cut
  // Call stacks (a recording with a stack depth, docs/RECORDER.md "Stacks"): the callers of
  // each node, innermost first, as location indices (node 0: no stack; node 1 may be the empty
  // list of callers), and per location index its node. An event with a stack has a location
  // index of its own per (code address, node).
  std::vector<std::vector<uint32_t>> caller_nodes;
  std::vector<uint32_t> location_nodes;
};

// The events of `recording` with sequence numbers below `cut`, in sequence order.
Assembled assemble(const RawRecording& recording, uint64_t cut);

}  // namespace racepred::recording
