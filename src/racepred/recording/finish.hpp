// Turning a raw recording into a trace file, step by step: read and decode (raw_recording.hpp),
// cut an unfinished recording at a consistent prefix, merge the threads and apply the address
// model (assemble.hpp: a first pass), name (naming.hpp, symbolizer.hpp), and write (binary or
// STD text) as a second pass makes the events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace racepred::recording {

struct FinishOptions {
  std::string output;     // .std / .txt: STD text; anything else: binary
  bool symbolize = true;  // addr2line / nm; false keeps module+offset and hex addresses
  // The mapped raw recording's pages are given back to the system after every this many bytes
  // read (RawFile::consumed).
  uint64_t give_back_bytes = uint64_t{32} << 20;
  // The first pass keeps its events for the second in chunks of this many bytes, in memory
  // while there is one, then in a temporary file (assemble.hpp).
  size_t spill_chunk_bytes = size_t{1} << 20;
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
  // The conversion's own accounting of what it held at once (it streams: neither grows with
  // the recording's length): the most events in memory, and the most bytes of the raw
  // recording (a block per thread at most; the rest of the mapped file is given back).
  uint64_t peak_events_held = 0, peak_raw_bytes_held = 0;
  // Bytes the conversion kept in its temporary file (0: its events fitted in memory).
  uint64_t spill_bytes = 0;
  std::vector<std::string> notes;  // what the user should know (symbolisation problems...)
};

// Throws InputError when `raw` is not a raw recording or is corrupt.
FinishResult finish_recording(const std::string& raw, const FinishOptions& options);

}  // namespace racepred::recording
