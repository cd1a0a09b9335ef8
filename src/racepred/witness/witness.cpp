#include "racepred/witness/witness.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "racepred/trace/error.hpp"

namespace racepred::witness {

namespace {

constexpr std::string_view kSchema = "racepred-witness/1";

using json = nlohmann::ordered_json;

// Runs of consecutive ids become [first, last].
json compact(const std::vector<EventId>& ids) {
  json out = json::array();
  for (size_t i = 0; i < ids.size();) {
    size_t j = i + 1;
    while (j < ids.size() && ids[j] == ids[j - 1] + 1) ++j;
    if (j - i >= 3) {
      out.push_back(json::array({ids[i], ids[j - 1]}));
    } else {
      for (size_t k = i; k < j; ++k) out.push_back(ids[k]);
    }
    i = j;
  }
  return out;
}

std::string line_column(std::string_view text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

std::string_view notion_name(Notion notion) {
  return notion == Notion::Adjacent ? "adjacent" : "enabled";
}

std::string to_json(const WitnessFile& file) {
  // One witness per line: a file of many long witnesses stays readable and diffable.
  std::string out = "{\n \"schema\": " + json(kSchema).dump() +
                    ",\n \"trace\": " + json(file.trace).dump() + ",\n \"witnesses\": [";
  for (size_t k = 0; k < file.witnesses.size(); ++k) {
    const Witness& w = file.witnesses[k];
    json entry;
    entry["engine"] = w.engine;
    entry["notion"] = notion_name(w.notion);
    entry["race"] = json::array({w.first, w.second});
    if (!w.cut.empty()) entry["cut"] = w.cut;
    entry["prefix"] = compact(w.prefix);
    out += (k == 0 ? "\n  " : ",\n  ") + entry.dump();
  }
  return out + (file.witnesses.empty() ? "]\n}\n" : "\n ]\n}\n");
}

WitnessFile parse_witness_file(std::string_view text, std::string_view name, uint64_t max_events) {
  const std::string file(name);
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const size_t cut = what.find("parse error");
    if (cut != std::string::npos) what = what.substr(cut);
    throw InputError(file + ":" + line_column(text, e.byte == 0 ? 0 : e.byte - 1) +
                     ": error: not a witness file: " + what);
  }
  const auto bad = [&](const std::string& where, const std::string& what) {
    return InputError(file + ": error: " + where + (where.empty() ? "" : ": ") + what);
  };
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != kSchema)
    throw bad("", "not a witness file (expected \"schema\": \"" + std::string(kSchema) + "\")");
  WitnessFile out;
  if (doc.contains("trace")) {
    if (!doc["trace"].is_string()) throw bad("\"trace\"", "must be a string");
    out.trace = doc["trace"].get<std::string>();
  }
  if (!doc.contains("witnesses") || !doc["witnesses"].is_array())
    throw bad("", "\"witnesses\" must be an array");
  const auto id_of = [&](const json& v, const std::string& where) -> EventId {
    if (!v.is_number_unsigned() || v.get<uint64_t>() == 0)
      throw bad(where, "an event id (a positive integer) expected, got " + v.dump());
    return v.get<uint64_t>();
  };
  size_t number = 0;
  for (const json& entry : doc["witnesses"]) {
    const std::string where = "witness " + std::to_string(++number);
    if (!entry.is_object()) throw bad(where, "must be an object");
    Witness w;
    if (entry.contains("engine")) {
      if (!entry["engine"].is_string()) throw bad(where + " \"engine\"", "must be a string");
      w.engine = entry["engine"].get<std::string>();
    }
    const json notion = entry.value("notion", json("adjacent"));
    if (notion == "adjacent") {
      w.notion = Notion::Adjacent;
    } else if (notion == "enabled") {
      w.notion = Notion::Enabled;
    } else {
      throw bad(where + " \"notion\"",
                "\"adjacent\" or \"enabled\" expected, got " + notion.dump());
    }
    if (!entry.contains("race") || !entry["race"].is_array() || entry["race"].size() != 2)
      throw bad(where + " \"race\"", "two event ids expected");
    w.first = id_of(entry["race"][0], where + " \"race\"");
    w.second = id_of(entry["race"][1], where + " \"race\"");
    if (entry.contains("cut")) {
      const json& cut = entry["cut"];
      if (!cut.is_array() || cut.size() > max_events)
        throw bad(where + " \"cut\"", "an array of event ids (one per thread) expected");
      size_t item = 0;
      for (const json& v : cut)
        w.cut.push_back(id_of(v, where + " \"cut\" item " + std::to_string(++item)));
    }
    if (!entry.contains("prefix") || !entry["prefix"].is_array())
      throw bad(where + " \"prefix\"", "an array of event ids and [first, last] runs expected");
    size_t item = 0;
    for (const json& v : entry["prefix"]) {
      const std::string at = where + " \"prefix\" item " + std::to_string(++item);
      if (v.is_array()) {
        if (v.size() != 2) throw bad(at, "a run is [first, last]");
        const EventId a = id_of(v[0], at), b = id_of(v[1], at);
        if (a > b) throw bad(at, "a run [first, last] needs first <= last");
        if (b - a >= max_events - std::min<uint64_t>(max_events, w.prefix.size()))
          throw bad(where, "more events than the trace has (" + std::to_string(max_events) + ")");
        for (EventId id = a; id <= b; ++id) w.prefix.push_back(id);
      } else {
        if (w.prefix.size() >= max_events)
          throw bad(where, "more events than the trace has (" + std::to_string(max_events) + ")");
        w.prefix.push_back(id_of(v, at));
      }
    }
    out.witnesses.push_back(std::move(w));
  }
  return out;
}

}  // namespace racepred::witness
