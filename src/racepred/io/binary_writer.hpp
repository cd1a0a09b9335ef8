// Writing events in racepred's binary trace format (docs/FORMATS.md "Binary", format/).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "racepred/format/trace_format.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {

struct BinaryWriteOptions {
  // Codec of the events/symbols blocks (docs/FORMATS.md "Binary"): LZ4 by default (reads
  // fastest: 3.2 bytes/event on the generated 5M-event trace), zstd for the smallest files (2.6),
  // none for uncompressed blocks (6.0).
  format::Codec codec = format::kCodecLz4;
  // Codec level: LZ4_compress_HC level (1..12), or zstd level (1..19). STD -> binary of the
  // 5M-event trace takes 0.59 s of CPU at LZ4 level 4 (0.71 s at 9 for 0.02 bytes/event less;
  // 0.33 s with zstd level 3). For LZ4, 0 and below choose LZ4's fast compressor
  // (LZ4_compress_fast, acceleration 1 - level): several times as fast as level 4, for larger
  // blocks (`racepred record`, docs/RECORDER.md "Conversion"); the reader is the same.
  int level = 4;
  uint32_t chunk_events = format::kChunkEvents;  // events per block (1 .. kChunkEvents)
};

// Names that a writer asks for one at a time, as the events that use them are written, instead
// of taking them from a table that holds them all (`racepred record`: millions of heap
// variables, each named once and never kept).
class NameSource {
 public:
  virtual ~NameSource() = default;
  // The names of the space: ids 0 .. count() - 1.
  virtual uint32_t count(unsigned space) const = 0;
  // Appends the name of `id` to `out`; asked for each id once, in increasing order.
  virtual void name(unsigned space, uint32_t id, std::string& out) = 0;
};

// Streams events as binary chunks to a file descriptor, like StdWriter. Names are taken from
// `symbols` when a chunk is flushed, so the symbols may grow while writing as long as a name
// is interned before the first event that uses it is written. Event ids are kept (gaps too);
// input lines are not stored. The call stacks of `symbols` (if any) are written at the end.
class BinaryWriter : public EventConsumer {
 public:
  // Writes to standard output when `path` is "-" or empty; otherwise creates/truncates `path`.
  // Throws InputError when the file cannot be opened.
  BinaryWriter(const Symbols& symbols, const std::string& path, BinaryWriteOptions options = {});
  ~BinaryWriter() override;
  BinaryWriter(const BinaryWriter&) = delete;
  BinaryWriter& operator=(const BinaryWriter&) = delete;

  void on_event(EventId id, const Event& event, uint32_t) override {
    pending_.push_back(event);
    pending_ids_.push_back(id);
    ++events_;
    if (pending_.size() >= options_.chunk_events) flush_chunk();
  }
  // An event and its call stack (an id of symbols.stacks, 0: none), written with the chunk of
  // the event: the stack table's new stacks and the chunk's event stacks follow its events
  // block, so nothing per event is kept past the chunk (`racepred record`). A writer takes its
  // stacks either this way or from symbols.stacks.of_event at the end, not both.
  void on_event(EventId id, const Event& event, uint32_t line, uint32_t stack) {
    if (stack) pending_stacks_.push_back({id, stack});
    streams_stacks_ = true;
    BinaryWriter::on_event(id, event, line);
  }
  // The names of `space` (variables or locks) come from `source`, not from `symbols`, and are
  // written in blocks of at most kStreamedNamesBlock bytes as they are made (none is kept):
  // `all_first`, all of them before the first events block (as a table that holds them all
  // would; readers then know every name before the first event); otherwise before each events
  // block the names up to the largest id that its events name, and the rest at the end.
  // Before the first event.
  void stream_names(unsigned space, NameSource& source, bool all_first) {
    sources_[space] = &source;
    if (all_first) needed_names_[space] = source.count(space);
  }
  static constexpr size_t kStreamedNamesBlock = size_t{1} << 20;
  // Events given but not yet written (at most a chunk).
  size_t pending_events() const { return pending_.size(); }
  // Writes the last chunk, the index and the trailer (the file is complete); close() too.
  void on_end() override { finish(); }
  void finish();
  void close();
  uint64_t bytes_written() const { return offset_; }
  uint64_t events_written() const { return events_; }

 private:
  void flush_chunk();
  void write_symbols();
  // The stack table and the events' stacks (symbols.stacks), after the last events block.
  void write_stacks();
  // The stacks of the table not yet written; the given events' stacks; where threads were
  // created.
  void write_stack_table();
  void write_event_stacks(const std::vector<std::pair<EventId, uint32_t>>& of_events);
  void write_thread_stacks();
  void write_block(uint8_t kind, const uint8_t* raw, size_t size, bool compress);
  void write_all(const void* data, size_t size);

  const Symbols& symbols_;
  std::string path_;
  BinaryWriteOptions options_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool finished_ = false;
  std::vector<uint8_t> chunk_;
  std::vector<uint8_t> scratch_;
  std::vector<uint8_t> stack_buffer_;      // write_event_stacks's
  std::unique_ptr<uint64_t[]> lz4_state_;  // LZ4 HC's compression state (8-byte aligned)
  std::vector<uint8_t> symbol_buffer_;
  std::vector<format::IndexEntry> index_;
  std::vector<Event> pending_;  // the open chunk's events
  std::vector<EventId> pending_ids_;
  std::vector<std::pair<EventId, uint32_t>> pending_stacks_;  // the open chunk's (event, stack)
  bool streams_stacks_ = false;
  size_t written_stacks_ = 1;  // stack ids below it are in the file (0 is "none")
  uint32_t written_names_[format::kSpaceCount] = {};
  NameSource* sources_[format::kSpaceCount] = {};
  uint32_t needed_names_[format::kSpaceCount] = {};  // of the spaces with a source
  std::string name_;
  uint64_t offset_ = 0;
  uint64_t events_ = 0;
};

}  // namespace racepred
