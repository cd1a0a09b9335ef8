// ThreadSanitizer's suppressions files (`--suppressions FILE`, docs/CLI.md, "Suppressions"):
// one `type:pattern` per line, `#` comments; `*` matches any text, `^` and `$` anchor the pattern
// at the start and end of a name, which it otherwise may match anywhere.
// racepred records no call stacks, so a pattern is matched against each access's own site (its
// function, file and location name), the variable, the threads and the locks (docs/CLI.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/report/finding.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred {

// The prefix of an STD trace's comment line that holds a suppression of the trace itself:
// "# racepred-suppress: race:foo" (docs/FORMATS.md).
inline constexpr std::string_view kInlineSuppressionPrefix = "# racepred-suppress:";

// Whether `pattern` (ThreadSanitizer's syntax above) matches `name`. An empty name never matches.
bool suppression_matches(std::string_view pattern, std::string_view name);

struct Suppression {
  std::string type;  // race, race_top, deadlock, thread, called_from_lib, mutex, signal
  std::string pattern;
  std::string file;
  uint32_t line = 0;
  uint64_t used = 0;  // findings it suppressed (counted by the caller through note_use)
};

class Suppressions {
 public:
  // Parses `text` read from `file`; a bad line throws InputError "FILE:LINE:COL: error: …".
  static Suppressions parse(std::string_view text, const std::string& file);
  // Reads and parses `path` (InputError when it cannot be read).
  static Suppressions read(const std::string& path);
  // Adds the suppression of one line of `file` (blank and `#` lines add nothing); a bad line
  // throws InputError "FILE:LINE:COL: error: …", COL counted from `column_offset` + 1 (the line
  // of an STD trace's `# racepred-suppress:` comment starts after its prefix).
  void add(std::string_view line, const std::string& file, uint32_t line_number,
           size_t column_offset = 0);
  // Adds `more`'s suppressions after these (an STD trace's own after --suppressions FILE).
  void append(const Suppressions& more);

  bool empty() const { return list_.empty(); }
  // The first suppression matching `finding` (index in list()), or -1.
  int match(const Symbols& symbols, const Finding& finding) const;
  void note_use(int index, uint64_t n = 1) { list_[static_cast<size_t>(index)].used += n; }
  const std::vector<Suppression>& list() const { return list_; }

 private:
  std::vector<Suppression> list_;
};

}  // namespace racepred
