#include "racepred/report/fingerprint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>

namespace racepred {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 9 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

uint32_t number(std::string_view s) {
  uint32_t n = 0;
  for (char c : s) n = n * 10 + static_cast<uint32_t>(c - '0');
  return n;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

Site parse_site(std::string_view name) {
  Site site;
  std::string_view rest = name;
  // "… (function)": the recorder's form.
  if (rest.size() > 3 && rest.back() == ')') {
    const size_t open = rest.rfind(" (");
    if (open != std::string_view::npos && open > 0) {
      site.function = std::string(rest.substr(open + 2, rest.size() - open - 3));
      rest = rest.substr(0, open);
    }
  }
  // file:line or file:line:col, the file non-empty.
  std::string_view file = rest;
  uint32_t line = 0, column = 0;
  bool ok = false;
  size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos && all_digits(rest.substr(colon + 1))) {
    const std::string_view last = rest.substr(colon + 1);
    const std::string_view before = rest.substr(0, colon);
    const size_t colon2 = before.rfind(':');
    if (colon2 != std::string_view::npos && all_digits(before.substr(colon2 + 1)) && colon2 > 0) {
      file = before.substr(0, colon2);
      line = number(before.substr(colon2 + 1));
      column = number(last);
      ok = true;
    } else if (colon > 0) {
      file = before;
      line = number(last);
      ok = true;
    }
  }
  if (!ok) {
    site.function.clear();
    site.label = std::string(name);
    return site;
  }
  site.file = std::string(file);
  site.line = line;
  site.column = column;
  return site;
}

const SourceLines::Text& SourceLines::text(const std::string& file) {
  auto it = files_.find(file);
  if (it != files_.end()) return it->second;
  Text t;
  std::vector<std::string> candidates{file};
  if (file.empty() || file[0] != '/')
    for (const std::string& root : roots_) candidates.push_back(root + "/" + file);
  for (const std::string& path : candidates) {
    std::ifstream in(path, std::ios::binary);
    if (!in) continue;
    t.readable = true;
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      std::string squeezed;
      for (char c : line)
        if (!std::isspace(static_cast<unsigned char>(c))) squeezed += c;
      t.lines.push_back(std::move(line));
      t.normalised.push_back(std::move(squeezed));
    }
    break;
  }
  return files_.emplace(file, std::move(t)).first->second;
}

const std::string* SourceLines::normalised(const std::string& file, uint32_t line) {
  const Text& t = text(file);
  if (line == 0 || line > t.normalised.size()) return nullptr;
  return &t.normalised[line - 1];
}

const std::vector<std::string>* SourceLines::lines(const std::string& file) {
  const Text& t = text(file);
  return t.readable ? &t.lines : nullptr;
}

std::string site_key(const Site& site, SourceLines& sources) {
  // Appended piece by piece (gcc 12 warns wrongly about `"literal" + string` here).
  std::string key;
  if (!site.has_file()) {
    key.append("label\x1f").append(site.label);
    return key;
  }
  key.append(site.function).append(1, '\x1f').append(base_name(site.file)).append(1, '\x1f');
  if (const std::string* text = sources.normalised(site.file, site.line)) {
    key.append(1, '=').append(*text);
  } else {
    key.append(1, '#').append(std::to_string(site.line));
  }
  return key;
}

std::string fingerprint(const Symbols& symbols, const Finding& finding, SourceLines& sources) {
  const auto key_of = [&](LocationId l) {
    return site_key(parse_site(symbols.locations.name(l)), sources);
  };
  std::vector<std::string> keys;
  std::string text(finding_kind_name(finding.kind));
  switch (finding.kind) {
    case FindingKind::DataRace:
    case FindingKind::ReadReadViolation:
      keys.push_back(key_of(finding.race.second.location));
      keys.push_back(finding.race.first.known() ? key_of(finding.race.first.location)
                                                : std::string("?"));
      break;
    case FindingKind::Deadlock:
      for (const DeadlockStep& step : finding.deadlock.cycle) keys.push_back(key_of(step.location));
      break;
    case FindingKind::Failure:
      text += '\x1e';
      text += failure_kind_name(finding.failure.kind);
      text += '\x1e';
      text += finding.failure.message;
      if (finding.failure.has_thread) keys.push_back(key_of(finding.failure.location));
      break;
  }
  std::sort(keys.begin(), keys.end());
  for (const std::string& k : keys) text.append(1, '\x1e').append(k);
  return fmt::format("{:016x}", fnv1a(text));
}

}  // namespace racepred
