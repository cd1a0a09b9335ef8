// Writing events in STD (`THREAD|OP(ARG)|LOCATION`, docs/FORMATS.md "STD").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "racepred/trace/trace.hpp"

namespace racepred {

// Streams events as STD lines through a large buffer to a file descriptor (no iostreams).
// Names are looked up in `symbols` at each event, so the symbols may grow while writing, as
// long as a name is interned before the first event that uses it.
class StdWriter : public EventConsumer {
 public:
  // Writes to standard output when `path` is "-" or empty; otherwise creates/truncates `path`.
  // Throws InputError when the file cannot be opened.
  StdWriter(const Symbols& symbols, const std::string& path);
  ~StdWriter() override;
  StdWriter(const StdWriter&) = delete;
  StdWriter& operator=(const StdWriter&) = delete;

  void on_event(EventId id, const Event& event, uint32_t line) override;
  // Flushes; on_end() leaves the file open, close() closes it (the destructor too).
  void on_end() override { flush(); }
  void flush();
  void close();
  uint64_t bytes_written() const { return bytes_ + used_; }

 private:
  void put(std::string_view s) {
    s.copy(buffer_.data() + used_, s.size());
    used_ += s.size();
  }

  // Names with their punctuation ("T3|", "V12)|", "345\n"), padded to 16 bytes so that a line
  // is four fixed-size copies. `size` 0 marks a name too long for a slot (slow path).
  struct Slot {
    char text[16];
    uint8_t size = 0;
  };
  enum Space { kThreads, kVariables, kLocks, kLocations, kSpaces };
  const Slot& slot(Space space, uint32_t id);
  void write_slow(const Event& e);

  std::vector<Slot> slots_[kSpaces];
  const Symbols& symbols_;
  std::string path_;
  int fd_ = -1;
  bool owns_fd_ = false;
  std::vector<char> buffer_;
  size_t used_ = 0;
  uint64_t bytes_ = 0;
};

// The trace as STD text, one line per event (no comments).
std::string to_std_text(const Trace& trace);

}  // namespace racepred
