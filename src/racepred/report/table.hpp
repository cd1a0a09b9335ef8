// Plain-text tables, and the papers' tabular view of a trace (one column per thread, one row per
// event, extra columns of per-event annotations) as text or JSON. Used by `racepred annotate`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "racepred/trace/trace.hpp"

namespace racepred {

struct TableOptions {
  size_t width = 0;       // total width in characters; 0 = unlimited
  bool truncate = false;  // cut cells that do not fit ("...") instead of wrapping them
};

// A text table: a header row, a rule, then the rows; columns separated by two spaces, no
// trailing blanks. When the natural widths exceed options.width, the shrinkable columns are
// narrowed (widest first, never below their minimum) and their cells wrapped onto several lines
// (breaking after ',' or ' ' where possible) or truncated.
class TextTable {
 public:
  void add_column(std::string header, bool shrinkable = true, size_t min_width = 8);
  // Missing trailing cells are empty; extra cells are an error (std::invalid_argument).
  void add_row(std::vector<std::string> cells);

  size_t columns() const { return headers_.size(); }
  size_t rows() const { return rows_.size(); }
  // Column widths for a total width (0 = natural widths).
  std::vector<size_t> layout(size_t width) const;
  std::string render(const TableOptions& options = {}) const;

 private:
  std::vector<std::string> headers_;
  std::vector<bool> shrinkable_;
  std::vector<size_t> min_width_;
  std::vector<std::vector<std::string>> rows_;
};

// Width in characters (UTF-8 code points).
size_t display_width(std::string_view text);
// Lines of at most `width` characters; breaks after ',' or ' ' when it can, else mid-word.
std::vector<std::string> wrap_text(std::string_view text, size_t width);
// `text` cut to `width` characters, ending in "..." when cut (width >= 4).
std::string truncate_text(std::string_view text, size_t width);

// One annotation cell of a row in the trace table (same shape as engines' AnnotationCell).
struct NamedCell {
  std::string column;
  std::string value;
};
using NamedCells = std::vector<NamedCell>;

enum class TraceLayout {
  Auto,     // Columns when the thread columns fit in 60% of the width (and there are <= 12)
  Columns,  // one column per thread, as in the papers
  Compact,  // "thread" and "event" columns (for traces with many threads)
};

struct TraceTableOptions {
  TableOptions table;
  TraceLayout layout = TraceLayout::Auto;
};

// Extra column names: the union of the cells' columns in first-seen order, leaving out columns
// whose cells are all empty (engines may name all their columns on every row to fix the order).
std::vector<std::string> annotation_columns(const std::vector<NamedCells>& cells);

// The papers' table of `trace`: row label "e<id>", the event text ("w(x)") in its thread's column
// (headed by the thread's name), then the annotation columns. `cells[i]` belongs to
// trace.events[i] (may be shorter than the trace). When thread names are not T0, T1, … a first
// line maps the thread indices used in vector clocks and epochs to the names.
std::string render_trace_table(const Trace& trace, const std::vector<NamedCells>& cells,
                               const TraceTableOptions& options = {});

// The same as JSON: {"threads": [names by index], "columns": [...], "events": [{"id", "thread",
// "op", "target", "location", "cells": {column: value}}]}; members in this order.
nlohmann::ordered_json trace_table_json(const Trace& trace, const std::vector<NamedCells>& cells);

}  // namespace racepred
