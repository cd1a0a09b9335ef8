// The papers' tabular view of a trace: one column per thread, one row per event (e_i).
#pragma once

#include <string>
#include <vector>

#include "racepred/trace/trace_index.hpp"

namespace racepred::exact {

struct TableRow {
  uint32_t event = kNoIndex;       // index into the trace
  std::string note;                // printed after the row, e.g. "<- race"
  std::vector<std::string> extra;  // values of the extra columns, if any
};

// Rows in the given order; columns for every thread that has events (in thread id order), then
// `extra_columns`. Events are written "op(arg)" under their thread, row labels are "e<id>".
std::string format_table(const TraceIndex& trace, const std::vector<TableRow>& rows,
                         const std::vector<std::string>& extra_columns = {});

// "w(x)" for event i.
std::string operation_text(const TraceIndex& trace, uint32_t i);
std::string thread_name(const TraceIndex& trace, ThreadId t);

}  // namespace racepred::exact
