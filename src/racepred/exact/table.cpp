#include "racepred/exact/table.hpp"

#include <algorithm>

namespace racepred::exact {

std::string thread_name(const TraceIndex& trace, ThreadId t) {
  return trace.thread_name(t);
}

std::string operation_text(const TraceIndex& trace, uint32_t i) {
  const std::string d = trace.describe(i);  // "T|op(arg)"
  return d.substr(d.find('|') + 1);
}

std::string format_table(const TraceIndex& trace, const std::vector<TableRow>& rows,
                         const std::vector<std::string>& extra_columns) {
  std::vector<ThreadId> threads;
  for (ThreadId t = 0; t < trace.thread_count(); ++t)
    if (!trace.thread_events(t).empty()) threads.push_back(t);
  // By name, shorter names first, so that T2 comes before T10 (the papers' column order).
  std::sort(threads.begin(), threads.end(), [&](ThreadId a, ThreadId b) {
    const std::string x = trace.thread_name(a), y = trace.thread_name(b);
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  std::vector<size_t> column(trace.thread_count(), 0);
  for (size_t c = 0; c < threads.size(); ++c) column[threads[c]] = c;

  // Cells: label, one per thread, extras, note.
  const size_t columns = 1 + threads.size() + extra_columns.size();
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header(columns);
  for (size_t c = 0; c < threads.size(); ++c) header[1 + c] = thread_name(trace, threads[c]);
  for (size_t c = 0; c < extra_columns.size(); ++c)
    header[1 + threads.size() + c] = extra_columns[c];
  cells.push_back(header);
  for (const TableRow& row : rows) {
    std::vector<std::string> line(columns);
    line[0] = 'e';
    line[0] += std::to_string(trace.id(row.event));
    line[1 + column[trace.event(row.event).thread]] = operation_text(trace, row.event);
    for (size_t c = 0; c < extra_columns.size() && c < row.extra.size(); ++c)
      line[1 + threads.size() + c] = row.extra[c];
    cells.push_back(std::move(line));
  }
  std::vector<size_t> width(columns, 0);
  for (const auto& line : cells)
    for (size_t c = 0; c < columns; ++c) width[c] = std::max(width[c], line[c].size());

  std::string out;
  for (size_t r = 0; r < cells.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < columns; ++c) {
      line += cells[r][c];
      if (c + 1 < columns) line += std::string(width[c] - cells[r][c].size() + 2, ' ');
    }
    if (r > 0 && !rows[r - 1].note.empty()) line += "  " + rows[r - 1].note;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  }
  return out;
}

}  // namespace racepred::exact
