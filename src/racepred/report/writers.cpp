#include "racepred/report/writers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string_view>

#include "racepred/trace/printable.hpp"

namespace racepred {
namespace {

// "1 race", "2 races".
std::string count_of(uint64_t n, std::string_view singular, std::string_view plural) {
  return fmt::format("{} {}", n, n == 1 ? singular : plural);
}

std::string_view capitalized_op(Op op) {
  return op == Op::Write ? "Write" : "Read";
}
std::string_view lower_op(Op op) {
  return op == Op::Write ? "write" : "read";
}

// "Write of x by thread T2 at L9 (event 40)"; names with control characters escaped.
std::string describe_access(const Symbols& symbols, const Access& a, VariableId variable,
                            bool previous) {
  return fmt::format(
      "{} of {} by thread {} at {} (event {})",
      previous ? fmt::format("Previous {}", lower_op(a.op)) : std::string(capitalized_op(a.op)),
      printable(symbols.variables.name(variable)), printable(symbols.threads.name(a.thread)),
      printable(symbols.locations.name(a.location)), a.event);
}

// "x held by T1, y held by T3"
std::string describe_guards(const Symbols& symbols, const std::vector<GuardLock>& guards) {
  std::string out;
  for (const GuardLock& g : guards) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} held by {}", symbols.locks.name(g.lock), symbols.threads.name(g.thread));
  }
  return out.empty() ? "none" : out;
}

nlohmann::ordered_json guards_json(const Symbols& symbols, const std::vector<GuardLock>& guards) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const GuardLock& g : guards)
    a.push_back({{"lock", symbols.locks.name(g.lock)}, {"thread", symbols.threads.name(g.thread)}});
  return a;
}

// Blocks are separated by a line of '='; `open` says whether a block awaits its closing line.
void write_engine_blocks(std::ostream& out, const Report& report, const EngineReport& result,
                         bool& open) {
  const Symbols& symbols = *report.symbols;
  const RaceSink& sink = *result.sink;
  const bool truncated = sink.truncated();
  const std::vector<LocationPairSummary> pairs = sink.location_pairs();
  for (const LocationPairSummary& pair : pairs) {
    const Race& race = pair.example;
    out << "==================\n";
    if (race_kind(race) == RaceKind::ReadRead)
      out << "WARNING: read-read discipline violation (engine " << result.engine
          << "), not a data race: two reads not ordered by its discipline\n";
    else
      out << "WARNING: data race (engine " << result.engine << ")\n";

    out << "  " << describe_access(symbols, race.second, race.variable, false) << '\n';
    if (race.first.known()) {
      out << "  " << describe_access(symbols, race.first, race.variable, true) << '\n';
      out << "  " << count_of(pair.count, "race", "races") << (truncated ? " listed" : "")
          << " at this pair of locations ("
          << printable(symbols.locations.name(race.first.location)) << ", "
          << printable(symbols.locations.name(race.second.location)) << ")"
          << (pair.count > 1 ? "; the first detected is shown" : "") << '\n';
      if (&pair == &pairs.front()) {
        out << "  This is the first race " << result.engine << " detected (by the later event)";
        if (result.first_race_claim)
          out << ": the one its guarantee is about\n";
        else
          out << "; " << result.engine << " does not claim that it is real\n";
      }
      if (const RaceGuards* g = sink.guards(race))
        out << "  Cross-thread guard locks: previous access " << describe_guards(symbols, g->first)
            << "; access " << describe_guards(symbols, g->second) << '\n';
    } else {
      out << "  Previous access: not known (engine " << result.engine
          << " reports the later access of each race)\n";
      out << "  " << count_of(pair.count, "race", "races") << (truncated ? " listed" : "")
          << " at location " << printable(symbols.locations.name(race.second.location))
          << (pair.count > 1 ? "; the first detected is shown" : "") << '\n';
    }
  }
  if (!pairs.empty()) open = true;
  if (sink.tracks_guards()) {
    if (open) out << "==================\n";
    open = false;
    out << "note: engine " << result.engine << ": "
        << count_of(sink.cs_guarded_location_pairs(), "location pair", "location pairs")
        << " with races removed by a cross-thread guard lock, "
        << count_of(sink.guard_confirmations(), "guard-lock confirmation",
                    "guard-lock confirmations")
        << '\n';
  }
  if (truncated) {
    if (open) out << "==================\n";
    open = false;
    out << "note: engine " << result.engine << " lists the first " << sink.races().size() << " of "
        << sink.race_count() << " races (--max-races " << sink.max_kept()
        << "); the SUMMARY counts all races\n";
  }
}

}  // namespace

std::string summary_line(const Report& report, const EngineReport& result) {
  if (!result.error.empty())
    return fmt::format("SUMMARY: racepred: engine {} FAILED, no result, in {} ({}, {:.3f} s)",
                       result.engine, printable(report.trace.path),
                       count_of(report.trace.events, "event", "events"), result.seconds);
  const RaceSink& sink = *result.sink;
  const std::string read_read =
      sink.read_read_count()
          ? fmt::format(" and {} (not data races)",
                        count_of(sink.read_read_count(), "read-read discipline violation",
                                 "read-read discipline violations"))
          : "";
  return fmt::format("SUMMARY: racepred: {}{} ({}, {}) with engine {} in {} ({}, {:.3f} s)",
                     count_of(sink.data_race_count(), "race", "races"), read_read,
                     count_of(sink.racy_event_count(), "racy event", "racy events"),
                     count_of(sink.racy_location_count(), "racy location", "racy locations"),
                     result.engine, printable(report.trace.path),
                     count_of(report.trace.events, "event", "events"), result.seconds);
}

void write_text_report(std::ostream& out, const Report& report) {
  bool open = false;
  for (const EngineReport& result : report.results) {
    if (!result.error.empty()) {
      out << "==================\nERROR: engine " << result.engine
          << " failed; the other engines' results stand\n  " << result.error << '\n';
      open = true;
      continue;
    }
    write_engine_blocks(out, report, result, open);
  }
  if (open) out << "==================\n";
  for (const EngineReport& result : report.results) out << summary_line(report, result) << '\n';
}

TraceInfo TraceInfo::of(std::string path, const Symbols& symbols, const ReadSummary& read,
                        uint64_t events, bool with_format) {
  TraceInfo t;
  t.path = std::move(path);
  t.events = events;
  t.threads = symbols.threads.size();
  t.variables = symbols.variables.size();
  t.locks = symbols.locks.size();
  t.skipped_events = read.event_lines - events;
  if (with_format) t.format = read.format;
  return t;
}

nlohmann::ordered_json trace_json(const TraceInfo& t) {
  nlohmann::ordered_json j;
  j["path"] = t.path;
  if (!t.format.empty()) j["format"] = t.format;
  j["events"] = t.events;
  j["threads"] = t.threads;
  j["variables"] = t.variables;
  j["locks"] = t.locks;
  j["skipped_events"] = t.skipped_events;
  return j;
}

nlohmann::ordered_json json_header(std::string_view command) {
  nlohmann::ordered_json j;
  j["schema"] = kJsonSchema;
  j["command"] = command;
  j["version"] = RACEPRED_VERSION;
  return j;
}

void write_json(std::ostream& out, const nlohmann::ordered_json& doc) {
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

nlohmann::ordered_json race_json(const Symbols& symbols, const Race& race) {
  using nlohmann::ordered_json;
  ordered_json r;
  const bool known = race.first.known();
  r["first"] = known ? ordered_json(race.first.event) : ordered_json(nullptr);
  r["second"] = race.second.event;
  r["variable"] = symbols.variables.name(race.variable);
  r["kind"] = known ? ordered_json(race_kind_name(race_kind(race))) : ordered_json(nullptr);
  r["first_thread"] =
      known ? ordered_json(symbols.threads.name(race.first.thread)) : ordered_json(nullptr);
  r["second_thread"] = symbols.threads.name(race.second.thread);
  r["first_location"] =
      known ? ordered_json(symbols.locations.name(race.first.location)) : ordered_json(nullptr);
  r["second_location"] = symbols.locations.name(race.second.location);
  return r;
}

nlohmann::ordered_json json_report(const Report& report) {
  using nlohmann::ordered_json;
  const Symbols& symbols = *report.symbols;
  ordered_json root = json_header(report.command);
  root["trace"] = trace_json(report.trace);
  ordered_json results = ordered_json::array();
  for (const EngineReport& result : report.results) {
    const RaceSink& sink = *result.sink;
    ordered_json races = ordered_json::array();
    for (const Race& race : sink.races()) {  // sorted by (first, second) after finalize()
      ordered_json r = race_json(symbols, race);
      if (const RaceGuards* g = sink.guards(race)) {
        r["first_guard_locks"] = guards_json(symbols, g->first);
        r["second_guard_locks"] = guards_json(symbols, g->second);
      }
      races.push_back(std::move(r));
    }
    std::vector<std::string_view> locations;
    for (LocationId l : sink.racy_locations()) locations.push_back(symbols.locations.name(l));
    std::sort(locations.begin(), locations.end());
    ordered_json entry;
    entry["engine"] = result.engine;
    entry["races"] = std::move(races);
    entry["race_count"] = sink.race_count();
    entry["racy_events"] = sink.racy_events();
    entry["racy_event_count"] = sink.racy_event_count();
    entry["racy_locations"] = locations;
    entry["racy_location_count"] = sink.racy_location_count();
    entry["truncated"] = sink.lists_truncated();
    entry["first_detected"] = sink.has_first_detected() ? race_json(symbols, sink.first_detected())
                                                        : ordered_json(nullptr);
    if (sink.tracks_guards()) {
      entry["location_pair_count"] = sink.location_pair_count();
      entry["cs_guarded_location_pairs"] = sink.cs_guarded_location_pairs();
      entry["guard_lock_confirmations"] = sink.guard_confirmations();
    }
    entry["seconds"] = result.seconds;
    if (sink.read_read_count())  // goldilocks only: counted in race_count, not data races
      entry["read_read_count"] = sink.read_read_count();
    if (!result.error.empty()) {  // the engine has no result: its lists and counts are empty
      entry["failed"] = true;
      entry["error"] = result.error;
    }
    results.push_back(std::move(entry));
  }
  root["results"] = std::move(results);
  return root;
}

void write_json_report(std::ostream& out, const Report& report) {
  write_json(out, json_report(report));
}

}  // namespace racepred
