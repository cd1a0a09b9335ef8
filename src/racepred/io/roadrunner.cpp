// RoadRunner's event log, as RAPID reads it (docs/FORMATS.md, "RoadRunner"): lines
// `@ <spaces> Name(TID,TARGET)` plus, for accesses, `SHADOW LOCATION`; other RoadRunner output
// (banners, "started" lines) is not an event.
#include <iterator>

#include "racepred/io/format_impl.hpp"

namespace racepred::io {
namespace {

constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

struct RrOp {
  std::string_view name;
  bool skipped;
  Op op;
};
// The events RoadRunner prints. RAPID reads the first eight (and Enter/Exit as transaction
// boundaries); ARd/AWr are array element accesses, VRd/VWr volatile accesses: Java's
// synchronisation (a volatile write happens before every later volatile read of the field),
// so a recv and a send on the field as a sync object.
constexpr RrOp kRrOps[] = {
    {"Rd", false, Op::Read},          {"Wr", false, Op::Write},
    {"ARd", false, Op::Read},         {"AWr", false, Op::Write},
    {"Acquire", false, Op::Acquire},  {"Release", false, Op::Release},
    {"Start", false, Op::Fork},       {"Join", false, Op::Join},
    {"VRd", false, Op::Recv},         {"VWr", false, Op::Send},
    {"Enter", true, Op::Read},        {"Exit", true, Op::Read},
    {"Wait", true, Op::Read},         {"Notify", true, Op::Read},
    {"Sleep", true, Op::Read},        {"Interrupt", true, Op::Read},
    {"Interrupted", true, Op::Read},  {"ClassInited", true, Op::Read},
    {"ClassAccssed", true, Op::Read}, {"NewThread", true, Op::Read},
};

// The location racepred gives to RoadRunner's synchronisation events, which carry none.
constexpr std::string_view kNoLocation = "-";

}  // namespace

LineResult RoadRunnerLineParser::parse(std::string_view line, uint64_t) {
  if (line.empty() || line.front() != '@') {
    if (!blank_or_comment(line)) ++other_lines_;
    return LineResult::ignored();
  }
  size_t p = 1;
  while (p < line.size() && is_space(line[p])) ++p;
  if (p == 1) {
    ++other_lines_;
    return LineResult::ignored();  // RAPID requires whitespace after '@'
  }
  // Narrative lines: "@  main[tid = 0] started .", "@  pre  sleep", ...
  if (line.find("[tid = ", p) != std::string_view::npos) {
    ++other_lines_;
    return LineResult::ignored();
  }
  size_t q = p;
  while (q < line.size() &&
         ((line[q] >= 'A' && line[q] <= 'Z') || (line[q] >= 'a' && line[q] <= 'z')))
    ++q;
  if (q == p || q == line.size() || line[q] != '(') {
    ++other_lines_;
    return LineResult::ignored();
  }
  const std::string_view name = line.substr(p, q - p);
  const RrOp* found = nullptr;
  for (const RrOp& op : kRrOps)
    if (op.name == name) found = &op;
  if (!found)
    return LineResult::error(p + 1, "unknown RoadRunner event " + quoted_text(name) +
                                        " (expected Rd, Wr, ARd, AWr, Acquire, Release, Start, "
                                        "Join, VRd, VWr, or one of the skipped Enter, Exit, "
                                        "Wait, Notify, ...)");
  // The event token runs to the first whitespace; it ends with ')'.
  size_t token_end = q;
  while (token_end < line.size() && !is_space(line[token_end])) ++token_end;
  const std::string_view token = line.substr(q, token_end - q);  // "(ARGS)"
  const size_t close = token.rfind(')');
  if (close == std::string_view::npos)
    return LineResult::error(token_end + 1, "missing ')' after the arguments");
  if (close + 1 != token.size())
    return LineResult::error(q + close + 2, "unexpected text after ')'");
  LineResult r;
  if (found->skipped) {
    r.kind = LineResult::Kind::Skipped;
    r.skipped = found->name;
    return r;
  }
  const std::string_view args = token.substr(1, close - 1);
  const size_t comma = args.find(',');
  if (comma == std::string_view::npos)
    return LineResult::error(q + 2, "expected THREAD,TARGET inside the parentheses");
  if (comma == 0) return LineResult::error(q + 2, "empty thread id");
  const std::string_view target = args.substr(comma + 1);
  if (target.empty()) return LineResult::error(q + comma + 3, "empty target");
  const size_t comma2 = target.find(',');
  if (comma2 != std::string_view::npos)
    return LineResult::error(q + comma + 3 + comma2, "',' in the target (THREAD,TARGET)");
  r.kind = LineResult::Kind::Event;
  r.op = found->op;
  r.thread = args.substr(0, comma);
  r.target = target;
  // What follows: SHADOW LOCATION for accesses, SHADOW for volatile accesses (a location too,
  // if one is printed), nothing for the others.
  std::string_view fields[3];
  size_t starts[3] = {};
  size_t n = 0;
  size_t s = token_end;
  while (s < line.size()) {
    while (s < line.size() && is_space(line[s])) ++s;
    if (s == line.size()) break;
    size_t e = s;
    while (e < line.size() && !is_space(line[e])) ++e;
    if (n == 3) break;
    starts[n] = s;
    fields[n++] = line.substr(s, e - s);
    s = e;
  }
  if (r.op == Op::Read || r.op == Op::Write) {
    if (n < 2)
      return LineResult::error(line.size() + 1,
                               "missing field: an access is followed by SHADOW and LOCATION");
    if (n > 2) return LineResult::error(starts[2] + 1, "unexpected text after the location");
    if (fields[1].find(',') != std::string_view::npos)
      return LineResult::error(starts[1] + 1 + fields[1].find(','), "',' in the location");
    r.location = fields[1];
  } else if (is_sync_op(r.op)) {
    if (n > 2) return LineResult::error(starts[2] + 1, "unexpected text after the location");
    if (n == 2 && fields[1].find(',') != std::string_view::npos)
      return LineResult::error(starts[1] + 1 + fields[1].find(','), "',' in the location");
    r.location = n == 2 ? fields[1] : kNoLocation;
  } else {
    if (n > 0) return LineResult::error(starts[0] + 1, "unexpected text after ')'");
    r.location = kNoLocation;
  }
  return r;
}

void read_roadrunner(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                     EventConsumer& consumer, ReadSummary& summary) {
  RoadRunnerLineParser parser;
  read_lines(parser, in, name, options, symbols, consumer, summary);
}

void write_roadrunner(const Trace& trace, const WriteOptions& options, const std::string& path) {
  LossReport loss("rr");
  loss.reject_read_locks(trace);
  loss.reject_requests(trace);
  const Symbols& s = trace.symbols;
  if (const auto bad = name_with(s.threads, ",()", true))
    loss.impossible("the thread name " + quoted_text(*bad) +
                    " holds ',', '(', ')' or whitespace, which RoadRunner's THREAD cannot");
  for (const SymbolTable* table : {&s.variables, &s.locks})
    if (const auto bad = name_with(*table, ",", true))
      loss.impossible("the name " + quoted_text(*bad) +
                      " holds ',' or whitespace, which RoadRunner's TARGET cannot");
  uint64_t sync_locations = 0;
  for (const Event& e : trace.events) {
    const std::string_view loc = trace.location_name(e.location);
    if (e.is_access()) {
      for (char ch : loc)
        if (ch == ',' || is_space(ch))
          loss.impossible("the location " + quoted_text(loc) +
                          " holds ',' or whitespace, which RoadRunner's LOCATION cannot");
    } else if (loc != kNoLocation) {
      ++sync_locations;
    }
  }
  if (sync_locations)
    loss.add("the locations of " + std::to_string(sync_locations) +
             " acquire/release/fork/join/send/recv events (RoadRunner prints locations of "
             "accesses only; "
             "reading it back gives them the location '-')");
  loss.check(options);

  // Read locks and requests are rejected above; send/recv are volatile accesses (VWr, VRd).
  static constexpr std::string_view kNames[] = {"Rd", "Wr", "Acquire", "Release", "Start", "Join",
                                                "",   "",   "VWr",     "VRd",     "",      ""};
  static_assert(std::size(kNames) == kOpCount);
  Output out(path);
  for (const Event& e : trace.events) {
    out.put("@  ");
    out.put(kNames[static_cast<int>(e.op)]);
    out.put('(');
    out.put(trace.thread_name(e.thread));
    out.put(',');
    out.put(trace.target_name(e));
    out.put(')');
    if (is_sync_op(e.op)) {
      out.put("  -");
    } else if (e.is_access()) {
      out.put("  -  ");
      out.put(trace.location_name(e.location));
    }
    out.put('\n');
  }
  out.close();
}

}  // namespace racepred::io
