// Turning a raw recording into a trace file, step by step: read and decode (raw_recording.hpp),
// cut an unfinished recording at a consistent prefix, merge the threads and apply the address
// model (assemble.hpp), name (naming.hpp, symbolizer.hpp), write (binary or STD text).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "racepred/trace/event.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred::recording {

struct FinishOptions {
  std::string output;     // .std / .txt: STD text; anything else: binary
  bool symbolize = true;  // addr2line / nm; false keeps module+offset and hex addresses
};

struct FinishResult {
  uint64_t events = 0;
  uint64_t threads = 0, variables = 0, locks = 0, locations = 0;
  uint64_t dropped = 0;     // events the runtime dropped (signal handlers in the runtime)
  uint64_t cut_events = 0;  // events after the consistent cut of an unfinished recording
  bool complete = false;    // the program ended normally (every thread flushed)
  bool capped = false;      // RACEPRED_MAX_MB stopped the recording
  bool torn = false;        // the file ends inside a block (a crash while writing)
  uint64_t raw_bytes = 0, output_bytes = 0;
  std::vector<std::string> notes;  // what the user should know (symbolisation problems...)
};

// Writes `events` with `symbols` to `output` (STD text when it ends in .std or .txt, else
// binary); returns the bytes written.
uint64_t write_trace(const std::vector<Event>& events, const Symbols& symbols,
                     const std::string& output);

// Throws InputError when `raw` is not a raw recording or is corrupt.
FinishResult finish_recording(const std::string& raw, const FinishOptions& options);

}  // namespace racepred::recording
