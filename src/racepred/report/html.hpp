// The HTML report (`--format html`, docs/CLI.md, "HTML report"): one self-contained page (inline
// CSS and JavaScript, nothing loaded from the network) whose findings are embedded as JSON data
// and rendered by the page's own script: a list with filters first, each finding's stacks,
// source snippets and thread lanes only when it is opened, so that large reports open quickly.
// It prints the JSON form of findings (finding_json plus "engine", "confidence" and
// "fingerprint", as SARIF does), so analyze, explore and merge share it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/report/fingerprint.hpp"

namespace racepred {

// Source lines shown around each line a finding names (before and after it).
inline constexpr uint32_t kHtmlSnippetContext = 2;
// At most this many distinct locations get a snippet; the others say so.
inline constexpr size_t kHtmlMaxSnippets = 20000;

// The page's embedded data: {"title", "command", "subject", "version", "findings", "sources"},
// "sources" mapping each location name the findings use that names a file to its snippet
// ({"file", "line", "start", "text": [lines]}) or to {"file", "line", "missing": true} when the
// file cannot be read. `subject`: the trace, program or reports the findings come from.
nlohmann::ordered_json html_data(const std::vector<nlohmann::ordered_json>& findings,
                                 std::string_view command, std::string_view subject,
                                 SourceLines& sources);

// JSON text that is safe inside <script type="application/json">: every '<' is written \u003c,
// so no "</script>" or "<!--" can end or change the element.
std::string json_for_script(const nlohmann::ordered_json& doc);

// The whole page.
void write_html_report(std::ostream& out, const std::vector<nlohmann::ordered_json>& findings,
                       std::string_view command, std::string_view subject, SourceLines& sources);

}  // namespace racepred
