#include "racepred/io/speedygo_parser.hpp"

#include <charconv>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

#include "racepred/trace/printable.hpp"

namespace racepred::io {
namespace {

SpeedyGoLine error_at(size_t column, std::string message) {
  SpeedyGoLine r;
  r.kind = SpeedyGoLine::Kind::Error;
  r.column = column;
  r.message = std::move(message);
  return r;
}

// Parses an unsigned decimal field starting at offset `at` of the line. Returns an error
// message (and sets `column`) or an empty string.
std::string parse_uint(std::string_view field, size_t at, const char* what, uint64_t& value,
                       size_t& column) {
  if (field.empty()) {
    column = at + 1;
    return std::string("empty ") + what;
  }
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] < '0' || field[i] > '9') {
      column = at + i + 1;
      return std::string(what) + ": expected an unsigned integer";
    }
  }
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) {
    column = at + 1;
    return std::string(what) + ": number out of range";
  }
  return {};
}

template <typename F>
void for_each_line(std::string_view text, F&& f) {
  size_t pos = 0;
  while (pos < text.size()) {
    const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    const size_t end =
        nl ? static_cast<size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
    f(text.substr(pos, end - pos));
    pos = end + 1;
  }
}

// "T12": names in racepred's name spaces for SpeedyGo's numeric ids (docs/FORMATS.md).
std::string_view numbered(char prefix, uint64_t n, char (&buf)[24]) {
  buf[0] = prefix;
  const auto [end, ec] = std::to_chars(buf + 1, buf + sizeof buf, n);
  (void)ec;
  return {buf, static_cast<size_t>(end - buf)};
}

// What the first pass decided for a SIG/WT line (by event id).
struct Translation {
  enum Kind { Fork, Join, AbsorbedInFork, AbsorbedInJoin } kind;
  uint64_t other = 0;  // the forked thread (Fork) or the joined thread (Join)
};

struct SyncRecord {
  uint64_t event = 0;  // event id (ordinal among event lines)
  uint64_t thread = 0;
  uint64_t channel = 0;
  bool wait = false;
  bool join_family = false;
  size_t waits = 0;     // signals: number of waits paired with it
  size_t waiter = 0;    // signals: index of the (last) paired wait
  bool paired = false;  // waits: found a signal
};

// First pass: pairs each wait with the latest earlier signal on its channel and decides which
// pairs are forks or joins (docs/FORMATS.md). Malformed lines are ignored here; the second pass
// reports them.
std::unordered_map<uint64_t, Translation> translate_signals(std::string_view text) {
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> span;  // thread -> first, last event
  std::vector<SyncRecord> syncs;
  uint64_t event = 0;
  for_each_line(text, [&](std::string_view line) {
    const SpeedyGoLine r = parse_speedygo_line(line);
    if (r.kind == SpeedyGoLine::Kind::Blank) return;
    ++event;
    if (r.kind == SpeedyGoLine::Kind::Error) return;
    auto [it, fresh] = span.try_emplace(r.thread, event, event);
    if (!fresh) it->second.second = event;
    if (r.kind == SpeedyGoLine::Kind::Signal || r.kind == SpeedyGoLine::Kind::Wait)
      syncs.push_back(SyncRecord{event, r.thread, r.channel, r.kind == SpeedyGoLine::Kind::Wait,
                                 r.join_family});
  });
  std::unordered_map<uint64_t, Translation> result;
  if (syncs.empty()) return result;
  std::map<std::pair<bool, uint64_t>, size_t> last_signal;  // (family, channel) -> syncs index
  for (size_t i = 0; i < syncs.size(); ++i) {
    SyncRecord& s = syncs[i];
    const auto key = std::make_pair(s.join_family, s.channel);
    if (!s.wait) {
      last_signal[key] = i;
      continue;
    }
    const auto it = last_signal.find(key);
    if (it == last_signal.end()) continue;
    SyncRecord& signal = syncs[it->second];
    ++signal.waits;
    signal.waiter = i;
    s.paired = true;
  }
  for (const SyncRecord& signal : syncs) {
    if (signal.wait || signal.waits != 1) continue;
    const SyncRecord& wait = syncs[signal.waiter];
    if (wait.thread == signal.thread) continue;
    const bool starts_waiter = span[wait.thread].first == wait.event;
    const bool ends_signaller = span[signal.thread].second == signal.event;
    // When both hold, the two readings order the same events; the op's name decides.
    if (starts_waiter && !(ends_signaller && signal.join_family)) {
      // The waiter has done nothing before: the signal starts it.
      result[signal.event] = {Translation::Fork, wait.thread};
      result[wait.event] = {Translation::AbsorbedInFork, signal.thread};
    } else if (ends_signaller) {
      // The signaller does nothing after: the wait joins it.
      result[wait.event] = {Translation::Join, signal.thread};
      result[signal.event] = {Translation::AbsorbedInJoin, wait.thread};
    }
  }
  return result;
}

}  // namespace

SpeedyGoLine parse_speedygo_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty() || line.front() == '#' ||
      line.find_first_not_of(" \t") == std::string_view::npos) {
    SpeedyGoLine r;
    r.kind = SpeedyGoLine::Kind::Blank;
    return r;
  }
  // Fields and their offsets.
  std::string_view field[5];
  size_t start[5] = {};
  size_t n = 0, pos = 0;
  for (;;) {
    const size_t comma = line.find(',', pos);
    if (n == 4 && comma != std::string_view::npos)
      return error_at(comma + 1, "too many fields (expected TID,OP,ID,SRCREF,N)");
    start[n] = pos;
    field[n] =
        line.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    ++n;
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (n < 5)
    return error_at(line.size() + 1, "missing field: expected " + std::to_string(5 - n) +
                                         " more (TID,OP,ID,SRCREF,N)");
  SpeedyGoLine r;
  size_t column = 0;
  std::string message;
  if (!(message = parse_uint(field[0], start[0], "thread id", r.thread, column)).empty())
    return error_at(column, message);

  const std::string_view op = field[1];
  struct OpKind {
    std::string_view name;
    SpeedyGoLine::Kind kind;
    Op op;
    bool join_family;
  };
  using K = SpeedyGoLine::Kind;
  static constexpr OpKind kOps[] = {
      {"RD", K::Event, Op::Read, false},
      {"WR", K::Event, Op::Write, false},
      {"LK", K::Event, Op::Acquire, false},
      {"UK", K::Event, Op::Release, false},
      {"SIG", K::Signal, Op::Fork, false},
      {"WT", K::Wait, Op::Join, false},
      {"SIGNALJOIN", K::Signal, Op::Fork, true},
      {"WAITJOIN", K::Wait, Op::Join, true},
      {"ARD", K::Skipped, Op::Read, false},
      {"AWR", K::Skipped, Op::Write, false},
      {"NT", K::Skipped, Op::Read, false},
      {"NTWT", K::Skipped, Op::Read, false},
      {"PREBRANCH", K::Skipped, Op::Read, false},
      {"POSTBRANCH", K::Skipped, Op::Read, false},
      {"SIGNALNOTIFY", K::Skipped, Op::Read, false},
      {"WAITNOTIFY", K::Skipped, Op::Read, false},
  };
  const OpKind* found = nullptr;
  for (const OpKind& k : kOps)
    if (k.name == op) found = &k;
  if (!found)
    return error_at(start[1] + 1, "unknown operation '" + printable(op, 40) +
                                      "' (expected RD, WR, LK, UK, SIG, WT, ARD, AWR, NT, NTWT, "
                                      "PREBRANCH, POSTBRANCH, SIGNALJOIN, WAITJOIN, "
                                      "SIGNALNOTIFY or WAITNOTIFY)");
  r.kind = found->kind;
  r.op_name = found->name;
  r.op = found->op;
  r.join_family = found->join_family;
  if (!(message = parse_uint(field[2], start[2], "id", r.id, column)).empty())
    return error_at(column, message);
  if (field[3].empty()) return error_at(start[3] + 1, "empty source reference");
  r.location = field[3];
  if (!(message = parse_uint(field[4], start[4], "last field", r.channel, column)).empty())
    return error_at(column, message);
  return r;
}

void parse_speedygo(std::string_view text, std::string_view file_name, const ReadOptions& options,
                    Symbols& symbols, EventConsumer& consumer, ReadSummary& summary) {
  // A UTF-8 byte-order mark at the start is not part of the first line.
  if (text.size() >= 3 && std::memcmp(text.data(), "\xEF\xBB\xBF", 3) == 0) text.remove_prefix(3);
  const std::unordered_map<uint64_t, Translation> translations = translate_signals(text);
  uint64_t line = 0, event_lines = 0, delivered = 0;
  char buf1[24], buf2[24];
  // The thread is interned before the target, as in STD ("T1|fork(T2)" names T1 first).
  auto deliver = [&](Op op, uint32_t thread, uint32_t target, std::string_view location) {
    Event event;
    event.op = op;
    event.thread = thread;
    event.target = target;
    event.location = symbols.locations.intern(location);
    ++delivered;
    consumer.on_event(event_lines, event, static_cast<uint32_t>(line));
  };
  // Keys are static strings: counting a skipped line allocates only for a new kind.
  std::map<std::pair<std::string_view, std::string_view>, uint64_t> skipped_kinds;
  auto skip = [&](std::string_view op, std::string_view why) { ++skipped_kinds[{op, why}]; };
  try {
    for_each_line(text, [&](std::string_view text_line) {
      ++line;
      const SpeedyGoLine r = text_line.size() > kMaxLineBytes
                                 ? error_at(1, "line of " + std::to_string(text_line.size()) +
                                                   " bytes is longer than the limit of " +
                                                   std::to_string(kMaxLineBytes) + " bytes")
                                 : parse_speedygo_line(text_line);
      if (r.kind == SpeedyGoLine::Kind::Blank) return;
      ++event_lines;
      switch (r.kind) {
        case SpeedyGoLine::Kind::Blank:
          return;
        case SpeedyGoLine::Kind::Error: {
          std::string message = std::string(file_name) + ":" + std::to_string(line) + ":" +
                                std::to_string(r.column) + ": error: " + r.message;
          if (!options.lenient) throw InputError(message);
          ++summary.malformed;
          if (summary.malformed_examples.size() < kMalformedExamples)
            summary.malformed_examples.push_back(std::move(message));
          return;
        }
        case SpeedyGoLine::Kind::Skipped:
          skip(r.op_name, "");
          return;
        case SpeedyGoLine::Kind::Event: {
          const bool access = r.op == Op::Read || r.op == Op::Write;
          const uint32_t thread = symbols.threads.intern(numbered('T', r.thread, buf1));
          const uint32_t target = access ? symbols.variables.intern(numbered('V', r.id, buf2))
                                         : symbols.locks.intern(numbered('L', r.id, buf2));
          deliver(r.op, thread, target, r.location);
          return;
        }
        case SpeedyGoLine::Kind::Signal:
        case SpeedyGoLine::Kind::Wait: {
          const auto it = translations.find(event_lines);
          if (it == translations.end()) {
            ++summary.untranslated_syncs;  // a synchronisation lost: warned about
            return skip(r.op_name, "untranslated");
          }
          const Translation& t = it->second;
          switch (t.kind) {
            case Translation::Fork:
            case Translation::Join: {
              const uint32_t thread = symbols.threads.intern(numbered('T', r.thread, buf1));
              const uint32_t target = symbols.threads.intern(numbered('T', t.other, buf2));
              deliver(t.kind == Translation::Fork ? Op::Fork : Op::Join, thread, target,
                      r.location);
              return;
            }
            case Translation::AbsorbedInFork:
              return skip(r.op_name, "fork");
            case Translation::AbsorbedInJoin:
              return skip(r.op_name, "join");
          }
        }
      }
    });
  } catch (const NameLimitError& e) {
    throw InputError(std::string(file_name) + ":" + std::to_string(line) +
                     ":1: error: " + e.what());
  }
  summary.lines = line;
  summary.event_lines = event_lines;
  summary.delivered = delivered;
  for (const auto& [kind, count] : skipped_kinds) {
    std::string key(kind.first);
    if (!kind.second.empty()) key.append(" (").append(kind.second).append(")");
    summary.skipped_ops[key] += count;
  }
}

}  // namespace racepred::io
