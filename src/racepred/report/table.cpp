#include "racepred/report/table.hpp"

#include <algorithm>
#include <stdexcept>

#include "racepred/report/notation.hpp"

namespace racepred {

namespace {

constexpr size_t kSeparator = 2;  // blanks between columns

bool is_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Bytes of the first `chars` characters of `text`.
size_t prefix_bytes(std::string_view text, size_t chars) {
  size_t i = 0;
  while (i < text.size() && chars > 0) {
    ++i;
    while (i < text.size() && is_continuation(text[i])) ++i;
    --chars;
  }
  return i;
}

std::string pad(std::string_view text, size_t width) {
  std::string s(text);
  const size_t w = display_width(text);
  if (w < width) s.append(width - w, ' ');
  return s;
}

void rtrim(std::string& s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
}

}  // namespace

size_t display_width(std::string_view text) {
  size_t n = 0;
  for (char c : text)
    if (!is_continuation(c)) ++n;
  return n;
}

std::vector<std::string> wrap_text(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  if (width == 0) width = 1;
  while (display_width(text) > width) {
    const size_t limit = prefix_bytes(text, width);  // bytes that fit
    // Break after the last ',' or ' ' that keeps the line within the width.
    size_t cut = 0;
    for (size_t i = limit; i > 0; --i) {
      const char c = text[i - 1];
      if (c == ',' || c == ' ') {
        cut = i;
        break;
      }
    }
    if (cut == 0) cut = limit;  // no break opportunity: break mid-word
    std::string line(text.substr(0, cut));
    rtrim(line);
    lines.push_back(std::move(line));
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  }
  if (!text.empty() || lines.empty()) lines.emplace_back(text);
  return lines;
}

std::string truncate_text(std::string_view text, size_t width) {
  if (display_width(text) <= width) return std::string(text);
  if (width < 4) return std::string(text.substr(0, prefix_bytes(text, width)));
  return std::string(text.substr(0, prefix_bytes(text, width - 3))) + "...";
}

void TextTable::add_column(std::string header, bool shrinkable, size_t min_width) {
  headers_.push_back(std::move(header));
  shrinkable_.push_back(shrinkable);
  min_width_.push_back(min_width);
}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() > headers_.size())
    throw std::invalid_argument("TextTable::add_row: more cells than columns");
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::vector<size_t> TextTable::layout(size_t width) const {
  const size_t n = headers_.size();
  std::vector<size_t> natural(n);
  for (size_t c = 0; c < n; ++c) {
    natural[c] = display_width(headers_[c]);
    for (const auto& row : rows_) natural[c] = std::max(natural[c], display_width(row[c]));
  }
  if (width == 0 || n == 0) return natural;
  size_t total = kSeparator * (n - 1);
  for (size_t w : natural) total += w;
  if (total <= width) return natural;

  // Fixed columns keep their width; the shrinkable ones share what is left, capped at `cap`
  // (water filling: the widest are narrowed first), never below their minimum.
  size_t fixed = kSeparator * (n - 1);
  for (size_t c = 0; c < n; ++c)
    if (!shrinkable_[c]) fixed += natural[c];
  const size_t available = width > fixed ? width - fixed : 0;
  auto width_at = [&](size_t c, size_t cap) {
    return std::min(natural[c], std::max(cap, min_width_[c]));
  };
  auto used_at = [&](size_t cap) {
    size_t used = 0;
    for (size_t c = 0; c < n; ++c)
      if (shrinkable_[c]) used += width_at(c, cap);
    return used;
  };
  size_t lo = 0, hi = *std::max_element(natural.begin(), natural.end());
  while (lo < hi) {  // largest cap whose total fits
    const size_t mid = (lo + hi + 1) / 2;
    if (used_at(mid) <= available)
      lo = mid;
    else
      hi = mid - 1;
  }
  std::vector<size_t> widths = natural;
  for (size_t c = 0; c < n; ++c)
    if (shrinkable_[c]) widths[c] = width_at(c, lo);
  return widths;
}

std::string TextTable::render(const TableOptions& options) const {
  const std::vector<size_t> widths = layout(options.width);
  const size_t n = headers_.size();
  std::string out;
  auto emit_row = [&](const std::vector<std::string>& cells, bool header) {
    std::vector<std::vector<std::string>> lines(n);
    size_t height = 1;
    for (size_t c = 0; c < n; ++c) {
      if (header || options.truncate || display_width(cells[c]) <= widths[c])
        lines[c] = {truncate_text(cells[c], widths[c])};
      else
        lines[c] = wrap_text(cells[c], widths[c]);
      height = std::max(height, lines[c].size());
    }
    for (size_t l = 0; l < height; ++l) {
      std::string line;
      for (size_t c = 0; c < n; ++c) {
        if (c) line.append(kSeparator, ' ');
        line += pad(l < lines[c].size() ? lines[c][l] : std::string(), widths[c]);
      }
      rtrim(line);
      out += line;
      out += '\n';
    }
  };
  emit_row(headers_, true);
  std::string rule;
  for (size_t c = 0; c < n; ++c) {
    if (c) rule.append(kSeparator, ' ');
    rule.append(widths[c], '-');
  }
  out += rule + '\n';
  for (const auto& row : rows_) emit_row(row, false);
  return out;
}

std::vector<std::string> annotation_columns(const std::vector<NamedCells>& cells) {
  std::vector<std::string> columns;
  std::vector<bool> used;
  for (const NamedCells& row : cells)
    for (const NamedCell& cell : row) {
      const size_t c = static_cast<size_t>(std::find(columns.begin(), columns.end(), cell.column) -
                                           columns.begin());
      if (c == columns.size()) {
        columns.push_back(cell.column);
        used.push_back(false);
      }
      if (!cell.value.empty()) used[c] = true;
    }
  std::vector<std::string> out;
  for (size_t c = 0; c < columns.size(); ++c)
    if (used[c]) out.push_back(columns[c]);
  return out;
}

namespace {

// Thread names that are not "T<index>" get a legend mapping indices to names.
bool names_follow_indices(const Trace& trace) {
  for (uint32_t t = 0; t < trace.symbols.threads.size(); ++t) {
    const std::string_view name = trace.thread_name(t);
    if (name.empty() || name.front() != 'T' || name.substr(1) != std::to_string(t)) return false;
  }
  return true;
}

std::string thread_legend(const Trace& trace) {
  std::string s = "thread indices (vector clocks, epochs):";
  for (uint32_t t = 0; t < trace.symbols.threads.size(); ++t) {
    s += ' ';
    s += std::to_string(t);
    s += '=';
    s += trace.thread_name(t);
  }
  return s + '\n';
}

// Cells of one row in column order; a column named twice in a row joins its values.
std::vector<std::string> row_values(const NamedCells& row,
                                    const std::vector<std::string>& columns) {
  std::vector<std::string> values(columns.size());
  for (const NamedCell& cell : row) {
    const size_t c = static_cast<size_t>(std::find(columns.begin(), columns.end(), cell.column) -
                                         columns.begin());
    if (c == columns.size() || cell.value.empty()) continue;  // a column without any value
    if (!values[c].empty()) values[c] += "; ";
    values[c] += cell.value;
  }
  return values;
}

}  // namespace

std::string render_trace_table(const Trace& trace, const std::vector<NamedCells>& cells,
                               const TraceTableOptions& options) {
  const std::vector<std::string> columns = annotation_columns(cells);
  const uint32_t threads = trace.symbols.threads.size();
  std::vector<std::string> texts(trace.size());
  std::vector<size_t> thread_width(threads, 0);
  for (uint32_t t = 0; t < threads; ++t) thread_width[t] = display_width(trace.thread_name(t));
  for (size_t i = 0; i < trace.size(); ++i) {
    texts[i] = event_text(trace.symbols, trace.events[i]);
    size_t& w = thread_width[trace.events[i].thread];
    w = std::max(w, display_width(texts[i]));
  }
  size_t label_width = 1;
  if (!trace.ids.empty()) label_width += std::to_string(trace.ids.back()).size();

  TraceLayout layout = options.layout;
  if (layout == TraceLayout::Auto) {
    size_t needed = label_width;
    for (size_t w : thread_width) needed += kSeparator + w;
    const bool fits = options.table.width == 0 || needed * 10 <= options.table.width * 6;
    layout = threads <= 12 && fits ? TraceLayout::Columns : TraceLayout::Compact;
  }

  TextTable table;
  table.add_column("", false);
  if (layout == TraceLayout::Columns) {
    for (uint32_t t = 0; t < threads; ++t)
      table.add_column(std::string(trace.thread_name(t)), true, 6);
  } else {
    table.add_column("thread", true, 6);
    table.add_column("event", true, 8);
  }
  for (const std::string& c : columns) table.add_column(c, true, 10);

  static const NamedCells kNoCells;
  for (size_t i = 0; i < trace.size(); ++i) {
    const Event& e = trace.events[i];
    std::vector<std::string> row;
    std::string label = "e";
    label += std::to_string(trace.ids[i]);
    row.push_back(std::move(label));
    if (layout == TraceLayout::Columns) {
      for (uint32_t t = 0; t < threads; ++t)
        row.push_back(t == e.thread ? texts[i] : std::string());
    } else {
      row.emplace_back(trace.thread_name(e.thread));
      row.push_back(texts[i]);
    }
    std::vector<std::string> values = row_values(i < cells.size() ? cells[i] : kNoCells, columns);
    for (std::string& v : values) row.push_back(std::move(v));
    table.add_row(std::move(row));
  }
  std::string out;
  if (!names_follow_indices(trace)) out += thread_legend(trace);
  return out + table.render(options.table);
}

nlohmann::ordered_json trace_table_json(const Trace& trace, const std::vector<NamedCells>& cells) {
  nlohmann::ordered_json doc;
  doc["threads"] = nlohmann::ordered_json::array();
  for (uint32_t t = 0; t < trace.symbols.threads.size(); ++t)
    doc["threads"].push_back(std::string(trace.thread_name(t)));
  const std::vector<std::string> columns = annotation_columns(cells);
  doc["columns"] = columns;
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (size_t i = 0; i < trace.size(); ++i) {
    const Event& e = trace.events[i];
    nlohmann::ordered_json row;
    row["id"] = trace.ids[i];
    row["thread"] = std::string(trace.thread_name(e.thread));
    row["op"] = std::string(op_name(e.op));
    row["target"] = std::string(trace.target_name(e));
    row["location"] = e.location < trace.symbols.locations.size()
                          ? std::string(trace.location_name(e.location))
                          : std::string();
    nlohmann::ordered_json values = nlohmann::ordered_json::object();
    if (i < cells.size()) {
      const std::vector<std::string> v = row_values(cells[i], columns);
      for (size_t c = 0; c < columns.size(); ++c)
        if (!v[c].empty()) values[columns[c]] = v[c];
    }
    row["cells"] = std::move(values);
    events.push_back(std::move(row));
  }
  doc["events"] = std::move(events);
  return doc;
}

}  // namespace racepred
