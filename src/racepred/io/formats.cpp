#include "racepred/io/formats.hpp"

#include "racepred/io/binary_reader.hpp"

#include <algorithm>
#include <map>

#include "racepred/io/format_impl.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/error.hpp"

namespace racepred {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Text formats see the first event line. The order of the checks is that of the table below.
bool detect_std(std::string_view line) {
  return line.find('|') != std::string_view::npos;
}
bool detect_roadrunner(std::string_view line) {
  return line.front() == '@' || line.front() == '[';  // '@ Rd(...)' or a RoadRunner banner
}
// A number, or a negative one (its reader then names the bad id instead of STD's grammar).
bool starts_number(std::string_view line) {
  return is_digit(line.front()) || (line.size() > 1 && line[0] == '-' && is_digit(line[1]));
}
bool detect_speedygo(std::string_view line) {
  return starts_number(line) && std::count(line.begin(), line.end(), ',') == 4;
}
bool detect_lockframe(std::string_view line) {
  return starts_number(line) && line.find(',') != std::string_view::npos;
}
bool detect_rapid_csv(std::string_view line) {
  if (line.front() == ',') return true;  // an event in a later column
  size_t i = 0;
  while (i < line.size() && line[i] >= 'a' && line[i] <= 'z') ++i;
  return i > 0 && i < line.size() && line[i] == '(';
}
// Binary formats see the first bytes. Text never holds a NUL byte; a RapidBin header does
// (its counts are big-endian and small).
bool detect_rapidbin(std::string_view head) {
  if (is_binary_trace(head)) return false;  // racepred's binary format has NUL bytes too
  return head.substr(0, 64).find('\0') != std::string_view::npos;
}

// Detection tries the binary formats, then the text formats in this order, STD last.
constexpr TraceFormat kFormats[] = {
    {InputFormat::Std, "std", "RAPID's STD: THREAD|OP(ARG)|LOCATION (racepred's own format)", false,
     detect_std, io::read_std, io::write_std},
    {InputFormat::Binary, "binary",
     "racepred's binary trace (.rpt): compact, fast to read, written by racepred record", true,
     is_binary_trace, io::read_binary, io::write_binary},
    {InputFormat::RapidBin, "rapidbin",
     "RapidBin: RAPID's binary format (deadlock predictors, Wasmgrind)", true, detect_rapidbin,
     io::read_rapidbin, io::write_rapidbin},
    {InputFormat::RoadRunner, "rr",
     "RoadRunner's event log (@ Rd(1,x) SHADOW LOCATION), as RAPID reads it", false,
     detect_roadrunner, io::read_roadrunner, io::write_roadrunner},
    {InputFormat::SpeedyGo, "speedygo", "SpeedyGo CSV: TID,OP,ID,SRCREF,N", false, detect_speedygo,
     io::read_speedygo, io::write_speedygo},
    {InputFormat::LockFrame, "lockframe", "LockFrame's native CSV: TID,OP,ID", false,
     detect_lockframe, io::read_lockframe, io::write_lockframe},
    {InputFormat::RapidCsv, "csv", "RAPID's CSV: one column per thread, one op(arg) per line",
     false, detect_rapid_csv, io::read_rapid_csv, io::write_rapid_csv},
};

}  // namespace

std::span<const TraceFormat> trace_formats() {
  return kFormats;
}

const TraceFormat& format_of(InputFormat id) {
  for (const TraceFormat& f : kFormats)
    if (f.id == id) return f;
  return kFormats[0];
}

const TraceFormat* find_format(std::string_view name) {
  for (const TraceFormat& f : kFormats)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string> input_format_names() {
  std::vector<std::string> names{"auto"};
  for (const TraceFormat& f : kFormats) names.emplace_back(f.name);
  return names;
}

std::vector<std::string> output_format_names() {
  std::vector<std::string> names;
  for (const TraceFormat& f : kFormats)
    if (f.write) names.emplace_back(f.name);
  return names;
}

std::optional<InputFormat> detect_format(std::string_view head, bool complete, bool* guessed) {
  bool ignored;
  if (!guessed) guessed = &ignored;
  *guessed = true;
  if (!complete && head.size() < 64) return std::nullopt;
  for (const TraceFormat& f : kFormats)
    if (f.binary && f.detect(head)) {
      *guessed = f.id != InputFormat::Binary;  // racepred's magic is no guess; a NUL byte is
      return f.id;
    }
  size_t pos = 0;
  while (pos < head.size()) {
    size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) {
      if (!complete) return std::nullopt;
      end = head.size();
    }
    std::string_view line = head.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (io::blank_or_comment(line)) continue;
    for (const TraceFormat& f : kFormats)
      if (!f.binary && f.id != InputFormat::Std && f.detect(line) && !detect_std(line)) return f.id;
    *guessed = !detect_std(line);
    return InputFormat::Std;  // '|' lines, and anything else (its error names STD's grammar)
  }
  if (!complete) return std::nullopt;
  *guessed = false;
  return InputFormat::Std;  // no event line at all: an empty trace either way
}

void write_trace(const Trace& trace, InputFormat format, const std::string& path,
                 const WriteOptions& options) {
  const TraceFormat& f = format_of(format);
  if (!f.write) throw UsageError("racepred cannot write the format " + std::string(f.name));
  f.write(trace, options, path);
}

namespace io {

void write_std(const Trace& trace, const WriteOptions&, const std::string& path) {
  StdWriter writer(trace.symbols, path);
  for (size_t i = 0; i < trace.size(); ++i)
    writer.on_event(trace.ids[i], trace.events[i], trace.lines[i]);
  writer.close();
}

// SpeedyGo has no fork or join: a fork is a SIG by the parent and a WT by the child (its first
// line), a join a SIGNALJOIN by the child (its last line) and a WAITJOIN by the parent, each
// pair on a channel of its own (field 5). The text is built in memory and read back: what the
// SpeedyGo reader does not turn back into the same events is reported, not written.
void write_speedygo(const Trace& trace, const WriteOptions& options, const std::string& path) {
  LossReport loss("speedygo");
  loss.reject_read_locks(trace);
  loss.reject_sync_ops(trace);
  loss.reject_requests(trace);
  const Symbols& s = trace.symbols;
  const uint64_t max = UINT64_MAX;
  const std::vector<uint64_t> threads = numbers_for(s.threads, 'T', max, "thread", loss);
  const std::vector<uint64_t> variables = numbers_for(s.variables, 'V', max, "variable", loss);
  const std::vector<uint64_t> locks = numbers_for(s.locks, 'L', max, "lock", loss);
  if (const auto bad = name_with(s.locations, ",", false))
    loss.impossible("the location " + quoted_text(*bad) + " holds ',', which SRCREF cannot");
  std::string text;
  text.reserve(trace.size() * 24);
  const auto number = [&](uint64_t n) { text += std::to_string(n); };
  uint64_t channel = 0;
  for (const Event& e : trace.events) {
    const std::string_view location = trace.location_name(e.location);
    switch (e.op) {
      case Op::Read:
      case Op::Write:
      case Op::Acquire:
      case Op::Release: {
        static constexpr std::string_view kNames[] = {"RD", "WR", "LK", "UK"};
        number(threads[e.thread]);
        text += ',';
        text += kNames[static_cast<int>(e.op)];
        text += ',';
        number(e.is_access() ? variables[e.target] : locks[e.target]);
        text += ',';
        text += location;
        text += ",0\n";
        break;
      }
      case Op::Fork:
      case Op::Join: {
        ++channel;
        const bool fork = e.op == Op::Fork;
        // fork: parent SIG (at the event's location), child WT; join: child SIGNALJOIN, parent
        // WAITJOIN (at the event's location).
        const uint64_t first = fork ? threads[e.thread] : threads[e.target];
        const uint64_t second = fork ? threads[e.target] : threads[e.thread];
        number(first);
        text += fork ? ",SIG,0," : ",SIGNALJOIN,0,";
        text += fork ? location : std::string_view("nil");
        text += ',';
        number(channel);
        text += '\n';
        number(second);
        text += fork ? ",WT,0," : ",WAITJOIN,0,";
        text += fork ? std::string_view("nil") : location;
        text += ',';
        number(channel);
        text += '\n';
        break;
      }
      case Op::ReadAcquire:
      case Op::ReadRelease:
      case Op::Send:
      case Op::Recv:
      case Op::Request:
      case Op::ReadRequest:
        break;  // not reached: reject_read_locks, reject_sync_ops, reject_requests above
    }
  }
  // Read it back: the same ops on the same (numbered) names, in the same order?
  const Trace back = parse_trace(text, ReadOptions{InputFormat::SpeedyGo, false}, "<speedygo>");
  const auto mapped_target = [&](const Event& e) {
    const char prefix = e.is_access()                                ? 'V'
                        : e.op == Op::Acquire || e.op == Op::Release ? 'L'
                                                                     : 'T';
    const uint64_t n = e.is_access()                                ? variables[e.target]
                       : e.op == Op::Acquire || e.op == Op::Release ? locks[e.target]
                                                                    : threads[e.target];
    char buf[24];
    return std::string(numbered_name(prefix, n, buf));
  };
  size_t j = 0;
  char buf[24];
  for (size_t i = 0; i < trace.size(); ++i) {
    const Event& e = trace.events[i];
    const bool same =
        j < back.size() && back.events[j].op == e.op &&
        back.thread_name(back.events[j].thread) == numbered_name('T', threads[e.thread], buf) &&
        back.target_name(back.events[j]) == mapped_target(e);
    if (!same) {
      loss.add("event " + std::to_string(trace.ids[i]) + " (" + trace.to_std(e) +
               ") and others: SpeedyGo writes a " + std::string(op_long_name(e.op)) +
               " as a signal/wait pair, which reads back as a " + std::string(op_long_name(e.op)) +
               " only when the forked thread has no earlier line (the joined thread no later "
               "line)");
      break;
    }
    ++j;
  }
  loss.check(options);
  Output out(path);
  out.put(text);
  out.close();
}

}  // namespace io
}  // namespace racepred
