// Writing a whole trace in one of the formats of the registry (io/formats.hpp), for
// `racepred convert`. Internal helpers for the writers are in namespace io.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/trace/trace.hpp"

namespace racepred {

struct WriteOptions {
  // Write even when the format cannot represent everything (names numbered anew, locations
  // dropped); without it such a conversion is a UsageError that lists what would be lost.
  bool allow_loss = false;
};

}  // namespace racepred

namespace racepred::io {

// Buffered output to a file ("-" or "" is standard output), created/truncated on open.
class Output {
 public:
  explicit Output(const std::string& path);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  void put(std::string_view s) {
    if (buffer_.size() + s.size() > kFlushAt) flush();
    buffer_.append(s);
  }
  void put(char c) {
    if (buffer_.size() + 1 > kFlushAt) flush();
    buffer_.push_back(c);
  }
  void put_number(uint64_t n);
  void flush();
  // Flushes and closes; throws InputError on a write error.
  void close();
  const std::string& display() const { return display_; }

 private:
  static constexpr size_t kFlushAt = size_t{1} << 20;
  std::string display_;
  int fd_ = -1;
  bool owns_ = false;
  std::string buffer_;
};

// What a conversion would lose, collected by a writer before it writes anything.
class LossReport {
 public:
  explicit LossReport(std::string_view format) : format_(format) {}
  void add(std::string what) { items_.push_back(std::move(what)); }
  bool empty() const { return items_.empty(); }
  // Throws UsageError listing the losses unless `allow_loss` (or nothing is lost).
  void check(const WriteOptions& options) const;
  // Names that the format cannot hold at all (no --allow-loss helps): throws UsageError.
  [[noreturn]] void impossible(const std::string& why) const;
  // For formats without read-write locks: the first read-lock event (racq, rrel), if any, is
  // impossible (naming the event); nothing is turned into an exclusive lock silently.
  void reject_read_locks(const Trace& trace) const;
  // For formats without synchronisation orders: the first send or recv event, if any, is
  // impossible (naming the event); it is not dropped silently (that would lose an order).
  void reject_sync_ops(const Trace& trace) const;
  // The same for lock requests (req).
  void reject_requests(const Trace& trace) const;

 private:
  std::string format_;
  std::vector<std::string> items_;
};

// Numbers for the names of one name space in formats whose ids are numbers (LockFrame,
// SpeedyGo, RapidBin): the number in the name when every name is PREFIX<number> not above
// `max`; otherwise (with a loss noted) the dense id. Each entry is the number for that id.
std::vector<uint64_t> numbers_for(const SymbolTable& table, char prefix, uint64_t max,
                                  std::string_view what, LossReport& loss);

// Locations that hold no information a format without locations keeps: true when every
// event's location is its 1-based line number in the output (what the readers of RAPID CSV
// and LockFrame without a location field assign when reading back).
bool locations_are_line_numbers(const Trace& trace);

// The first name of `table` containing a byte of `bad` (or whitespace when `no_space`), or
// nullopt.
std::optional<std::string_view> name_with(const SymbolTable& table, std::string_view bad,
                                          bool no_space);

}  // namespace racepred::io
