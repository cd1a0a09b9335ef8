// Stable fingerprints of findings (docs/CLI.md, "Fingerprints"): an identity that survives
// re-recording the run, small line shifts and the two threads swapping roles, for baselines,
// merging and SARIF's partialFingerprints.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/report/finding.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred {

// A location name taken apart: the recorder's "file:line[:col] (function)", a Java
// "File.java:LINE:COL", or a plain label (STD's "L9", RAPID's "12"): then only `label` is set.
struct Site {
  std::string function;  // "" when not known
  std::string file;      // "" for a plain label
  uint32_t line = 0;
  uint32_t column = 0;  // 0: not known
  std::string label;    // the whole name when it is not file:line
  bool has_file() const { return !file.empty(); }
};
Site parse_site(std::string_view location);

// Source files read on demand (each once) to normalise a site's line: looked up as named, then
// under each of `roots` (e.g. the trace's directory).
class SourceLines {
 public:
  explicit SourceLines(std::vector<std::string> roots = {}) : roots_(std::move(roots)) {}
  // The line's text without any whitespace, or nullptr when the file or line cannot be read.
  const std::string* normalised(const std::string& file, uint32_t line);
  // The file's lines as written (without their newlines), or nullptr when it cannot be read.
  const std::vector<std::string>* lines(const std::string& file);

 private:
  struct Text {
    bool readable = false;
    std::vector<std::string> lines;       // as written
    std::vector<std::string> normalised;  // without whitespace
  };
  const Text& text(const std::string& file);
  std::vector<std::string> roots_;
  std::map<std::string, Text> files_;
};

// The site's share of a fingerprint: function, file name (without directories) and the line's
// normalised text (its line number when the source cannot be read); a plain label as it is.
std::string site_key(const Site& site, SourceLines& sources);

// A finding's fingerprint, 16 lowercase hex digits (FNV-1a, 64 bits) of its kind and the sorted
// keys of its sites: a race's two accesses, a deadlock's requesting sites, a failure's kind,
// site and message. The engine is not part of it.
std::string fingerprint(const Symbols& symbols, const Finding& finding, SourceLines& sources);

}  // namespace racepred
