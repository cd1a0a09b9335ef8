// Decoding a raw recording of the runtime (recorder/, format/ "raw recording"): its blocks are
// checked and sorted by thread; a recording that ended early is cut at a consistent prefix.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/io/input.hpp"

namespace racepred::recording {

// The packed records of one raw block.
struct RawBlock {
  const uint8_t* data;
  const uint8_t* end;
  uint32_t count;
};

// One thread's blocks in file order (which is its sequence order).
struct ThreadStream {
  std::vector<RawBlock> blocks;
  bool ended = false;      // its last block says so: nothing of it is missing
  uint64_t last_seq = 0;   // of its last written record
  uint64_t start_seq = 0;  // its events have larger sequence numbers (kRawStart)
  bool any = false;        // it wrote a record
};

// A decoded recording. Its blocks point into the bytes given to decode_recording.
struct RawRecording {
  std::map<uint32_t, ThreadStream> threads;  // by the runtime's thread id
  std::string maps;                          // the program's /proc/self/maps, "" if none
  uint64_t dropped = 0;      // events the runtime dropped (signal handlers in the runtime)
  bool capped = false;       // RACEPRED_MAX_MB stopped the recording
  bool torn = false;         // the file ends inside a block (a crash while writing)
  bool ended = false;        // the runtime wrote its "complete" note
  uint64_t records = 0;      // records in all blocks (an upper bound of the events)
  uint32_t stack_depth = 0;  // RACEPRED_STACK_DEPTH of the run: frames kept per stack (0: none)
  // The program ended normally: every thread flushed, nothing capped or torn.
  bool complete() const { return ended && !capped && !torn; }
};

// Checks and decodes `bytes`; `name` (the file) prefixes error messages. Throws InputError when
// the bytes are not a raw recording or a block other than the last one is corrupt.
RawRecording decode_recording(std::string_view bytes, const std::string& name);

// The consistent cut: events with sequence numbers below it are certainly all in the recording.
// An unfinished thread may have lost everything after its last written record, so the cut is
// the smallest such record of any thread that did not end; UINT64_MAX when the recording is
// complete.
uint64_t consistent_cut(const RawRecording& recording);

// The bytes of a raw recording file: mapped when possible, read otherwise.
class RawFile {
 public:
  // Throws InputError when `path` cannot be read.
  explicit RawFile(const std::string& path);
  std::string_view bytes() const { return bytes_; }

 private:
  io::MappedFile file_;
  std::string copy_;
  std::string_view bytes_;
};

}  // namespace racepred::recording
