// The shared driver of the line-based readers (RAPID CSV, RoadRunner, LockFrame): splits blocks
// into lines, counts lines and event lines, interns names, delivers events, counts skipped ops,
// and reports malformed lines as STD does (FILE:LINE:COL, or skipped under --lenient).
// Internal to io/.
#pragma once

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "racepred/io/reader.hpp"

namespace racepred::io {

// What a format's line parser makes of one line.
struct LineResult {
  enum class Kind { Event, Skipped, Ignored, Error };
  Kind kind = Kind::Error;
  Op op = Op::Read;
  // Names of the event (may point into the line or into the parser's scratch space).
  std::string_view thread, target, location;
  std::string_view skipped;  // Skipped: the op counted in ReadSummary::skipped_ops
  size_t column = 0;         // Error: 1-based byte column
  std::string message;       // Error

  static LineResult error(size_t column, std::string message) {
    LineResult r;
    r.column = column;
    r.message = std::move(message);
    return r;
  }
  static LineResult ignored() {
    LineResult r;
    r.kind = Kind::Ignored;
    return r;
  }
  // An operation line: Skipped (counted by `name`) for one racepred skips, else an Event of
  // `op` by `thread` (the caller sets target and location).
  static LineResult operation(bool skipped, std::string_view name, Op op, std::string_view thread) {
    LineResult r;
    if (skipped) {
      r.kind = Kind::Skipped;
      r.skipped = name;
      return r;
    }
    r.kind = Kind::Event;
    r.op = op;
    r.thread = thread;
    return r;
  }
};

// Calls f(field, offset) for each `sep`-separated field of `line` (0-based offset of the field;
// a line without `sep` is one field) until f returns false.
template <typename F>
void split_fields(std::string_view line, char sep, F f) {
  size_t pos = 0;
  for (;;) {
    const size_t at = line.find(sep, pos);
    const size_t end = at == std::string_view::npos ? line.size() : at;
    if (!f(line.substr(pos, end - pos), pos) || at == std::string_view::npos) return;
    pos = at + 1;
  }
}

// Blank (empty, spaces and tabs only) or a '#' comment.
inline bool blank_or_comment(std::string_view line) {
  return line.empty() || line.front() == '#' ||
         line.find_first_not_of(" \t") == std::string_view::npos;
}

// `Parser` has `LineResult parse(std::string_view line, uint64_t line_number)` (line without
// '\n' and without a trailing '\r').
template <class Parser>
class LineReader {
 public:
  LineReader(Parser& parser, std::string_view file_name, const ReadOptions& options,
             Symbols& symbols, EventConsumer& consumer, ReadSummary& summary)
      : parser_(parser),
        file_name_(file_name),
        lenient_(options.lenient),
        symbols_(symbols),
        consumer_(consumer),
        summary_(summary) {}

  // Whole lines, except that the last line of the input may lack its '\n'.
  void parse(std::string_view block) {
    size_t pos = 0;
    while (pos < block.size()) {
      const void* nl = std::memchr(block.data() + pos, '\n', block.size() - pos);
      const size_t end =
          nl ? static_cast<size_t>(static_cast<const char*>(nl) - block.data()) : block.size();
      std::string_view line = block.substr(pos, end - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      handle(line);
      pos = end + 1;
    }
  }

  void finish() {
    summary_.lines = line_;
    summary_.event_lines = event_lines_;
    summary_.delivered = delivered_;
    for (const auto& [op, n] : skipped_) summary_.skipped_ops[op] += n;
  }

  uint64_t line() const { return line_; }
  uint64_t event_lines() const { return event_lines_; }

  // An error not tied to one line's column ("FILE: error: ..."), for checks at the end.
  void fail_file(const std::string& message) {
    throw InputError(std::string(file_name_) + ": error: " + message);
  }

 private:
  void handle(std::string_view line) {
    ++line_;
    LineResult r = parser_.parse(line, line_);
    switch (r.kind) {
      case LineResult::Kind::Ignored:
        return;
      case LineResult::Kind::Skipped: {
        ++event_lines_;
        auto it = skipped_.find(r.skipped);
        if (it == skipped_.end()) it = skipped_.emplace(std::string(r.skipped), 0).first;
        ++it->second;
        return;
      }
      case LineResult::Kind::Error: {
        ++event_lines_;
        std::string message = std::string(file_name_) + ":" + std::to_string(line_) + ":" +
                              std::to_string(r.column) + ": error: " + r.message;
        if (!lenient_) throw InputError(message);
        ++summary_.malformed;
        if (summary_.malformed_examples.size() < kMalformedExamples)
          summary_.malformed_examples.push_back(std::move(message));
        return;
      }
      case LineResult::Kind::Event: {
        ++event_lines_;
        Event event;
        event.op = r.op;
        event.thread = symbols_.threads.intern(r.thread);
        SymbolTable& targets = r.op == Op::Read || r.op == Op::Write ? symbols_.variables
                               : targets_lock(r.op)                  ? symbols_.locks
                                                                     : symbols_.threads;
        event.target = targets.intern(r.target);
        event.location = symbols_.locations.intern(r.location);
        ++delivered_;
        consumer_.on_event(event_lines_, event, static_cast<uint32_t>(line_));
        return;
      }
    }
  }

  Parser& parser_;
  std::string_view file_name_;
  bool lenient_;
  Symbols& symbols_;
  EventConsumer& consumer_;
  ReadSummary& summary_;
  uint64_t line_ = 0;
  uint64_t event_lines_ = 0;
  uint64_t delivered_ = 0;
  std::map<std::string, uint64_t, std::less<>> skipped_;
};

// "T12": a name made of a prefix and a number, written into `buf`.
std::string_view numbered_name(char prefix, uint64_t n, char (&buf)[24]);
// The line number written into `buf`: the location of an event in a format without locations.
std::string_view line_number_name(uint64_t line_number, char (&buf)[24]);
// The number of a name made by numbered_name ("T12" -> 12; no sign, no leading zeros);
// nullopt for anything else.
std::optional<uint64_t> number_of_name(std::string_view name, char prefix);
// Parses an unsigned decimal field (at 0-based offset `at` of its line) no larger than `max`.
// Returns an error message and sets `column`, or returns an empty string.
std::string parse_unsigned(std::string_view field, size_t at, const char* what, uint64_t max,
                           uint64_t& value, size_t& column);
// `s` quoted for a message, cut after 40 bytes.
std::string quoted_text(std::string_view s);

}  // namespace racepred::io
