#include "racepred/report/ci.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <ostream>

#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"

namespace racepred {
namespace {

using nlohmann::ordered_json;

// The key SARIF's partialFingerprints carries racepred's fingerprint under (versioned, so that a
// change of the hash gets a new key instead of mismatching old alerts).
constexpr const char* kFingerprintKey = "racepred/v1";

ordered_json read_json_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("racepred: error: cannot read the {} {}", what, path));
  try {
    return ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(
        fmt::format("racepred: error: the {} {} is not JSON: {}", what, path, e.what()));
  }
}

bool is_sarif(const ordered_json& doc) {
  return doc.is_object() && doc.value("version", "") == "2.1.0" && doc.contains("runs");
}
bool is_racepred(const ordered_json& doc) {
  return doc.is_object() && doc.value("schema", "").rfind("racepred/", 0) == 0;
}

std::string text_of(const ordered_json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "src/a b.c" -> "src/a%20b.c"; an absolute path becomes a file: URI.
std::string uri_of(const std::string& path) {
  std::string out = path.empty() || path[0] != '/' ? "" : "file://";
  for (unsigned char c : path) {
    if (c <= ' ' || c == '%' || c == '#' || c == '?' || c >= 0x7f)
      out += fmt::format("%{:02X}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

// A SARIF location of a racepred location name, with a message.
ordered_json sarif_location(const std::string& name, const std::string& message) {
  ordered_json loc;
  const Site site = parse_site(name);
  if (site.has_file()) {
    ordered_json physical;
    physical["artifactLocation"]["uri"] = uri_of(site.file);
    if (site.file[0] != '/') physical["artifactLocation"]["uriBaseId"] = "%SRCROOT%";
    if (site.line > 0) {
      physical["region"]["startLine"] = site.line;
      if (site.column > 0) physical["region"]["startColumn"] = site.column;
    }
    loc["physicalLocation"] = std::move(physical);
    if (!site.function.empty())
      loc["logicalLocations"] =
          ordered_json::array({{{"name", site.function}, {"kind", "function"}}});
  } else {
    loc["logicalLocations"] = ordered_json::array({{{"name", name}}});
  }
  if (!message.empty()) loc["message"]["text"] = message;
  return loc;
}

std::string rule_text(std::string_view kind) {
  if (kind == "data-race")
    return "Data race: two accesses of one variable, at least one a write, "
           "that no synchronisation orders";
  if (kind == "read-read-violation")
    return "Read-read discipline violation (not a data race): two reads the engine's "
           "discipline orders";
  if (kind == "deadlock")
    return "Deadlock: a cycle of threads each requesting a lock the next holds";
  return "Program failure: an assertion, a crash or a hang";
}

std::string level_of(std::string_view kind) {
  return kind == "read-read-violation" ? "note" : "error";
}

// "x: write by T2 at b.c:9, previous write by T1 at a.c:4" and the like.
std::string result_message(const ordered_json& f) {
  const std::string kind = text_of(f, "kind");
  const std::string engine = text_of(f, "engine");
  const std::string confidence = text_of(f, "confidence");
  const std::string tail =
      fmt::format(" (engine {}{}{})", engine, confidence.empty() ? "" : ", ", confidence);
  if (kind == "data-race" || kind == "read-read-violation") {
    const std::string access = text_of(f, "access");
    const std::string ops = access.empty() ? "" : access;
    const std::string second_op = ops.size() > 0 && ops.find('-') != std::string::npos
                                      ? ops.substr(ops.find('-') + 1)
                                      : "access";
    const std::string first_op =
        ops.find('-') != std::string::npos ? ops.substr(0, ops.find('-')) : "";
    std::string m =
        fmt::format("{} on {}: {} by thread {} at {}",
                    kind == "data-race" ? "Data race" : "Read-read discipline violation",
                    text_of(f, "variable"), second_op, text_of(f, "second_thread"),
                    text_of(f, "second_location"));
    if (!first_op.empty())
      m += fmt::format(", previous {} by thread {} at {}", first_op, text_of(f, "first_thread"),
                       text_of(f, "first_location"));
    return m + tail;
  }
  if (kind == "deadlock") {
    std::string m = "Deadlock: ";
    if (f.contains("cycle"))
      for (size_t i = 0; i < f["cycle"].size(); ++i) {
        const ordered_json& s = f["cycle"][i];
        m += fmt::format("{}thread {} requests {} at {}", i ? "; " : "", text_of(s, "thread"),
                         text_of(s, "requested"), text_of(s, "location"));
      }
    return m + tail;
  }
  std::string m = "Program failure: " + text_of(f, "failure");
  if (!text_of(f, "message").empty()) m += ": " + text_of(f, "message");
  return m + tail;
}

ordered_json thread_flow_location(const std::string& location, const std::string& message,
                                  int order) {
  ordered_json t;
  t["location"] = sarif_location(location, message);
  t["executionOrder"] = order;
  return t;
}

// The interleaving of a result: the witness' when there is one, else the observed order.
ordered_json code_flows(const ordered_json& f) {
  // thread -> its steps, in the order threads first appear
  std::vector<std::pair<std::string, ordered_json>> flows;
  const auto add = [&](const std::string& thread, ordered_json step) {
    for (auto& [t, steps] : flows)
      if (t == thread) {
        steps.push_back(std::move(step));
        return;
      }
    flows.push_back({thread, ordered_json::array({std::move(step)})});
  };
  const std::string kind = text_of(f, "kind");
  std::string what;
  int order = 0;
  if (f.contains("interleaving") && f["interleaving"].is_array() && !f["interleaving"].empty()) {
    what = "witness";
    for (const ordered_json& s : f["interleaving"])
      add(text_of(s, "thread"),
          thread_flow_location(text_of(s, "location"),
                               fmt::format("{}({}) (event {})", text_of(s, "op"),
                                           text_of(s, "target"), s.value("event", uint64_t{0})),
                               ++order));
  } else if (kind == "data-race" || kind == "read-read-violation") {
    what = "observed";
    if (f.contains("first") && f["first"].is_number())
      add(text_of(f, "first_thread"),
          thread_flow_location(text_of(f, "first_location"),
                               fmt::format("first access (event {})", f["first"].get<uint64_t>()),
                               ++order));
    add(text_of(f, "second_thread"),
        thread_flow_location(
            text_of(f, "second_location"),
            fmt::format("second access (event {})", f.value("second", uint64_t{0})), ++order));
  } else if (kind == "deadlock" && f.contains("cycle")) {
    what = "observed";
    for (const ordered_json& s : f["cycle"])
      add(text_of(s, "thread"),
          thread_flow_location(text_of(s, "location"),
                               fmt::format("requests {} (event {})", text_of(s, "requested"),
                                           s.value("event", uint64_t{0})),
                               ++order));
  }
  if (flows.empty()) return ordered_json();
  ordered_json thread_flows = ordered_json::array();
  for (auto& [thread, steps] : flows)
    thread_flows.push_back({{"id", thread},
                            {"message", {{"text", "thread " + thread}}},
                            {"locations", std::move(steps)}});
  ordered_json flow;
  flow["message"]["text"] = what == "witness"
                                ? "The witness: a checked schedule of the run that reaches the race"
                                : "The order the recorded run executed them in";
  flow["threadFlows"] = std::move(thread_flows);
  return ordered_json::array({std::move(flow)});
}

}  // namespace

Baseline Baseline::read(const std::string& path) {
  const ordered_json doc = read_json_file(path, "baseline");
  Baseline b;
  b.file = path;
  if (is_sarif(doc)) {
    for (const ordered_json& run : doc["runs"])
      if (run.contains("results"))
        for (const ordered_json& r : run["results"])
          if (r.contains("partialFingerprints") &&
              r["partialFingerprints"].contains(kFingerprintKey))
            b.fingerprints.insert(r["partialFingerprints"][kFingerprintKey].get<std::string>());
    return b;
  }
  if (!is_racepred(doc) || doc.contains("error"))
    throw InputError("racepred: error: the baseline " + path +
                     " is neither a racepred JSON report nor a SARIF log");
  for (const ordered_json& f : report_findings(doc)) {
    const std::string fp = text_of(f, "fingerprint");
    if (fp.empty())
      throw InputError("racepred: error: the baseline " + path +
                       " has findings without fingerprints (written by an older racepred: "
                       "analyze again)");
    b.fingerprints.insert(fp);
  }
  return b;
}

FindingFilter::Verdict FindingFilter::judge(const Symbols& symbols, const Finding& finding,
                                            const std::string& fingerprint,
                                            int* suppression) const {
  const int s = suppressions.match(symbols, finding);
  if (s >= 0) {
    if (suppression) *suppression = s;
    return Verdict::Suppressed;
  }
  if (baseline && baseline->fingerprints.count(fingerprint)) return Verdict::InBaseline;
  return Verdict::Shown;
}

void write_filter_summary(std::ostream& out, const FindingFilter& filter,
                          const FilterSummary& summary) {
  const auto& list = filter.suppressions.list();
  if (!list.empty()) {
    bool any_used = false, any_unused = false;
    for (size_t i = 0; i < list.size(); ++i) (summary.used[i] ? any_used : any_unused) = true;
    if (any_used) {
      out << "Suppressions used:\n  count type:pattern (where)\n";
      for (size_t i = 0; i < list.size(); ++i)
        if (summary.used[i])
          out << fmt::format("  {:5} {}:{} ({}:{})\n", summary.used[i], list[i].type,
                             printable(list[i].pattern), printable(list[i].file), list[i].line);
    }
    if (any_unused) {
      out << "Suppressions not used:\n";
      for (size_t i = 0; i < list.size(); ++i)
        if (!summary.used[i])
          out << fmt::format("  {}:{} ({}:{})\n", list[i].type, printable(list[i].pattern),
                             printable(list[i].file), list[i].line);
    }
  }
  if (filter.baseline)
    out << fmt::format("Baseline {}: {} {} already in the baseline (not shown); {} new\n",
                       printable(filter.baseline->file), summary.in_baseline,
                       summary.in_baseline == 1 ? "finding" : "findings",
                       summary.shown_failing + summary.unlisted);
}

ordered_json filter_summary_json(const FindingFilter& filter, const FilterSummary& summary) {
  ordered_json j;
  ordered_json used = ordered_json::array();
  const auto& list = filter.suppressions.list();
  for (size_t i = 0; i < list.size(); ++i)
    used.push_back({{"type", list[i].type},
                    {"pattern", list[i].pattern},
                    {"file", list[i].file},
                    {"line", list[i].line},
                    {"count", summary.used[i]}});
  j["suppressions"] = std::move(used);
  j["suppressed"] = summary.suppressed;
  if (filter.baseline) {
    j["baseline"] = {{"file", filter.baseline->file},
                     {"fingerprints", filter.baseline->fingerprints.size()},
                     {"in_baseline", summary.in_baseline},
                     {"new", summary.shown_failing + summary.unlisted}};
  }
  j["unlisted_races"] = summary.unlisted;
  return j;
}

std::vector<ordered_json> report_findings(const ordered_json& doc) {
  std::vector<ordered_json> out;
  const std::string command = text_of(doc, "command");
  if (doc.contains("results")) {  // analyze
    for (const ordered_json& r : doc["results"])
      if (r.contains("findings"))
        for (ordered_json f : r["findings"]) {
          f["engine"] = text_of(r, "engine");
          out.push_back(std::move(f));
        }
  } else if (doc.contains("findings")) {  // explore, merge
    for (ordered_json f : doc["findings"]) {
      if (!f.contains("engine")) f["engine"] = "explore/" + text_of(doc, "engine");
      out.push_back(std::move(f));
    }
  }
  return out;
}

ordered_json sarif_log(const std::vector<ordered_json>& findings, std::string_view command,
                       const std::string& artifact) {
  ordered_json rules = ordered_json::array();
  std::map<std::string, size_t> rule_index;
  ordered_json results = ordered_json::array();
  std::map<std::string, size_t> result_index;  // rule + fingerprint -> results[i]
  for (const ordered_json& f : findings) {
    const std::string kind = text_of(f, "kind");
    const std::string engine = text_of(f, "engine");
    const std::string rule = kind + "/" + engine;
    auto [rit, new_rule] = rule_index.try_emplace(rule, rules.size());
    if (new_rule) {
      ordered_json r;
      r["id"] = rule;
      r["name"] = kind + " (" + engine + ")";
      r["shortDescription"]["text"] = rule_text(kind);
      r["fullDescription"]["text"] =
          rule_text(kind) + ", reported by racepred's engine " + engine + ".";
      r["defaultConfiguration"]["level"] = level_of(kind);
      r["properties"]["tags"] = ordered_json::array({"concurrency", kind});
      rules.push_back(std::move(r));
    }
    const std::string fp = text_of(f, "fingerprint");
    const uint64_t count = f.value("count", uint64_t{1});
    const auto [it, fresh] = result_index.try_emplace(rule + "\x1f" + fp, results.size());
    if (!fresh) {
      ordered_json& old = results[it->second]["properties"];
      old["count"] = old["count"].get<uint64_t>() + count;
      continue;
    }
    ordered_json r;
    r["ruleId"] = rule;
    r["ruleIndex"] = rit->second;
    r["level"] = level_of(kind);
    r["message"]["text"] = result_message(f);
    ordered_json locations = ordered_json::array();
    ordered_json related = ordered_json::array();
    int id = 0;
    const auto add = [&](const std::string& name, const std::string& message) {
      if (name.empty()) return;
      locations.push_back(sarif_location(name, message));
      ordered_json rel = sarif_location(name, message);
      rel["id"] = ++id;
      related.push_back(std::move(rel));
    };
    if (kind == "data-race" || kind == "read-read-violation") {
      add(text_of(f, "second_location"), "access by thread " + text_of(f, "second_thread"));
      add(text_of(f, "first_location"), "previous access by thread " + text_of(f, "first_thread"));
    } else if (kind == "deadlock" && f.contains("cycle")) {
      for (const ordered_json& s : f["cycle"])
        add(text_of(s, "location"),
            "thread " + text_of(s, "thread") + " requests " + text_of(s, "requested"));
    } else {
      add(text_of(f, "location"), "thread " + text_of(f, "thread"));
    }
    if (!locations.empty()) r["locations"] = std::move(locations);
    if (!related.empty()) r["relatedLocations"] = std::move(related);
    const ordered_json flows = code_flows(f);
    if (!flows.is_null()) r["codeFlows"] = flows;
    if (!fp.empty()) r["partialFingerprints"][kFingerprintKey] = fp;
    r["properties"]["engine"] = engine;
    if (f.contains("confidence")) r["properties"]["confidence"] = f["confidence"];
    if (f.contains("variable")) r["properties"]["variable"] = f["variable"];
    r["properties"]["count"] = count;
    results.push_back(std::move(r));
  }
  ordered_json driver;
  driver["name"] = "racepred";
  driver["version"] = RACEPRED_VERSION;
  driver["rules"] = std::move(rules);
  ordered_json run;
  run["tool"]["driver"] = std::move(driver);
  run["automationDetails"]["id"] = std::string(command) + "/";
  if (!artifact.empty())
    run["artifacts"] = ordered_json::array({{{"location", {{"uri", uri_of(artifact)}}},
                                             {"roles", ordered_json::array({"analysisTarget"})}}});
  run["originalUriBaseIds"]["%SRCROOT%"]["description"]["text"] =
      "The directory the recorded program's relative source paths are relative to";
  run["results"] = std::move(results);
  ordered_json log;
  log["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  log["version"] = "2.1.0";
  log["runs"] = ordered_json::array({std::move(run)});
  return log;
}

ordered_json merge_reports(const std::vector<std::string>& paths) {
  ordered_json merged = ordered_json::array();
  std::map<std::string, size_t> index;  // kind + fingerprint
  for (const std::string& path : paths) {
    const ordered_json doc = read_json_file(path, "report");
    if (!is_racepred(doc) || doc.contains("error") ||
        (!doc.contains("results") && !doc.contains("findings")))
      throw InputError("racepred: error: " + path +
                       " is not a racepred JSON report (analyze, explore or merge with "
                       "--format json)");
    std::set<size_t> seen_here;
    for (ordered_json& f : report_findings(doc)) {
      const std::string fp = text_of(f, "fingerprint");
      if (fp.empty())
        throw InputError("racepred: error: " + path +
                         " has findings without fingerprints (written by an older racepred)");
      const uint64_t count = f.value("count", uint64_t{1});
      const uint64_t runs = f.value("runs", uint64_t{1});
      const std::string engine = text_of(f, "engine");
      const auto [it, fresh] = index.try_emplace(text_of(f, "kind") + "\x1f" + fp, merged.size());
      if (fresh) {
        if (!f.contains("first_seen")) f["first_seen"] = path;
        f["runs"] = runs;
        f["engines"] = f.contains("engines") ? f["engines"] : ordered_json::array({engine});
        merged.push_back(std::move(f));
        seen_here.insert(it->second);
        continue;
      }
      ordered_json& m = merged[it->second];
      m["count"] = m.value("count", uint64_t{0}) + count;
      if (!seen_here.count(it->second)) m["runs"] = m["runs"].get<uint64_t>() + runs;
      seen_here.insert(it->second);
      const ordered_json engines =
          f.contains("engines") ? f["engines"] : ordered_json::array({engine});
      for (const ordered_json& e : engines)
        if (std::find(m["engines"].begin(), m["engines"].end(), e) == m["engines"].end())
          m["engines"].push_back(e);
    }
  }
  ordered_json doc;
  doc["inputs"] = paths;
  ordered_json counts = ordered_json::object();
  for (FindingKind kind : kFindingKinds) {
    uint64_t n = 0;
    for (const ordered_json& f : merged) n += text_of(f, "kind") == finding_kind_name(kind);
    counts[std::string(finding_kind_name(kind))] = n;
  }
  doc["counts"] = std::move(counts);
  doc["findings"] = std::move(merged);
  return doc;
}

}  // namespace racepred
