// Turning a raw recording of the runtime (recorder/, format/ "raw recording") into a trace:
// merge the threads' records by sequence number, cut a recording that ended early at a
// consistent prefix, name threads, variables, locks and locations (docs/RECORDER.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace racepred::cli {

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

// Throws InputError when `raw` is not a raw recording or is corrupt.
FinishResult finish_recording(const std::string& raw, const FinishOptions& options);

}  // namespace racepred::cli
