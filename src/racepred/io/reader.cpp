// Provisional straightforward STD reader; the fast reader replaces its internals.
#include "racepred/io/reader.hpp"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace racepred {
namespace {

struct LineError {
  size_t column;  // 1-based
  std::string message;
};

bool parse_std_line(std::string_view line, Symbols& symbols, Event& event, std::string& skipped,
                    LineError& error) {
  const size_t bar1 = line.find('|');
  if (bar1 == std::string_view::npos) {
    error = {line.size() + 1, "expected 'THREAD|OP(ARG)|LOCATION'"};
    return false;
  }
  const size_t bar2 = line.find('|', bar1 + 1);
  if (bar2 == std::string_view::npos) {
    error = {line.size() + 1, "missing location field"};
    return false;
  }
  if (line.find('|', bar2 + 1) != std::string_view::npos) {
    error = {line.find('|', bar2 + 1) + 1, "too many fields (expected 3)"};
    return false;
  }
  std::string_view thread = line.substr(0, bar1);
  std::string_view op = line.substr(bar1 + 1, bar2 - bar1 - 1);
  std::string_view loc = line.substr(bar2 + 1);
  if (thread.empty()) {
    error = {1, "empty thread name"};
    return false;
  }
  if (loc.empty()) {
    error = {bar2 + 2, "empty location"};
    return false;
  }
  const size_t op_col = bar1 + 2;
  const size_t paren = op.find('(');
  std::string_view kind = op.substr(0, paren);
  std::string_view arg;
  if (paren != std::string_view::npos) {
    if (op.back() != ')') {
      error = {op_col + op.size() - 1, "expected ')' at the end of the operation"};
      return false;
    }
    arg = op.substr(paren + 1, op.size() - paren - 2);
  }
  if (kind == "begin" || kind == "end" || kind == "branch" || kind == "req") {
    skipped = std::string(kind);
    return true;
  }
  Op parsed;
  if (kind == "r") parsed = Op::Read;
  else if (kind == "w") parsed = Op::Write;
  else if (kind == "acq") parsed = Op::Acquire;
  else if (kind == "rel") parsed = Op::Release;
  else if (kind == "fork") parsed = Op::Fork;
  else if (kind == "join") parsed = Op::Join;
  else {
    error = {op_col, "unknown operation '" + std::string(kind) + "'"};
    return false;
  }
  if (paren == std::string_view::npos) {
    error = {op_col + op.size(), "expected '(' after '" + std::string(kind) + "'"};
    return false;
  }
  if (arg.empty()) {
    error = {op_col + paren + 1, "empty argument"};
    return false;
  }
  if (arg.find_first_of(" \t") != std::string_view::npos) {
    error = {op_col + paren + 1 + arg.find_first_of(" \t"), "whitespace in argument"};
    return false;
  }
  event.op = parsed;
  event.thread = symbols.threads.intern(thread);
  switch (parsed) {
    case Op::Read:
    case Op::Write: event.target = symbols.variables.intern(arg); break;
    case Op::Acquire:
    case Op::Release: event.target = symbols.locks.intern(arg); break;
    case Op::Fork:
    case Op::Join: event.target = symbols.threads.intern(arg); break;
  }
  event.location = symbols.locations.intern(loc);
  skipped.clear();
  return true;
}

}  // namespace

ReadSummary read_events_from_string(std::string_view text, std::string_view name,
                                    const ReadOptions& options, Symbols& symbols,
                                    EventConsumer& consumer) {
  ReadSummary summary;
  size_t pos = 0;
  std::string skipped;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++summary.lines;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    ++summary.event_lines;
    Event event;
    LineError error;
    if (!parse_std_line(line, symbols, event, skipped, error)) {
      std::string message = std::string(name) + ":" + std::to_string(summary.lines) + ":" +
                            std::to_string(error.column) + ": error: " + error.message;
      if (!options.lenient) throw InputError(message);
      ++summary.malformed;
      if (summary.malformed_examples.size() < 5) summary.malformed_examples.push_back(message);
      continue;
    }
    if (!skipped.empty()) {
      ++summary.skipped_ops[skipped];
      continue;
    }
    ++summary.delivered;
    consumer.on_event(summary.event_lines, event, static_cast<uint32_t>(summary.lines));
  }
  return summary;
}

ReadSummary read_events(const std::string& path, const ReadOptions& options, Symbols& symbols,
                        EventConsumer& consumer) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": error: cannot open file");
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  return read_events_from_string(text, path == "-" ? "<stdin>" : path, options, symbols, consumer);
}

Trace load_trace(const std::string& path, const ReadOptions& options) {
  Trace trace;
  TraceCollector collector(trace);
  trace.summary = read_events(path, options, trace.symbols, collector);
  return trace;
}

Trace parse_trace(std::string_view text, const ReadOptions& options, std::string_view name) {
  Trace trace;
  TraceCollector collector(trace);
  trace.summary = read_events_from_string(text, name, options, trace.symbols, collector);
  return trace;
}

}  // namespace racepred
