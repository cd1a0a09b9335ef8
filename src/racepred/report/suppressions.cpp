#include "racepred/report/suppressions.hpp"

#include <fstream>
#include <iterator>
#include <sstream>

#include "racepred/report/fingerprint.hpp"
#include "racepred/trace/error.hpp"

namespace racepred {
namespace {

// The suppression types of ThreadSanitizer. mutex and signal are accepted (a file shared with
// ThreadSanitizer may hold them) but racepred has no such reports: they never match.
constexpr std::string_view kTypes[] = {"race",  "race_top", "deadlock", "thread", "called_from_lib",
                                       "mutex", "signal"};

bool known_type(std::string_view t) {
  for (std::string_view k : kTypes)
    if (k == t) return true;
  return false;
}

// The piece of `s` before the first '*' (or the whole), advancing `s` past it.
std::string_view next_piece(std::string_view& s) {
  const size_t star = s.find('*');
  const std::string_view piece = s.substr(0, star);
  s = star == std::string_view::npos ? std::string_view() : s.substr(star);
  return piece;
}

// A shared library's name in a location "libfoo.so+0x1a2b" (the recorder's form for code
// without debug information): the module ThreadSanitizer's called_from_lib names.
std::string module_of(const Site& site) {
  if (site.has_file()) return "";
  const size_t plus = site.label.find("+0x");
  return plus == std::string::npos ? "" : site.label.substr(0, plus);
}

}  // namespace

bool suppression_matches(std::string_view pattern, std::string_view name) {
  if (name.empty()) return false;
  bool anchored_start = !pattern.empty() && pattern.front() == '^';
  if (anchored_start) pattern.remove_prefix(1);
  const bool anchored_end = !pattern.empty() && pattern.back() == '$';
  if (anchored_end) pattern.remove_suffix(1);
  size_t pos = 0;
  bool first = true;
  while (true) {
    while (!pattern.empty() && pattern.front() == '*') {
      pattern.remove_prefix(1);
      first = false;  // after a '*' the next piece may start anywhere
    }
    if (pattern.empty()) return !anchored_end || !first || pos == name.size();
    const std::string_view piece = next_piece(pattern);
    const bool last = pattern.empty();
    if (first && anchored_start) {
      if (name.substr(pos, piece.size()) != piece) return false;
      pos += piece.size();
      if (last && anchored_end) return pos == name.size();
    } else if (last && anchored_end) {
      // The last piece must end the name, after what matched so far.
      return name.size() >= pos + piece.size() && name.substr(name.size() - piece.size()) == piece;
    } else {
      const size_t at = name.find(piece, pos);
      if (at == std::string_view::npos) return false;
      pos = at + piece.size();
    }
    first = false;
    if (last) return true;
  }
}

void Suppressions::add(std::string_view line, const std::string& file, uint32_t line_number,
                       size_t column_offset) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos || line[start] == '#') return;
  const size_t end = line.find_last_not_of(" \t");
  const std::string_view body = line.substr(start, end - start + 1);
  const auto error = [&](size_t column, const std::string& what) {
    return InputError(file + ":" + std::to_string(line_number) + ":" +
                      std::to_string(column + column_offset) + ": error: " + what);
  };
  const size_t colon = body.find(':');
  if (colon == std::string_view::npos)
    throw error(start + 1,
                "expected TYPE:PATTERN (a ThreadSanitizer suppression such as "
                "race:function_name), got '" +
                    std::string(body) + "'");
  const std::string_view type = body.substr(0, colon);
  if (!known_type(type))
    throw error(start + 1, "unknown suppression type '" + std::string(type) +
                               "' (race, race_top, deadlock, thread, called_from_lib, mutex, "
                               "signal)");
  const std::string_view pattern = body.substr(colon + 1);
  if (pattern.empty())
    throw error(start + colon + 2, "empty pattern after '" + std::string(type) + ":'");
  list_.push_back({std::string(type), std::string(pattern), file, line_number, 0});
}

void Suppressions::append(const Suppressions& more) {
  list_.insert(list_.end(), more.list_.begin(), more.list_.end());
}

Suppressions Suppressions::parse(std::string_view text, const std::string& file) {
  Suppressions s;
  uint32_t line_number = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    s.add(line, file, ++line_number);
  }
  return s;
}

Suppressions Suppressions::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("racepred: error: cannot read the suppressions file " + path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse(text, path);
}

int Suppressions::match(const Symbols& symbols, const Finding& finding) const {
  // The names each type looks at (see docs/CLI.md, "Suppressions").
  std::vector<std::string> top, any, threads, modules;
  const auto add_site = [&](LocationId l) {
    const std::string_view name = symbols.locations.name(l);
    const Site site = parse_site(name);
    top.emplace_back(name);
    if (!site.function.empty()) top.push_back(site.function);
    if (site.has_file()) top.push_back(site.file);
    const std::string m = module_of(site);
    if (!m.empty()) modules.push_back(m);
  };
  switch (finding.kind) {
    case FindingKind::DataRace:
    case FindingKind::ReadReadViolation:
      add_site(finding.race.second.location);
      threads.emplace_back(symbols.threads.name(finding.race.second.thread));
      if (finding.race.first.known()) {
        add_site(finding.race.first.location);
        threads.emplace_back(symbols.threads.name(finding.race.first.thread));
      }
      any = top;
      any.emplace_back(symbols.variables.name(finding.race.variable));
      break;
    case FindingKind::Deadlock:
      for (const DeadlockStep& step : finding.deadlock.cycle) {
        add_site(step.location);
        threads.emplace_back(symbols.threads.name(step.thread));
        any.emplace_back(symbols.locks.name(step.requested));
      }
      any.insert(any.end(), top.begin(), top.end());
      break;
    case FindingKind::Failure:
      return -1;  // the program failed: nothing to suppress
  }
  const bool race = finding.kind != FindingKind::Deadlock;
  const auto some = [](const std::vector<std::string>& names, const std::string& pattern) {
    for (const std::string& n : names)
      if (suppression_matches(pattern, n)) return true;
    return false;
  };
  for (size_t i = 0; i < list_.size(); ++i) {
    const Suppression& s = list_[i];
    bool hit = false;
    if (s.type == "race") hit = race && some(any, s.pattern);
    if (s.type == "race_top") hit = race && some(top, s.pattern);
    if (s.type == "deadlock") hit = !race && some(any, s.pattern);
    if (s.type == "thread") hit = some(threads, s.pattern);
    if (s.type == "called_from_lib") hit = some(modules, s.pattern);
    if (hit) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace racepred
