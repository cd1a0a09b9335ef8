// Directives kept in a text trace's own comment lines (an STD trace's inline suppressions,
// docs/FORMATS.md): the lines that start with a given prefix, found by reading the trace once
// more (only the lines' first bytes are looked at; compressed input is decompressed again).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace racepred {

struct CommentLine {
  uint64_t line = 0;  // physical line, from 1, as the readers count it
  size_t column = 0;  // 0-based byte offset in the line where `text` starts (after the prefix)
  std::string text;   // the rest of the line after the prefix, without its newline
};

// The lines of `path` that start with `prefix`. Standard input ("-") and files that cannot be
// read twice (pipes, FIFOs) give none.
std::vector<CommentLine> read_comment_lines(const std::string& path, std::string_view prefix);

}  // namespace racepred
