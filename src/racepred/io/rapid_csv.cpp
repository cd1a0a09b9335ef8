// RAPID's CSV format (docs/FORMATS.md, "RAPID CSV"): one column per thread, exactly one
// non-empty cell `op(arg)` per line; the thread of an event is T<column>.
#include <charconv>
#include <vector>

#include "racepred/io/format_impl.hpp"

namespace racepred::io {
namespace {

constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

struct CsvOp {
  std::string_view name;
  bool skipped;
  Op op;
};
// RAPID's parse/csv matches acq rel r w start join enter exit dummy and sync; `start` is its
// fork (RAPID's PrintCSV writes `fork`, which its own reader ignores: racepred reads both).
constexpr CsvOp kCsvOps[] = {
    {"r", false, Op::Read},      {"w", false, Op::Write},   {"acq", false, Op::Acquire},
    {"rel", false, Op::Release}, {"fork", false, Op::Fork}, {"start", false, Op::Fork},
    {"join", false, Op::Join},   {"enter", true, Op::Read}, {"exit", true, Op::Read},
    {"sync", true, Op::Read},
};

}  // namespace

LineResult RapidCsvLineParser::parse(std::string_view line, uint64_t line_number) {
  if (blank_or_comment(line)) return LineResult::ignored();
  // The cells, and the one that is not empty.
  size_t columns = 0, cell_column = 0, cell_at = 0;
  std::string_view cell;
  size_t second = 0;  // 1-based column of a second non-empty cell
  split_fields(line, ',', [&](std::string_view f, size_t at) {
    if (!f.empty()) {
      if (!cell.empty()) {
        second = at + 1;
        return false;
      }
      cell = f;
      cell_column = columns;
      cell_at = at;
    }
    ++columns;
    return true;
  });
  if (second)
    return LineResult::error(
        second, "a second event on the line (column " + std::to_string(columns) + " after column " +
                    std::to_string(cell_column) + "): one non-empty column per line");
  if (cell.empty()) return LineResult::error(1, "no event: every column is empty");
  if (columns_ == 0) columns_ = columns;
  if (columns != columns_)
    return LineResult::error(line.size() + 1, "the line has " + std::to_string(columns) +
                                                  " columns, the first event line has " +
                                                  std::to_string(columns_) +
                                                  " (one column per thread)");
  const size_t paren = cell.find('(');
  const std::string_view kind = cell.substr(0, paren);
  const CsvOp* found = nullptr;
  for (const CsvOp& op : kCsvOps)
    if (op.name == kind) found = &op;
  if (!found)
    return LineResult::error(cell_at + 1,
                             "unknown operation " + quoted_text(kind) +
                                 " (expected r, w, acq, rel, fork, start, join, enter, exit "
                                 "or sync)");
  if (paren == std::string_view::npos)
    return LineResult::error(cell_at + kind.size() + 1, "missing '(' after " + quoted_text(kind));
  const size_t close = cell.rfind(')');
  if (close == std::string_view::npos || close < paren)
    return LineResult::error(cell_at + cell.size() + 1, "missing ')' at the end of the cell");
  if (close + 1 != cell.size())
    return LineResult::error(cell_at + close + 2, "unexpected text after ')'");
  const std::string_view arg = cell.substr(paren + 1, close - paren - 1);
  if (arg.empty()) return LineResult::error(cell_at + paren + 2, "empty argument");
  for (size_t i = 0; i < arg.size(); ++i)
    if (is_space(arg[i]))
      return LineResult::error(cell_at + paren + 2 + i, "whitespace in argument");
  LineResult r = LineResult::operation(found->skipped, found->name, found->op,
                                       numbered_name('T', cell_column, thread_));
  r.target = arg;
  r.location = line_number_name(line_number, location_);
  return r;
}

void read_rapid_csv(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                    EventConsumer& consumer, ReadSummary& summary) {
  RapidCsvLineParser parser;
  read_lines(parser, in, name, options, symbols, consumer, summary);
}

void write_rapid_csv(const Trace& trace, const WriteOptions& options, const std::string& path) {
  LossReport loss("csv");
  loss.reject_read_locks(trace);
  loss.reject_sync_ops(trace);
  loss.reject_requests(trace);
  const Symbols& s = trace.symbols;
  // Columns: thread T<k> in column k when every thread is named so (and the columns stay
  // reasonably few); otherwise the threads are numbered anew in order of appearance.
  std::vector<uint64_t> column =
      numbers_for(s.threads, 'T', uint64_t{s.threads.size()} * 4 + 64, "thread", loss);
  uint64_t columns = 0;
  for (uint64_t c : column) columns = std::max(columns, c + 1);
  if (columns == 0) columns = 1;
  for (const SymbolTable* table : {&s.variables, &s.locks})
    if (const auto bad = name_with(*table, ",", true))
      loss.impossible("the name " + quoted_text(*bad) +
                      " holds ',' or whitespace, which a CSV cell cannot");
  if (!locations_are_line_numbers(trace))
    loss.add(
        "the locations of the events (CSV has none; reading it back names each event's "
        "location after its line number)");
  loss.check(options);

  Output out(path);
  char buf[24];
  for (const Event& e : trace.events) {
    const uint64_t c = column[e.thread];
    for (uint64_t i = 0; i < c; ++i) out.put(',');
    out.put(op_name(e.op));
    out.put('(');
    if (e.op == Op::Fork || e.op == Op::Join)
      out.put(numbered_name('T', column[e.target], buf));
    else
      out.put(trace.target_name(e));
    out.put(')');
    for (uint64_t i = c + 1; i < columns; ++i) out.put(',');
    out.put('\n');
  }
  out.close();
}

}  // namespace racepred::io
