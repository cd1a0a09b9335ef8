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

class RawFile;

// The packed records of one raw block.
struct RawBlock {
  const uint8_t* data;
  const uint8_t* end;
  uint32_t count;
  uint64_t offset = 0;  // of its block header in the recording (for messages)
};

// One thread's blocks in file order (which is its sequence order).
struct ThreadStream {
  std::vector<RawBlock> blocks;
  bool ended = false;      // its last block says so: nothing of it is missing
  uint64_t last_seq = 0;   // of its last written record (only known when the recording is not
                           // complete(): only the consistent cut needs it)
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
  std::string name;          // of the recording, for messages
  const RawFile* file = nullptr;  // the file whose bytes the blocks are, if decoded from one
  uint64_t peak_raw_bytes = 0;    // the most raw bytes decoding held at once
  // The program ended normally: every thread flushed, nothing capped or torn.
  bool complete() const { return ended && !capped && !torn; }
};

// Checks and decodes `bytes`; `name` (the file) prefixes error messages. Throws InputError when
// the bytes are not a raw recording or a block other than the last one is corrupt. The records
// of a block are checked here only when the recording is not complete (the cut needs each
// thread's last one); otherwise the merge checks them as it reads them (RecordMerger).
RawRecording decode_recording(std::string_view bytes, const std::string& name);
// The same for the bytes of `file`, each block given back to it once checked (the merge reads
// them again): what is held at once is a bounded part of the file, not all of it.
RawRecording decode_recording(const RawFile& file, const std::string& name);

// The consistent cut: events with sequence numbers below it are certainly all in the recording.
// An unfinished thread may have lost everything after its last written record, so the cut is
// the smallest such record of any thread that did not end; UINT64_MAX when the recording is
// complete.
uint64_t consistent_cut(const RawRecording& recording);

// The bytes of a raw recording file: mapped when possible, read otherwise.
class RawFile {
 public:
  // Throws InputError when `path` cannot be read.
  explicit RawFile(const std::string& path, uint64_t give_back_every = kGiveBackEvery);
  std::string_view bytes() const { return bytes_; }
  // `n` more bytes of the file were read and are not needed again soon. Every give_back_every
  // bytes (default kGiveBackEvery), a mapped file gives all its pages back to the system (a later
  // read maps them again from the page cache; the mapping is private and never written), so what a
  // conversion holds in memory does not grow with the recording. A read copy keeps its bytes.
  void consumed(uint64_t n) const;
  // Bytes consumed since the pages were last given back (below give_back_every).
  uint64_t unreleased() const { return unreleased_; }
  static constexpr uint64_t kGiveBackEvery = uint64_t{32} << 20;

 private:
  io::MappedFile file_;
  std::string copy_;
  std::string_view bytes_;
  uint64_t give_back_every_;
  mutable uint64_t unreleased_ = 0;
};

}  // namespace racepred::recording
