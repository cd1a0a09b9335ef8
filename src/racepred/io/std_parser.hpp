// The STD line grammar (docs/FORMATS.md) and the block parser that streams events.
// Internal to io/; exposed for tests.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "racepred/io/reader.hpp"

namespace racepred::io {

// Ops that STD producers write and no engine uses: accepted, counted, skipped.
inline constexpr std::array<std::string_view, 3> kStdSkippedOps = {"begin", "end", "branch"};

// One line, parsed by the careful (slow) path: the reference for what the fast path accepts,
// and the source of every error message.
struct StdLine {
  enum class Kind { Event, Skipped, Blank, Error };
  Kind kind = Kind::Error;
  Op op = Op::Read;
  std::string_view thread, argument, location;
  size_t skipped = 0;  // index into kStdSkippedOps when kind == Skipped
  size_t column = 0;   // 1-based, when kind == Error
  std::string message;
};

// Names and locations in STD may hold any byte: the writer writes a byte that the grammar
// cannot carry (whitespace and other control characters, '|', '\\', and '#' opening a thread
// name) as \xHH, and the reader decodes \xHH (two hex digits) anywhere in a name; any other
// backslash is itself. docs/FORMATS.md, "Names".
bool std_needs_escape(std::string_view name, bool thread);
// Appends `name` escaped; `out` must have room for 4 * name.size() bytes. Returns the end.
char* std_escape(std::string_view name, bool thread, char* out);
// `raw` with its \xHH decoded: `raw` itself when it has no backslash, else a view of `storage`.
std::string_view std_unescape(std::string_view raw, std::string& storage);

// `line` is one line without its '\n'; a trailing '\r' is ignored. Blank means empty, only
// spaces and tabs, or a comment ('#' in column 1).
StdLine parse_std_line(std::string_view line);

// Parses blocks of whole lines, delivering events to the consumer. Keeps the line and event
// counters across blocks.
class StdParser {
 public:
  StdParser(std::string_view file_name, const ReadOptions& options, Symbols& symbols,
            EventConsumer& consumer, ReadSummary& summary);
  // [begin, end) holds whole lines and end[-1] == '\n'. Memory up to `readable_end`
  // (>= end) may be read.
  void parse_block(const char* begin, const char* end, const char* readable_end);
  // Parses text that need not end in '\n' and has no readable bytes past its end.
  void parse_text(std::string_view text);
  // Moves the skipped-op counters into the summary.
  void finish();
  // Lines parsed so far.
  uint64_t lines() const { return line_; }

 private:
  // The fields of a line the fast paths accepted.
  struct Fields {
    Op op;
    const char* thread;
    const char* thread_end;
    const char* arg;
    const char* arg_end;
    const char* loc;
    const char* loc_end;
  };
  bool vector_line(const char* s, const char*& next, const char* readable_end, Fields& f);
  bool fast_line(const char* s, const char*& next, Fields& f);
  void deliver(const Fields& f, const char* readable_end);
  void deliver_now(Op op, const char* thread, const char* thread_end, const char* arg,
                   const char* arg_end, const char* loc, const char* loc_end,
                   const char* readable_end, uint64_t line);
  struct Staged;
  [[gnu::noinline]] void stage(const Staged& line);
  void flush();
  // Hands the events parsed so far to the consumer, as one run (emit()).
  void emit() {
    if (out_count_ == 0) return;
    const size_t n = std::exchange(out_count_, 0);
    consumer_.on_lines(std::span(out_ids_.data(), n), std::span(out_events_.data(), n),
                       std::span(out_lines_.data(), n));
  }
  void slow_line(const char* s, const char* nl);
  void parse_lines(const char* begin, const char* end, const char* readable_end);
  void error(size_t column, const std::string& what);
  template <bool kRepeats = true>
  uint32_t intern(SymbolTable& table, const char* s, const char* e, const char* readable_end) {
    return s + 16 <= readable_end ? table.intern_padded<kRepeats>(s, static_cast<size_t>(e - s))
                                  : table.intern(std::string_view(s, static_cast<size_t>(e - s)));
  }

  std::string_view file_name_;
  bool lenient_;
  Symbols& symbols_;
  EventConsumer& consumer_;
  ReadSummary& summary_;
  std::array<SymbolTable*, kOpCount> targets_;  // the name space of each op's argument
  uint64_t line_ = 0;
  uint64_t event_lines_ = 0;
  uint64_t delivered_ = 0;
  std::array<uint64_t, kStdSkippedOps.size()> skipped_{};
  // Lines parsed but not yet delivered (in order): while a name table is larger than the
  // caches, the slots of up to kStaged lines' names are prefetched together before they are
  // looked up, so the cache misses overlap instead of one stalling each event. Always empty
  // between blocks and before a line of the slow path.
  struct Staged {
    Op op;
    const char *thread, *thread_end, *arg, *arg_end, *loc, *loc_end, *readable_end;
    uint64_t line;
  };
  static constexpr size_t kStaged = 16;
  std::array<Staged, kStaged> staged_;
  size_t staged_count_ = 0;
  bool staging_ = false;  // some name table is large()
  // Events parsed and not yet handed to the consumer: delivered kOut at a time (one virtual
  // call per run, and the validator and the pipeline's batcher work on runs), and always
  // before anything else reaches the consumer, so the order stays the input's. Empty between
  // blocks.
  static constexpr size_t kOut = 256;
  std::array<EventId, kOut> out_ids_;
  std::array<Event, kOut> out_events_;
  std::array<uint32_t, kOut> out_lines_;
  size_t out_count_ = 0;
};

}  // namespace racepred::io
