// The events of a recording, before names: the merged records become events whose threads,
// variables and locks have ids (the address model) and whose locations are indices into the
// recorded code addresses, which naming.hpp turns into source lines.
//
// Two passes, so that nothing held in memory grows with the number of events: the first (scan)
// merges and decodes the records, learns the threads, variables, locks, locations and stacks,
// and how each variable was accessed (which decides what an access of several bytes becomes,
// docs/RECORDER.md "Access sizes"), and keeps its events in a temporary file (16 bytes each,
// in memory while they are few); the second (emit) reads them back and hands the trace's events
// on in batches as it makes them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "racepred/recording/address_model.hpp"
#include "racepred/recording/raw_recording.hpp"
#include "racepred/trace/event.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred::recording {

struct Assembled {
  std::vector<Event> events;  // only assemble() fills it; location: an index into pcs
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
  // Per variable id: the location index of its first read or write (UINT32_MAX: none, or
  // beyond the end), which names the frame of a variable on a thread's stack.
  std::vector<uint32_t> first_access;
};

// Receives the events of the second pass in trace order, a batch at a time.
class EventBatchSink {
 public:
  virtual ~EventBatchSink() = default;
  virtual void on_events(std::span<const Event> events) = 0;
};

// The two passes over the records of `recording` with sequence numbers below `cut`.
class Assembly {
 public:
  // `recording` must outlive the assembly. The first pass's events are kept for the second
  // in chunks of `spill_chunk` bytes: in memory while there is one, else in a temporary file.
  Assembly(const RawRecording& recording, uint64_t cut, size_t spill_chunk = kSpillChunk);
  static constexpr size_t kSpillChunk = size_t{1} << 20;
  ~Assembly();
  Assembly(const Assembly&) = delete;
  Assembly& operator=(const Assembly&) = delete;

  // The first pass; afterwards scanned() has everything but the events.
  void scan();
  Assembled& scanned();
  // The second pass (after scan): the events, in trace order, to `sink`.
  void emit(EventBatchSink& sink);

  // Events per batch given to a sink: with the writer's chunk, all the events the conversion
  // holds at once.
  static constexpr size_t kBatch = 4096;
  // The most raw-recording bytes either pass held at once (docs/PERFORMANCE.md "Recorder").
  uint64_t peak_raw_bytes() const;
  // Bytes of the temporary file after scan() (0: the events stayed in memory).
  uint64_t spill_bytes() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Both passes, the events kept in memory (small recordings and tests).
Assembled assemble(const RawRecording& recording, uint64_t cut);

}  // namespace racepred::recording
