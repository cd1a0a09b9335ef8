// LockFrame's native CSV (docs/FORMATS.md, "LockFrame"): `TID,OP,ID`, numbers in separate name
// spaces; an optional fourth field is the location (racepred's extension: LockFrame ignores
// fields after the third).
#include <charconv>
#include <climits>

#include "racepred/io/format_impl.hpp"

namespace racepred::io {
namespace {

struct LfOp {
  std::string_view name;
  bool skipped;
  Op op;
};
// LockFrame's reader (reader/reader.cpp): SIG is fork and WT join in its native format;
// NT/NTWT (notify/wait) and the atomic ARD/AWR are not in racepred's model.
constexpr LfOp kLfOps[] = {
    {"RD", false, Op::Read},    {"WR", false, Op::Write}, {"LK", false, Op::Acquire},
    {"UK", false, Op::Release}, {"SIG", false, Op::Fork}, {"WT", false, Op::Join},
    {"NT", true, Op::Read},     {"NTWT", true, Op::Read}, {"ARD", true, Op::Read},
    {"AWR", true, Op::Read},
};
constexpr std::string_view kLfOpNames[] = {"RD", "WR", "LK", "UK", "SIG", "WT"};

// LockFrame reads ids with std::stoi: they are C ints.
constexpr uint64_t kMaxId = INT_MAX;

}  // namespace

LineResult LockFrameLineParser::parse(std::string_view line, uint64_t line_number) {
  if (blank_or_comment(line)) return LineResult::ignored();
  std::string_view field[4];
  size_t start[4] = {};
  size_t n = 0, fifth = 0;
  split_fields(line, ',', [&](std::string_view f, size_t at) {
    if (n == 4) {
      fifth = at;
      return false;
    }
    start[n] = at;
    field[n++] = f;
    return true;
  });
  if (fifth)
    return LineResult::error(fifth, "too many fields (expected TID,OP,ID or TID,OP,ID,LOCATION)");
  if (n < 3)
    return LineResult::error(
        line.size() + 1, "missing field: expected " + std::to_string(3 - n) + " more (TID,OP,ID)");
  uint64_t tid = 0, id = 0;
  size_t column = 0;
  std::string message = parse_unsigned(field[0], start[0], "thread id", kMaxId, tid, column);
  if (!message.empty()) return LineResult::error(column, message);
  const LfOp* found = nullptr;
  for (const LfOp& op : kLfOps)
    if (op.name == field[1]) found = &op;
  if (!found)
    return LineResult::error(start[1] + 1, "unknown operation " + quoted_text(field[1]) +
                                               " (expected RD, WR, LK, UK, SIG, WT, NT, NTWT, "
                                               "ARD or AWR)");
  message = parse_unsigned(field[2], start[2], "id", kMaxId, id, column);
  if (!message.empty()) return LineResult::error(column, message);
  if (n == 4 && field[3].empty()) return LineResult::error(start[3] + 1, "empty location");
  LineResult r = LineResult::operation(found->skipped, found->name, found->op,
                                       numbered_name('T', tid, thread_));
  if (r.kind != LineResult::Kind::Event) return r;
  const char prefix = r.op == Op::Read || r.op == Op::Write        ? 'V'
                      : r.op == Op::Acquire || r.op == Op::Release ? 'L'
                                                                   : 'T';
  r.target = numbered_name(prefix, id, target_);
  r.location = n == 4 ? field[3] : line_number_name(line_number, location_);
  return r;
}

void read_lockframe(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                    EventConsumer& consumer, ReadSummary& summary) {
  LockFrameLineParser parser;
  read_lines(parser, in, name, options, symbols, consumer, summary);
}

void write_lockframe(const Trace& trace, const WriteOptions& options, const std::string& path) {
  LossReport loss("lockframe");
  loss.reject_read_locks(trace);
  loss.reject_sync_ops(trace);
  loss.reject_requests(trace);
  const Symbols& s = trace.symbols;
  const std::vector<uint64_t> threads = numbers_for(s.threads, 'T', kMaxId, "thread", loss);
  const std::vector<uint64_t> variables = numbers_for(s.variables, 'V', kMaxId, "variable", loss);
  const std::vector<uint64_t> locks = numbers_for(s.locks, 'L', kMaxId, "lock", loss);
  // Locations: the fourth field, unless they are the line numbers a reader assigns anyway.
  const bool with_locations = !locations_are_line_numbers(trace);
  if (with_locations)
    if (const auto bad = name_with(s.locations, ",", false))
      loss.impossible("the location " + quoted_text(*bad) + " holds ',', which a field cannot");
  loss.check(options);

  Output out(path);
  for (const Event& e : trace.events) {
    out.put_number(threads[e.thread]);
    out.put(',');
    out.put(kLfOpNames[static_cast<int>(e.op)]);
    out.put(',');
    const std::vector<uint64_t>& ids = e.op == Op::Read || e.op == Op::Write        ? variables
                                       : e.op == Op::Acquire || e.op == Op::Release ? locks
                                                                                    : threads;
    out.put_number(ids[e.target]);
    if (with_locations) {
      out.put(',');
      out.put(trace.location_name(e.location));
    }
    out.put('\n');
  }
  out.close();
}

}  // namespace racepred::io
