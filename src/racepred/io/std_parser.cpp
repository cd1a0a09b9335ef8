#include "racepred/io/std_parser.hpp"

#include <cstring>
#include <utility>

#include "racepred/trace/printable.hpp"

#if defined(__SSE2__) && !defined(RACEPRED_SCALAR_READER)
#include <emmintrin.h>
#endif

namespace racepred::io {
namespace {

// Java's \s (RAPID's argument regex is [^\s]+), minus '\n' which never occurs inside a line.
constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Characters that end the fast scan of an argument: the fast path hands anything unusual
// (nested parentheses, whitespace, a missing ')') to parse_std_line.
struct ArgStopTable {
  bool stop[256] = {};
  constexpr ArgStopTable() {
    for (char c : {')', '(', '|', '\n', ' ', '\t', '\r', '\v', '\f', '\\'})
      stop[static_cast<unsigned char>(c)] = true;
  }
};
constexpr ArgStopTable kArgStop;

// A name in a message: control characters escaped, cut after 40 bytes.
std::string quoted(std::string_view s) {
  std::string out = "'";
  out += printable(s, 40);
  out += '\'';
  return out;
}

StdLine error_at(size_t column, std::string message) {
  StdLine r;
  r.kind = StdLine::Kind::Error;
  r.column = column;
  r.message = std::move(message);
  return r;
}

constexpr int hex_value(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

constexpr bool escaped_byte(unsigned char c) {
  return c <= ' ' || c == 0x7f || c == '|' || c == '\\';
}

}  // namespace

bool std_needs_escape(std::string_view name, bool thread) {
  if (thread && !name.empty() && name.front() == '#') return true;
  for (char c : name)
    if (escaped_byte(static_cast<unsigned char>(c))) return true;
  return false;
}

char* std_escape(std::string_view name, bool thread, char* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (escaped_byte(c) || (thread && i == 0 && c == '#')) {
      *out++ = '\\';
      *out++ = 'x';
      *out++ = kHex[c >> 4];
      *out++ = kHex[c & 15];
    } else {
      *out++ = static_cast<char>(c);
    }
  }
  return out;
}

std::string_view std_unescape(std::string_view raw, std::string& storage) {
  if (raw.find('\\') == std::string_view::npos) return raw;
  storage.clear();
  for (size_t i = 0; i < raw.size(); ++i) {
    int hi, lo;
    if (raw[i] == '\\' && i + 3 < raw.size() && raw[i + 1] == 'x' &&
        (hi = hex_value(raw[i + 2])) >= 0 && (lo = hex_value(raw[i + 3])) >= 0) {
      storage += static_cast<char>(hi << 4 | lo);
      i += 3;
    } else {
      storage += raw[i];
    }
  }
  return storage;
}

StdLine parse_std_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  StdLine r;
  if (line.empty() || line.front() == '#' ||
      line.find_first_not_of(" \t") == std::string_view::npos) {
    r.kind = StdLine::Kind::Blank;
    return r;
  }
  const size_t bar1 = line.find('|');
  if (bar1 == std::string_view::npos)
    return error_at(line.size() + 1,
                    "missing field: expected '|' after the thread name (THREAD|OP(ARG)|LOCATION)");
  const size_t bar2 = line.find('|', bar1 + 1);
  if (bar2 == std::string_view::npos)
    return error_at(line.size() + 1,
                    "missing field: expected '|' and a location after the operation "
                    "(THREAD|OP(ARG)|LOCATION)");
  const size_t bar3 = line.find('|', bar2 + 1);
  if (bar3 != std::string_view::npos)
    return error_at(bar3 + 1, "too many fields: unexpected '|' (THREAD|OP(ARG)|LOCATION)");
  if (bar1 == 0) return error_at(1, "empty thread name");

  // Columns below are 0-based offsets; error_at takes them + 1.
  const size_t op_begin = bar1 + 1;
  const std::string_view op = line.substr(op_begin, bar2 - op_begin);
  if (op.empty()) return error_at(op_begin + 1, "missing operation");
  const size_t paren = op.find('(');
  const std::string_view kind = op.substr(0, paren);
  bool known = false;
  for (int i = 0; i < kOpCount; ++i) {
    if (kind == op_name(static_cast<Op>(i))) {
      r.op = static_cast<Op>(i);
      known = true;
    }
  }
  size_t skipped = kStdSkippedOps.size();
  for (size_t i = 0; i < kStdSkippedOps.size() && !known; ++i)
    if (kind == kStdSkippedOps[i]) skipped = i;
  if (!known && skipped == kStdSkippedOps.size())
    return error_at(op_begin + 1, "unknown operation " + quoted(kind) +
                                      " (expected r, w, acq, rel, racq, rrel, fork, join, "
                                      "send, recv, req, rreq, begin, end or branch)");
  const bool is_skipped = !known;
  if (paren == std::string_view::npos) {
    if (!is_skipped)
      return error_at(op_begin + kind.size() + 1, "missing '(' after " + quoted(kind));
  } else {
    const size_t arg_begin = op_begin + paren + 1;  // offset in line
    if (op.back() != ')' || op.size() == paren + 1) {
      const size_t close = op.rfind(')');
      if (close != std::string_view::npos && close > paren)
        return error_at(op_begin + close + 2, "unexpected text after ')'");
      return error_at(bar2 + 1, "missing ')' at the end of the operation");
    }
    const std::string_view arg = line.substr(arg_begin, bar2 - 1 - arg_begin);
    if (arg.empty()) return error_at(arg_begin + 1, "empty argument");
    for (size_t i = 0; i < arg.size(); ++i)
      if (is_space(arg[i])) return error_at(arg_begin + i + 1, "whitespace in argument");
    r.argument = arg;
  }
  const std::string_view location = line.substr(bar2 + 1);
  if (location.empty()) return error_at(bar2 + 2, "empty location");
  r.thread = line.substr(0, bar1);
  r.location = location;
  if (is_skipped) {
    r.kind = StdLine::Kind::Skipped;
    r.skipped = skipped;
  } else {
    r.kind = StdLine::Kind::Event;
  }
  return r;
}

StdParser::StdParser(std::string_view file_name, const ReadOptions& options, Symbols& symbols,
                     EventConsumer& consumer, ReadSummary& summary)
    : file_name_(file_name),
      lenient_(options.lenient),
      symbols_(symbols),
      consumer_(consumer),
      summary_(summary),
      targets_{&symbols.variables, &symbols.variables, &symbols.locks, &symbols.locks,
               &symbols.threads,   &symbols.threads,   &symbols.locks, &symbols.locks,
               &symbols.locks,     &symbols.locks,     &symbols.locks, &symbols.locks} {}

// The common case: THREAD|op(ARG)|LOCATION with a plain argument: its fields and the next
// line's start. Returns false for anything else; slow_line then decides.
inline bool StdParser::fast_line(const char* s, const char*& next, Fields& f) {
  const char* p = s;
  char c = *p;
  while (c != '|' && c != '\n' && c != '\\') c = *++p;
  if (c != '|' || p == s) return false;
  const char* thread_end = p;
  ++p;
  Op op;
  switch (p[0]) {
    case 'r':
      if (p[1] == '(') {
        op = Op::Read;
        p += 2;
      } else if (p[1] == 'e' && p[2] == 'l' && p[3] == '(') {
        op = Op::Release;
        p += 4;
      } else {
        return false;
      }
      break;
    case 'w':
      if (p[1] != '(') return false;
      op = Op::Write;
      p += 2;
      break;
    case 'a':
      if (p[1] != 'c' || p[2] != 'q' || p[3] != '(') return false;
      op = Op::Acquire;
      p += 4;
      break;
    case 'f':
      if (p[1] != 'o' || p[2] != 'r' || p[3] != 'k' || p[4] != '(') return false;
      op = Op::Fork;
      p += 5;
      break;
    case 'j':
      if (p[1] != 'o' || p[2] != 'i' || p[3] != 'n' || p[4] != '(') return false;
      op = Op::Join;
      p += 5;
      break;
    default:
      return false;
  }
  const char* arg = p;
  while (!kArgStop.stop[static_cast<unsigned char>(*p)]) ++p;
  if (*p != ')' || p == arg || p[1] != '|') return false;
  const char* arg_end = p;
  p += 2;
  const char* loc = p;
  c = *p;
  while (c != '|' && c != '\n' && c != '\\') c = *++p;
  if (c != '\n' || static_cast<size_t>(p - s) > kMaxLineBytes) return false;
  next = p + 1;
  if (p > loc && p[-1] == '\r') --p;
  if (p == loc) return false;

  f = {op, s, thread_end, arg, arg_end, loc, p};
  return true;
}

// Inlined once, into parse_lines: a call per line cost its prologue and epilogue (5% of the
// instructions of `racepred stats`).
[[gnu::always_inline]] inline void StdParser::deliver(const Fields& f, const char* readable_end) {
  if (__builtin_expect(staging_, false))
    return stage(
        {f.op, f.thread, f.thread_end, f.arg, f.arg_end, f.loc, f.loc_end, readable_end, line_});
  deliver_now(f.op, f.thread, f.thread_end, f.arg, f.arg_end, f.loc, f.loc_end, readable_end,
              line_);
}

void StdParser::stage(const Staged& line) {
  // Prefetch only where it can pay: padded names (16 readable bytes) of large tables.
  const SymbolTable& target = *targets_[static_cast<size_t>(line.op)];
  if (line.arg + 16 <= line.readable_end) {
    if (target.large())
      target.prefetch_padded(line.arg, static_cast<size_t>(line.arg_end - line.arg));
    if (symbols_.locations.large())
      symbols_.locations.prefetch_padded(line.loc, static_cast<size_t>(line.loc_end - line.loc));
  }
  staged_[staged_count_] = line;
  if (++staged_count_ == kStaged) flush();
}

[[gnu::always_inline]] inline void StdParser::deliver_now(Op op, const char* thread,
                                                          const char* thread_end, const char* arg,
                                                          const char* arg_end, const char* loc,
                                                          const char* loc_end,
                                                          const char* readable_end, uint64_t line) {
  Event event;
  event.op = op;
  event.thread = intern(symbols_.threads, thread, thread_end, readable_end);
  event.target = intern(*targets_[static_cast<size_t>(op)], arg, arg_end, readable_end);
  event.location = intern<false>(symbols_.locations, loc, loc_end, readable_end);
  ++delivered_;
  const size_t i = out_count_;
  out_ids_[i] = ++event_lines_;
  out_events_[i] = event;
  out_lines_[i] = static_cast<uint32_t>(line);
  if (++out_count_ == kOut) emit();
}

void StdParser::flush() {
  const size_t n = std::exchange(staged_count_, 0);
  for (size_t i = 0; i < n; ++i) {
    const Staged& s = staged_[i];
    try {
      deliver_now(s.op, s.thread, s.thread_end, s.arg, s.arg_end, s.loc, s.loc_end, s.readable_end,
                  s.line);
    } catch (const NameLimitError& e) {  // named at its own line, not the last one parsed
      throw InputError(std::string(file_name_) + ":" + std::to_string(s.line) +
                       ":1: error: " + e.what());
    }
  }
  staging_ = symbols_.variables.large() || symbols_.locations.large();
}

// The common case for lines of up to 31 bytes, with SSE2: finds the line's end and its two
// '|' with two 16-byte compares each instead of a loop per field, and the operation with one
// word compare. Returns false when the line is longer or unusual; fast_line and slow_line
// then decide. What it accepts, parse_std_line accepts alike.
inline bool StdParser::vector_line(const char* s, const char*& next, const char* readable_end,
                                   Fields& f) {
#if defined(__SSE2__) && !defined(RACEPRED_SCALAR_READER)
  if (s + 64 > readable_end) return false;
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
  const auto find = [&](char c) {
    const __m128i v = _mm_set1_epi8(c);
    return static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, v))) |
           static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(b, v))) << 16;
  };
  const uint32_t newlines = find('\n');
  if (newlines == 0) return false;
  const unsigned n = static_cast<unsigned>(__builtin_ctz(newlines));  // line length
  // '|' (0x7C) and '\\' (0x5C) differ in bit 0x20 only: one compare finds both, so a line with
  // an escaped name has more than two of them, or one of the two is no '|' (checked below with
  // the operation and the ')'): the slow path then unescapes it.
  const __m128i bit5 = _mm_set1_epi8(0x20);
  const __m128i bar = _mm_set1_epi8('|');
  const uint32_t bars =
      (static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(a, bit5), bar))) |
       static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(b, bit5), bar))) << 16) &
      ((uint32_t{1} << n) - 1);
  const uint32_t after_first = bars & (bars - 1);
  // Exactly two '|', the first not in column 1.
  if ((bars & 1) || after_first == 0 || (after_first & (after_first - 1)) != 0) return false;
  const unsigned bar1 = static_cast<unsigned>(__builtin_ctz(bars));
  const unsigned bar2 = static_cast<unsigned>(__builtin_ctz(after_first));
  uint64_t w;
  std::memcpy(&w, s + bar1, 8);
  // Little-endian spellings of "|r(", "|w(", "|acq(", "|rel(", "|fork(", "|join(", in Op order
  // (the first '|' included); compared all at once (the op mix of a trace is too random for a
  // branch per op).
  const uint64_t w3 = w & 0xFFFFFF, w5 = w & 0xFFFFFFFFFF, w6 = w & 0xFFFFFFFFFFFF;
  const unsigned match = unsigned{w3 == 0x28727C} | unsigned{w3 == 0x28777C} << 1 |
                         unsigned{w5 == 0x287163617C} << 2 | unsigned{w5 == 0x286C65727C} << 3 |
                         unsigned{w6 == 0x286B726F667C} << 4 | unsigned{w6 == 0x286E696F6A7C} << 5;
  if (match == 0) return false;
  const unsigned op_index = static_cast<unsigned>(__builtin_ctz(match));
  const Op op = static_cast<Op>(op_index);
  const unsigned kind = 0x554422u >> (4 * op_index) & 0xF;  // length of "r(", ..., "join("
  const unsigned arg = bar1 + 1 + kind;
  // A non-empty argument, then ")|" (the second '|').
  uint16_t close;
  std::memcpy(&close, s + bar2 - 1, 2);
  if (arg + 1 >= bar2 || close != 0x7C29) return false;
  // No byte <= ' ' (whitespace, control) or >= 0x80 in the argument: those take the slow path.
  const __m128i space = _mm_set1_epi8(0x21);
  const uint32_t low = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmplt_epi8(a, space))) |
                       static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmplt_epi8(b, space))) << 16;
  if (low & ((uint32_t{1} << (bar2 - 1)) - (uint32_t{1} << arg))) return false;
  const char* loc_end = s + n - (s[n - 1] == '\r');
  if (loc_end <= s + bar2 + 1) return false;  // empty location
  next = s + n + 1;
  f = {op, s, s + bar1, s + arg, s + bar2 - 1, s + bar2 + 1, loc_end};
  return true;
#else
  (void)s;
  (void)next;
  (void)readable_end;
  (void)f;
  return false;
#endif
}

// A malformed line: an InputError, or under --lenient counted and skipped.
void StdParser::error(size_t column, const std::string& what) {
  emit();  // the events before it first, as one by one
  ++event_lines_;
  std::string message = std::string(file_name_) + ":" + std::to_string(line_) + ":" +
                        std::to_string(column) + ": error: " + what;
  if (!lenient_) throw InputError(message);
  ++summary_.malformed;
  if (summary_.malformed_examples.size() < kMalformedExamples)
    summary_.malformed_examples.push_back(std::move(message));
}

void StdParser::slow_line(const char* s, const char* nl) {
  if (static_cast<size_t>(nl - s) > kMaxLineBytes)
    return error(1, "line of " + std::to_string(nl - s) + " bytes is longer than the limit of " +
                        std::to_string(kMaxLineBytes) + " bytes");
  const StdLine r = parse_std_line(std::string_view(s, static_cast<size_t>(nl - s)));
  switch (r.kind) {
    case StdLine::Kind::Blank:
      return;
    case StdLine::Kind::Skipped:
      ++event_lines_;
      ++skipped_[r.skipped];
      return;
    case StdLine::Kind::Error:
      return error(r.column, r.message);
    case StdLine::Kind::Event: {
      emit();
      Event event;
      event.op = r.op;
      std::string storage;  // names with \xHH escapes (the fast paths never see them)
      event.thread = symbols_.threads.intern(std_unescape(r.thread, storage));
      event.target = targets_[static_cast<size_t>(r.op)]->intern(std_unescape(r.argument, storage));
      event.location = symbols_.locations.intern(std_unescape(r.location, storage));
      ++delivered_;
      consumer_.on_event(++event_lines_, event, static_cast<uint32_t>(line_));
      return;
    }
  }
}

void StdParser::parse_block(const char* begin, const char* end, const char* readable_end) {
  // A UTF-8 byte-order mark at the start of the input is not part of the first thread's name.
  if (line_ == 0 && end - begin >= 3 && std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0) begin += 3;
  try {
    parse_lines(begin, end, readable_end);
  } catch (const NameLimitError& e) {
    throw InputError(std::string(file_name_) + ":" + std::to_string(line_) +
                     ":1: error: " + e.what());
  }
}

void StdParser::parse_lines(const char* begin, const char* end, const char* readable_end) {
  const char* p = begin;
  while (p < end) {
    ++line_;
    const char c = *p;
    if (c == '\n') {  // blank line
      ++p;
      continue;
    }
    if (c != '#') {
      const char* next;
      Fields f;
      if (vector_line(p, next, readable_end, f) || fast_line(p, next, f)) {
        deliver(f, readable_end);
        p = next;
        continue;
      }
    }
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    flush();  // the slow path delivers, counts or fails in line order
    slow_line(p, nl);
    p = nl + 1;
  }
  flush();
  emit();
  summary_.lines = line_;
  summary_.event_lines = event_lines_;
  summary_.delivered = delivered_;
}

void StdParser::parse_text(std::string_view text) {
  if (text.empty()) return;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const void* last = memrchr(begin, '\n', text.size());
  const char* whole_end = last ? static_cast<const char*>(last) + 1 : begin;
  if (whole_end > begin) parse_block(begin, whole_end, end);
  if (whole_end < end) {  // a last line without '\n'
    if (static_cast<size_t>(end - whole_end) > kMaxLineBytes) {
      ++line_;
      error(1, "line of " + std::to_string(end - whole_end) +
                   " bytes is longer than the limit of " + std::to_string(kMaxLineBytes) +
                   " bytes");
      return;
    }
    std::string tail(whole_end, end);
    tail += '\n';
    parse_block(tail.data(), tail.data() + tail.size(), tail.data() + tail.size());
  }
}

void StdParser::finish() {
  summary_.lines = line_;
  summary_.event_lines = event_lines_;
  summary_.delivered = delivered_;
  for (size_t i = 0; i < kStdSkippedOps.size(); ++i)
    if (skipped_[i]) summary_.skipped_ops[std::string(kStdSkippedOps[i])] += skipped_[i];
}

}  // namespace racepred::io
