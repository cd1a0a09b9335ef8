#include "racepred/report/writers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <string_view>
#include <unordered_map>

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

// "x held by T1, y held in read mode by T3"
std::string describe_locks(const Symbols& symbols, const std::vector<HeldLock>& locks) {
  std::string out;
  for (const HeldLock& g : locks) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} held {}by {}", printable(symbols.locks.name(g.lock)),
                       g.read ? "in read mode " : "", printable(symbols.threads.name(g.thread)));
    if (g.acquired != kNoEvent)
      out += fmt::format(" (acquired at {}, event {})",
                         printable(symbols.locations.name(g.location)), g.acquired);
  }
  return out.empty() ? "none" : out;
}

// ---- call stacks (traces recorded with `record --stack-depth`): ThreadSanitizer's layout ----

// A recorded location "FILE:LINE:COL (FUNCTION)" as a frame's function and place.
std::pair<std::string_view, std::string_view> frame_parts(std::string_view location) {
  const size_t open = location.rfind(" (");
  if (open == std::string_view::npos || location.back() != ')') return {"", location};
  return {location.substr(open + 2, location.size() - open - 3), location.substr(0, open)};
}

// "    #0 FUNCTION FILE:LINE:COL" per frame.
void write_stack(std::ostream& out, const Symbols& symbols, const std::vector<LocationId>& frames) {
  for (size_t i = 0; i < frames.size(); ++i) {
    const auto [function, place] = frame_parts(symbols.locations.name(frames[i]));
    out << "    #" << i << ' ';
    if (!function.empty()) out << printable(function) << ' ';
    out << printable(place) << '\n';
  }
}

// "main thread" for the first thread when nothing created it, else "thread T2".
std::string thread_words(const Symbols& symbols, ThreadId t) {
  const bool created = t < symbols.stacks.created.size() && symbols.stacks.created[t].stack;
  if (t == 0 && !created) return "main thread";
  return "thread " + printable(symbols.threads.name(t));
}

nlohmann::ordered_json stack_json(const Symbols& symbols, const std::vector<LocationId>& frames) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const LocationId f : frames) {
    const auto [function, place] = frame_parts(symbols.locations.name(f));
    a.push_back({{"function", function}, {"location", place}});
  }
  return a;
}

// The "threads" of a race with stacks: where each of its threads was created.
nlohmann::ordered_json creations_json(const Symbols& symbols, const Race& race) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  std::vector<ThreadId> threads{race.second.thread};
  if (race.first.known() && race.first.thread != race.second.thread)
    threads.push_back(race.first.thread);
  for (const ThreadId t : threads) {
    nlohmann::ordered_json j = {{"thread", symbols.threads.name(t)}};
    if (t < symbols.stacks.created.size() && symbols.stacks.created[t].stack) {
      const Stacks::Creation& c = symbols.stacks.created[t];
      j["created_by"] = symbols.threads.name(c.parent);
      j["created_at"] = stack_json(symbols, symbols.stacks.frames[c.stack]);
    } else {
      j["created_by"] = nullptr;
    }
    a.push_back(std::move(j));
  }
  return a;
}

nlohmann::ordered_json locks_json(const Symbols& symbols, const std::vector<HeldLock>& locks) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const HeldLock& g : locks) {
    a.push_back({{"lock", symbols.locks.name(g.lock)}, {"thread", symbols.threads.name(g.thread)}});
    if (g.read) a.back()["mode"] = "read";
    if (g.acquired != kNoEvent) {
      a.back()["acquired"] = g.acquired;
      a.back()["location"] = symbols.locations.name(g.location);
      if (const auto& frames = symbols.stacks.of(g.acquired); !frames.empty())
        a.back()["stack"] = stack_json(symbols, frames);
    }
  }
  return a;
}

// Where a block stands in its engine's report.
struct RaceContext {
  bool truncated = false;  // the engine's race list is cut (--max-races)
  bool claimed = false;    // the race shown is the one the engine's first-race claim is about
  bool labelled = false;   // print `confidence` (a whole report; not write_text_finding)
  Confidence confidence = Confidence::Possible;
  const WitnessSummary* witness = nullptr;  // the shown race's checked witness, if any
  std::string_view witness_file;
  const std::map<EventId, std::vector<HeldLock>>* held_locks = nullptr;  // Report::held_locks
};

// ", predicted" after the engine's name in a WARNING line of a labelled block.
std::string label_of(const RaceContext& context) {
  return context.labelled ? fmt::format(", {}", confidence_name(context.confidence)) : "";
}

// The race a first-race claim is about (engines/engine.hpp, Soundness::FirstRace): the earliest
// racy event with its latest reported partner. None when --max-races may have cut partners of
// that event, or the engine makes no such claim.
std::optional<Race> claimed_race(const EngineReport& result) {
  if (!result.first_race_claim || !result.error.empty() || !result.sink) return std::nullopt;
  const RaceSink& sink = *result.sink;
  if (!sink.has_first_detected() || !sink.first_detected().first.known()) return std::nullopt;
  const EventId e = sink.first_detected().second.event;
  const std::vector<Race>& kept = sink.races();
  if (kept.empty()) return std::nullopt;
  // The kept races are the first in detection order: the partners of e are all kept unless the
  // last kept race is still at e.
  if (sink.truncated() &&
      std::max_element(kept.begin(), kept.end(), detected_before)->second.event == e)
    return std::nullopt;
  std::optional<Race> claimed;
  for (const Race& race : kept)
    if (race.second.event == e && (!claimed || claimed->first.event < race.first.event))
      claimed = race;
  return claimed;
}

Confidence more_certain(Confidence a, Confidence b) {
  return std::min(a, b);  // Reproduced < Observed < Witnessed < Predicted < Possible
}

// "T1|acq(m)|L2 (event 2)": an event in STD form with the trace's names.
std::string describe_event(const Symbols& symbols, EventId id, const Event& e) {
  std::string_view target;
  if (e.is_access()) {
    target = symbols.variables.name(e.target);
  } else if (e.op == Op::Fork || e.op == Op::Join) {
    target = symbols.threads.name(e.target);
  } else {
    target = symbols.locks.name(e.target);
  }
  return fmt::format("{}|{}({})|{} (event {})", printable(symbols.threads.name(e.thread)),
                     op_name(e.op), printable(target),
                     printable(symbols.locations.name(e.location)), id);
}

// The interleaving around the race: the end of the witness' prefix, then how the pair meets.
void write_witness(std::ostream& out, const Symbols& symbols, const WitnessSummary& w,
                   std::string_view file) {
  out << "  Witness " << w.number << (file.empty() ? "" : fmt::format(" in {}", printable(file)))
      << ": a schedule of " << count_of(w.events, "event", "events") << " (checked)"
      << (w.adjacent ? ", ending with the two accesses back to back"
                     : ", after which both accesses are next")
      << ":\n";
  if (w.hidden > 0)
    out << "    ... " << count_of(w.hidden, "more event", "more events")
        << " (the last few of each thread follow)\n";
  for (const WitnessSummary::Step& step : w.tail)
    out << "    " << describe_event(symbols, step.id, step.event) << '\n';
  if (!w.adjacent)
    out << "    then both are next: " << describe_event(symbols, w.first.id, w.first.event)
        << " and " << describe_event(symbols, w.second.id, w.second.event) << '\n';
}

// The locks an access held, each with the stack where it was acquired.
// `locks_text` is the engine's word for them ("Locks": the locks the accessing thread held).
void write_held_locks(std::ostream& out, const Symbols& symbols, const std::vector<HeldLock>& locks,
                      std::string_view locks_text) {
  for (const HeldLock& g : locks) {
    out << "  " << (locks_text == "Locks" ? std::string("Mutex") : std::string(locks_text) + ":")
        << ' ' << printable(symbols.locks.name(g.lock)) << (g.read ? " (read mode)" : "")
        << " held by " << thread_words(symbols, g.thread);
    if (g.acquired == kNoEvent) {
      out << '\n';
      continue;
    }
    out << " acquired at (event " << g.acquired << "):\n";
    const std::vector<LocationId>& frames = symbols.stacks.of(g.acquired);
    if (frames.empty())
      out << "    #0 " << printable(symbols.locations.name(g.location)) << '\n';
    else
      write_stack(out, symbols, frames);
  }
}

// A race of a trace with stacks, as ThreadSanitizer prints it: both accesses with their stacks,
// the locks they held, the threads' creation sites, and a SUMMARY line of the race.
void write_race_stacks(std::ostream& out, const Symbols& symbols, const Finding& f,
                       std::string_view engine, std::string_view locks_text,
                       const RaceContext& context) {
  const Race& race = f.race;
  auto access = [&](const Access& a, bool previous) {
    out << "  "
        << (previous ? fmt::format("Previous {}", lower_op(a.op))
                     : std::string(capitalized_op(a.op)))
        << " of " << printable(symbols.variables.name(race.variable)) << " by "
        << thread_words(symbols, a.thread) << " (event " << a.event << "):\n";
    const std::vector<LocationId>& frames = symbols.stacks.of(a.event);
    if (frames.empty())
      out << "    #0 " << printable(symbols.locations.name(a.location)) << '\n';
    else
      write_stack(out, symbols, frames);
    if (context.held_locks) {
      const auto it = context.held_locks->find(a.event);
      if (it != context.held_locks->end()) write_held_locks(out, symbols, it->second, "Locks");
    }
  };
  access(race.second, false);
  if (f.locks) write_held_locks(out, symbols, f.locks->second, locks_text);
  out << '\n';
  if (race.first.known()) {
    access(race.first, true);
    if (f.locks) write_held_locks(out, symbols, f.locks->first, locks_text);
    out << '\n';
  } else {
    out << "  Previous access: not known (engine " << engine
        << " reports the later access of each race)\n\n";
  }
  std::vector<ThreadId> threads{race.second.thread};
  if (race.first.known() && race.first.thread != race.second.thread)
    threads.push_back(race.first.thread);
  for (const ThreadId t : threads) {
    if (t >= symbols.stacks.created.size() || symbols.stacks.created[t].stack == 0) continue;
    const Stacks::Creation& c = symbols.stacks.created[t];
    out << "  Thread " << printable(symbols.threads.name(t)) << " created by "
        << thread_words(symbols, c.parent) << " at:\n";
    write_stack(out, symbols, symbols.stacks.frames[c.stack]);
    out << '\n';
  }
  out << "  " << count_of(f.count, "race", "races") << (context.truncated ? " listed" : "")
      << " at this pair of locations"
      << (f.count > 1 ? context.claimed ? "; the one the first-race guarantee is about is shown"
                                        : "; the first detected is shown"
                      : "")
      << '\n';
  if (context.labelled) out << "  " << confidence_sentence(context.confidence) << '\n';
  if (context.witness) write_witness(out, symbols, *context.witness, context.witness_file);
  const auto [function, place] = frame_parts(symbols.locations.name(race.second.location));
  out << "  SUMMARY: racepred: " << (f.kind == FindingKind::DataRace ? "data race " : "read-read ")
      << printable(place);
  if (!function.empty()) out << " in " << printable(function);
  out << '\n';
}

// Whether a race is printed with stacks: the trace has them and its later access has one.
bool with_stacks(const Symbols& symbols, const Race& race) {
  return !symbols.stacks.empty() && !symbols.stacks.of(race.second.event).empty();
}

void write_race_block(std::ostream& out, const Symbols& symbols, const Finding& f,
                      std::string_view engine, std::string_view locks_text,
                      const RaceContext& context) {
  const Race& race = f.race;
  if (with_stacks(symbols, race))
    return write_race_stacks(out, symbols, f, engine, locks_text, context);
  out << "  " << describe_access(symbols, race.second, race.variable, false) << '\n';
  if (race.first.known()) {
    out << "  " << describe_access(symbols, race.first, race.variable, true) << '\n';
    out << "  " << count_of(f.count, "race", "races") << (context.truncated ? " listed" : "")
        << " at this pair of locations (" << printable(symbols.locations.name(race.first.location))
        << ", " << printable(symbols.locations.name(race.second.location)) << ")"
        << (f.count > 1 ? context.claimed ? "; the one the first-race guarantee is about is shown"
                                          : "; the first detected is shown"
                        : "")
        << '\n';
    if (f.locks)
      out << "  " << locks_text << ": previous access " << describe_locks(symbols, f.locks->first)
          << "; access " << describe_locks(symbols, f.locks->second) << '\n';
  } else {
    out << "  Previous access: not known (engine " << engine
        << " reports the later access of each race)\n";
    out << "  " << count_of(f.count, "race", "races") << (context.truncated ? " listed" : "")
        << " at location " << printable(symbols.locations.name(race.second.location))
        << (f.count > 1 ? "; the first detected is shown" : "") << '\n';
  }
  if (context.labelled) out << "  " << confidence_sentence(context.confidence) << '\n';
  if (context.witness) write_witness(out, symbols, *context.witness, context.witness_file);
}

void write_deadlock_block(std::ostream& out, const Symbols& symbols, const Deadlock& d) {
  // The locks in cycle order, as ThreadSanitizer prints them: each step requests the lock the
  // next one holds.
  if (!d.cycle.empty()) {
    out << "  Cycle in lock order graph: "
        << printable(symbols.locks.name(d.cycle.back().requested));
    for (const DeadlockStep& step : d.cycle)
      out << " => " << printable(symbols.locks.name(step.requested));
    out << '\n';
  }
  for (const DeadlockStep& step : d.cycle) {
    out << "  Thread " << printable(symbols.threads.name(step.thread)) << " holds ";
    if (step.held.empty()) {
      out << "no lock";
    } else {
      for (size_t i = 0; i < step.held.size(); ++i) {
        const HeldLock& h = step.held[i];
        out << (i ? ", " : "") << printable(symbols.locks.name(h.lock))
            << (h.read ? " (read mode)" : "");
        if (h.acquired != kNoEvent)
          out << " (acquired at " << printable(symbols.locations.name(h.location)) << ", event "
              << h.acquired << ")";
      }
    }
    out << " and requests " << printable(symbols.locks.name(step.requested)) << " at "
        << printable(symbols.locations.name(step.location)) << " (event " << step.event << ")\n";
  }
  if (!d.witness.empty()) {
    out << "  Witness: " << count_of(d.witness.size(), "event", "events") << ":";
    for (EventId id : d.witness) out << ' ' << id;
    out << '\n';
  }
}

void write_failure_block(std::ostream& out, const Symbols& symbols, const Failure& f) {
  if (!f.message.empty()) out << "  " << printable(f.message) << '\n';
  if (f.has_thread)
    out << "  In thread " << printable(symbols.threads.name(f.thread)) << " at "
        << printable(symbols.locations.name(f.location)) << '\n';
  if (!f.schedule.replay_file.empty())
    out << "  Replay: " << printable(f.schedule.replay_file) << '\n';
  if (!f.schedule.choices.empty()) {
    out << "  Schedule:";
    for (ThreadId t : f.schedule.choices) out << ' ' << printable(symbols.threads.name(t));
    out << '\n';
  }
}

// "WARNING: …" and the finding's lines.
void write_finding(std::ostream& out, const Symbols& symbols, const Finding& f,
                   std::string_view engine, std::string_view locks_text,
                   const RaceContext& context) {
  switch (f.kind) {
    case FindingKind::DataRace:
      out << "WARNING: " << (with_stacks(symbols, f.race) ? "racepred: " : "")
          << "data race (engine " << engine << label_of(context) << ")\n";
      write_race_block(out, symbols, f, engine, locks_text, context);
      return;
    case FindingKind::ReadReadViolation:
      out << "WARNING: read-read discipline violation (engine " << engine << label_of(context)
          << "), not a data race: two reads not ordered by its discipline\n";
      write_race_block(out, symbols, f, engine, locks_text, context);
      return;
    case FindingKind::Deadlock:
      out << "WARNING: deadlock (engine " << engine << label_of(context) << "): a cycle of "
          << count_of(f.deadlock.cycle.size(), "thread", "threads") << '\n';
      write_deadlock_block(out, symbols, f.deadlock);
      return;
    case FindingKind::Failure:
      out << "WARNING: program failure (engine " << engine << label_of(context)
          << "): " << failure_kind_name(f.failure.kind);
      if (f.failure.kind == FailureKind::Crash && f.failure.signal != 0)
        out << " (signal " << f.failure.signal << ")";
      if (f.count > 1) out << ", " << count_of(f.count, "time", "times");
      out << '\n';
      write_failure_block(out, symbols, f.failure);
      return;
  }
}

// Whether the report's filter (suppressions, baseline) lets the finding be listed.
bool shown(const Report& report, const Finding& f, const std::string& fingerprint) {
  return !report.filter || !report.filter->active() ||
         report.filter->judge(*report.symbols, f, fingerprint) == FindingFilter::Verdict::Shown;
}

// Blocks are separated by a line of '='; `open` says whether a block awaits its closing line.
void write_engine_blocks(std::ostream& out, const Report& report, const EngineReport& result,
                         bool& open) {
  const Symbols& symbols = *report.symbols;
  const RaceSink& sink = *result.sink;
  const EngineExtras& extras = sink.extras();
  const std::string_view locks_text =
      extras.locks_text.empty() ? std::string_view("Locks") : std::string_view(extras.locks_text);
  RaceContext context;
  context.truncated = sink.truncated();
  context.labelled = true;
  context.held_locks = report.held_locks;
  const std::vector<LabelledPair> pairs = labelled_pairs(result);
  bool any_block = false;
  for (const LabelledPair& pair : pairs) {
    const Finding f = Finding::of_race(pair.example, pair.count, extras.locks_of(pair.example));
    const std::string fp = report_fingerprint(report, f);
    if (!shown(report, f, fp)) continue;
    out << "==================\n";
    context.claimed = pair.claimed;
    context.confidence = pair.confidence;
    context.witness = result.witness_of(pair.example);
    context.witness_file = result.witness_file;
    write_finding(out, symbols, f, result.engine, locks_text, context);
    out << "  Fingerprint: " << fp << '\n';
    any_block = true;
  }
  context.claimed = false;
  context.witness = nullptr;
  for (const Finding& f : sink.findings()) {
    const std::string fp = report_fingerprint(report, f);
    if (!shown(report, f, fp)) continue;
    out << "==================\n";
    // A failure happened in the run; a deadlock is as certain as the engine's reports.
    context.confidence = f.kind == FindingKind::Failure ? Confidence::Observed : result.confidence;
    write_finding(out, symbols, f, result.engine, locks_text, context);
    out << "  Fingerprint: " << fp << '\n';
    any_block = true;
  }
  if (any_block) open = true;
  if (!extras.stats.empty()) {
    if (open) out << "==================\n";
    open = false;
    out << "note: engine " << result.engine << ": ";
    for (size_t i = 0; i < extras.stats.size(); ++i) {
      const ExtraStat& stat = extras.stats[i];
      out << (i ? ", " : "") << count_of(stat.value, stat.singular, stat.plural);
    }
    out << '\n';
  }
  if (context.truncated) {
    if (open) out << "==================\n";
    open = false;
    out << "note: engine " << result.engine << " lists the first " << sink.races().size() << " of "
        << sink.race_count() << " races (--max-races " << sink.max_kept()
        << "); the SUMMARY counts all races\n";
  }
}

// " and 2 deadlocks" for the kinds other than data races, when found.
std::string other_counts(const RaceSink& sink) {
  std::string s;
  for (FindingKind kind : kFindingKinds) {
    const uint64_t n = sink.count(kind);
    switch (kind) {
      case FindingKind::DataRace:
        break;
      case FindingKind::ReadReadViolation:
        if (n)
          s += fmt::format(" and {} (not data races)", count_of(n, "read-read discipline violation",
                                                                "read-read discipline violations"));
        break;
      case FindingKind::Deadlock:
        if (n) s += " and " + count_of(n, "deadlock", "deadlocks");
        break;
      case FindingKind::Failure:
        if (n) s += " and " + count_of(n, "program failure", "program failures");
        break;
    }
  }
  return s;
}

}  // namespace

std::string summary_line(const Report& report, const EngineReport& result) {
  if (!result.error.empty())
    return fmt::format("SUMMARY: racepred: engine {} FAILED, no result, in {} ({}, {:.3f} s)",
                       result.engine, printable(report.trace.path),
                       count_of(report.trace.events, "event", "events"), result.seconds);
  const RaceSink& sink = *result.sink;
  return fmt::format("SUMMARY: racepred: {}{} ({}, {}) with engine {} in {} ({}, {:.3f} s)",
                     count_of(sink.count(FindingKind::DataRace), "race", "races"),
                     other_counts(sink),
                     count_of(sink.racy_event_count(), "racy event", "racy events"),
                     count_of(sink.racy_location_count(), "racy location", "racy locations"),
                     result.engine, printable(report.trace.path),
                     count_of(report.trace.events, "event", "events"), result.seconds);
}

std::string engine_confidence_text(const EngineReport& result) {
  if (result.first_race_claim && result.confidence == Confidence::Possible)
    return "first race predicted, others possible";
  return std::string(confidence_name(result.confidence));
}

std::vector<LabelledPair> labelled_pairs(const EngineReport& result) {
  std::vector<LabelledPair> out;
  if (!result.error.empty() || !result.sink) return out;
  const std::optional<Race> claimed = claimed_race(result);
  for (const LocationPairSummary& pair : result.sink->location_pairs()) {
    LabelledPair l{pair.example, pair.count, result.confidence, false};
    if (claimed && location_pair_key(*claimed) == location_pair_key(pair.example)) {
      l.example = *claimed;
      l.claimed = true;
      l.confidence = more_certain(result.confidence, Confidence::Predicted);
    }
    if (result.witness_of(l.example))
      l.confidence = more_certain(l.confidence, Confidence::Witnessed);
    out.push_back(l);
  }
  return out;
}

uint64_t CombinedSummary::count(Confidence c) const {
  return static_cast<uint64_t>(std::count_if(
      races.begin(), races.end(), [c](const DistinctRace& r) { return r.confidence == c; }));
}

CombinedSummary combined_summary(const Report& report) {
  CombinedSummary summary;
  // The unordered pair of locations; a race whose first access is unknown keys on its later
  // location alone (UINT32_MAX cannot be a location of a known access pair's smaller side).
  const auto key_of = [](const Race& race) {
    if (!race.first.known()) return (uint64_t{UINT32_MAX} << 32) | race.second.location;
    const uint64_t a = std::min(race.first.location, race.second.location);
    const uint64_t b = std::max(race.first.location, race.second.location);
    return (a << 32) | b;
  };
  std::unordered_map<uint64_t, size_t> index;
  for (size_t i = 0; i < report.results.size(); ++i) {
    const EngineReport& result = report.results[i];
    if (!result.error.empty() || !result.sink) continue;
    if (result.sink->truncated()) summary.complete = false;
    for (const LabelledPair& pair : labelled_pairs(result)) {
      if (finding_kind_of(pair.example) != FindingKind::DataRace) continue;
      const auto [it, inserted] = index.try_emplace(key_of(pair.example), summary.races.size());
      if (inserted) summary.races.push_back({pair.example, pair.confidence, {}});
      DistinctRace& race = summary.races[it->second];
      race.confidence = more_certain(race.confidence, pair.confidence);
      race.found.push_back({i, pair.example, pair.count, pair.confidence});
    }
  }
  std::stable_sort(summary.races.begin(), summary.races.end(),
                   [](const DistinctRace& a, const DistinctRace& b) {
                     return detected_before(a.example, b.example);
                   });
  return summary;
}

namespace {

// "x at A and B" (or "x at B" when the first access is unknown).
std::string race_place(const Symbols& symbols, const Race& race) {
  if (!race.first.known())
    return fmt::format("{} at {}", printable(symbols.variables.name(race.variable)),
                       printable(symbols.locations.name(race.second.location)));
  return fmt::format("{} at {} and {}", printable(symbols.variables.name(race.variable)),
                     printable(symbols.locations.name(race.first.location)),
                     printable(symbols.locations.name(race.second.location)));
}

// The distinct races with the engines that found each (several engines), then the combined
// SUMMARY line.
void write_combined_summary(std::ostream& out, const Report& report) {
  const Symbols& symbols = *report.symbols;
  const CombinedSummary summary = combined_summary(report);
  if (report.results.size() > 1 && !summary.races.empty()) {
    out << "Distinct races (by pair of locations) and the engines that report them:\n";
    for (const DistinctRace& race : summary.races) {
      out << "  " << race_place(symbols, race.example) << ": " << confidence_name(race.confidence)
          << "; found by ";
      for (size_t i = 0; i < race.found.size(); ++i)
        out << (i ? ", " : "") << report.results[race.found[i].result].engine << " ("
            << confidence_name(race.found[i].confidence) << ")";
      out << '\n';
    }
  }
  out << "SUMMARY: racepred: " << (summary.complete ? "" : "at least ")
      << count_of(summary.races.size(), "distinct race", "distinct races")
      << " by pair of locations (" << summary.count(Confidence::Observed) << " observed, "
      << summary.count(Confidence::Witnessed) << " witnessed, "
      << summary.count(Confidence::Predicted) << " predicted, "
      << summary.count(Confidence::Possible) << " possible) in " << printable(report.trace.path)
      << "; " << (report.results.size() == 1 ? "engine" : "engines") << ": ";
  for (size_t i = 0; i < report.results.size(); ++i) {
    const EngineReport& result = report.results[i];
    out << (i ? ", " : "") << result.engine << " ("
        << (result.error.empty() ? engine_confidence_text(result) : std::string("FAILED")) << ")";
  }
  out << '\n';
}

}  // namespace

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
  write_combined_summary(out, report);
  if (report.filter && report.filter->active())
    write_filter_summary(out, *report.filter, filter_summary(report));
}

SourceLines& Report::source_lines() const {
  if (!sources) sources = std::make_shared<SourceLines>();
  return *sources;
}

std::string report_fingerprint(const Report& report, const Finding& finding) {
  return fingerprint(*report.symbols, finding, report.source_lines());
}

FilterSummary filter_summary(const Report& report) {
  FilterSummary s;
  if (!report.filter) return s;
  const FindingFilter& filter = *report.filter;
  s.used.assign(filter.suppressions.list().size(), 0);
  const auto judge = [&](const Finding& f) {
    int which = -1;
    switch (filter.judge(*report.symbols, f, report_fingerprint(report, f), &which)) {
      case FindingFilter::Verdict::Shown:
        if (fails_run(f.kind)) ++s.shown_failing;
        break;
      case FindingFilter::Verdict::Suppressed:
        ++s.used[static_cast<size_t>(which)];
        ++s.suppressed;
        break;
      case FindingFilter::Verdict::InBaseline:
        ++s.in_baseline;
        break;
    }
  };
  for (const EngineReport& result : report.results) {
    if (!result.error.empty() || !result.sink) continue;
    for (const LabelledPair& pair : labelled_pairs(result)) judge(Finding::of_race(pair.example));
    for (const Finding& f : result.sink->findings()) judge(f);
    if (result.sink->truncated())
      s.unlisted += result.sink->race_count() - result.sink->races().size();
  }
  return s;
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

void write_text_finding(std::ostream& out, const Symbols& symbols, const Finding& finding,
                        std::string_view engine, std::string_view locks_text) {
  write_finding(out, symbols, finding, engine, locks_text, RaceContext{});
}

namespace {

nlohmann::ordered_json race_fields(nlohmann::ordered_json r, const Symbols& symbols,
                                   const Race& race) {
  using nlohmann::ordered_json;
  const bool known = race.first.known();
  r["first"] = known ? ordered_json(race.first.event) : ordered_json(nullptr);
  r["second"] = race.second.event;
  r["variable"] = symbols.variables.name(race.variable);
  r["access"] = known ? ordered_json(race_kind_name(race_kind(race))) : ordered_json(nullptr);
  r["first_thread"] =
      known ? ordered_json(symbols.threads.name(race.first.thread)) : ordered_json(nullptr);
  r["second_thread"] = symbols.threads.name(race.second.thread);
  r["first_location"] =
      known ? ordered_json(symbols.locations.name(race.first.location)) : ordered_json(nullptr);
  r["second_location"] = symbols.locations.name(race.second.location);
  return r;
}

nlohmann::ordered_json deadlock_fields(nlohmann::ordered_json j, const Symbols& symbols,
                                       const Deadlock& d) {
  nlohmann::ordered_json cycle = nlohmann::ordered_json::array();
  for (const DeadlockStep& step : d.cycle)
    cycle.push_back({{"thread", symbols.threads.name(step.thread)},
                     {"held", locks_json(symbols, step.held)},
                     {"requested", symbols.locks.name(step.requested)},
                     {"event", step.event},
                     {"location", symbols.locations.name(step.location)}});
  j["cycle"] = std::move(cycle);
  j["witness"] = d.witness;
  return j;
}

nlohmann::ordered_json failure_fields(nlohmann::ordered_json j, const Symbols& symbols,
                                      const Failure& f) {
  using nlohmann::ordered_json;
  j["failure"] = failure_kind_name(f.kind);
  j["signal"] = f.kind == FailureKind::Crash ? ordered_json(f.signal) : ordered_json(nullptr);
  j["message"] = f.message;
  j["thread"] = f.has_thread ? ordered_json(symbols.threads.name(f.thread)) : ordered_json(nullptr);
  j["location"] =
      f.has_thread ? ordered_json(symbols.locations.name(f.location)) : ordered_json(nullptr);
  j["schedule"] = {
      {"replay_file", f.schedule.replay_file.empty() ? ordered_json(nullptr)
                                                     : ordered_json(f.schedule.replay_file)},
      {"choices", ordered_json::array()}};
  for (ThreadId t : f.schedule.choices) j["schedule"]["choices"].push_back(symbols.threads.name(t));
  return j;
}

}  // namespace

nlohmann::ordered_json finding_json(const Symbols& symbols, const Finding& finding,
                                    std::string_view locks_key) {
  nlohmann::ordered_json j;
  j["kind"] = finding_kind_name(finding.kind);
  j["count"] = finding.count;
  switch (finding.kind) {
    case FindingKind::DataRace:
    case FindingKind::ReadReadViolation:
      j = race_fields(std::move(j), symbols, finding.race);
      if (with_stacks(symbols, finding.race)) {
        const Race& race = finding.race;
        j["second_stack"] = stack_json(symbols, symbols.stacks.of(race.second.event));
        j["first_stack"] = race.first.known()
                               ? stack_json(symbols, symbols.stacks.of(race.first.event))
                               : nlohmann::ordered_json(nullptr);
        j["threads"] = creations_json(symbols, race);
      }
      if (finding.locks)
        j[std::string(locks_key)] = {{"first", locks_json(symbols, finding.locks->first)},
                                     {"second", locks_json(symbols, finding.locks->second)}};
      return j;
    case FindingKind::Deadlock:
      return deadlock_fields(std::move(j), symbols, finding.deadlock);
    case FindingKind::Failure:
      return failure_fields(std::move(j), symbols, finding.failure);
  }
  return j;
}

const WitnessSummary* EngineReport::witness_of(const Race& race) const {
  if (!witnesses) return nullptr;
  const auto it = witnesses->find({race.first.event, race.second.event});
  return it == witnesses->end() ? nullptr : &it->second;
}

namespace {

// A finding's "witness": its place in the witness file, or, without a file, its events.
nlohmann::ordered_json witness_json(const WitnessSummary& w, std::string_view file) {
  nlohmann::ordered_json j;
  j["notion"] = w.adjacent ? "adjacent" : "enabled";
  j["events"] = w.events;
  if (!file.empty()) {
    j["file"] = file;
    j["number"] = w.number;
  } else {
    if (!w.cut.empty()) j["cut"] = w.cut;
    nlohmann::ordered_json prefix = nlohmann::ordered_json::array();
    for (const auto& [a, b] : w.runs) {
      if (a == b) {
        prefix.push_back(a);
      } else {
        prefix.push_back({a, b});
      }
    }
    j["prefix"] = std::move(prefix);
  }
  return j;
}

// The witness' last steps (the report's tail of it), for SARIF's thread flows.
nlohmann::ordered_json interleaving_json(const Symbols& symbols, const WitnessSummary& w) {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  const auto add = [&](const WitnessSummary::Step& step) {
    const Event& e = step.event;
    std::string_view target;
    if (e.is_access()) {
      target = symbols.variables.name(e.target);
    } else if (e.op == Op::Fork || e.op == Op::Join) {
      target = symbols.threads.name(e.target);
    } else {
      target = symbols.locks.name(e.target);
    }
    steps.push_back({{"event", step.id},
                     {"thread", symbols.threads.name(e.thread)},
                     {"op", op_name(e.op)},
                     {"target", target},
                     {"location", symbols.locations.name(e.location)}});
  };
  for (const WitnessSummary::Step& step : w.tail) add(step);
  if (!w.adjacent) {
    add(w.first);
    add(w.second);
  }
  return steps;
}

}  // namespace

nlohmann::ordered_json json_report(const Report& report) {
  using nlohmann::ordered_json;
  const Symbols& symbols = *report.symbols;
  ordered_json root = json_header(report.command);
  root["trace"] = trace_json(report.trace);
  ordered_json results = ordered_json::array();
  for (const EngineReport& result : report.results) {
    const RaceSink& sink = *result.sink;
    const EngineExtras& extras = sink.extras();
    const std::string_view locks_key =
        extras.locks_key.empty() ? std::string_view("locks") : std::string_view(extras.locks_key);
    const std::optional<Race> claimed = claimed_race(result);
    const auto race_confidence = [&](const Race& race) {
      const bool is_claimed = claimed && claimed->first.event == race.first.event &&
                              claimed->second.event == race.second.event;
      const Confidence c =
          is_claimed ? more_certain(result.confidence, Confidence::Predicted) : result.confidence;
      return result.witness_of(race) ? more_certain(c, Confidence::Witnessed) : c;
    };
    ordered_json findings = ordered_json::array();
    for (const Race& race : sink.races()) {  // sorted by (first, second) after finalize()
      const Finding f = Finding::of_race(race, 1, extras.locks_of(race));
      const std::string fp = report_fingerprint(report, f);
      if (!shown(report, f, fp)) continue;
      findings.push_back(finding_json(symbols, f, locks_key));
      findings.back()["confidence"] = confidence_name(race_confidence(race));
      findings.back()["fingerprint"] = fp;
      if (report.held_locks && with_stacks(symbols, race)) {
        auto held = [&](const Access& a) {
          const auto it = report.held_locks->find(a.event);
          return it == report.held_locks->end() ? ordered_json(nullptr)
                                                : locks_json(symbols, it->second);
        };
        findings.back()["locks_held"] = {{"first", held(race.first)},
                                         {"second", held(race.second)}};
      }
      if (const WitnessSummary* w = result.witness_of(race)) {
        findings.back()["witness"] = witness_json(*w, result.witness_file);
        findings.back()["interleaving"] = interleaving_json(symbols, *w);
      }
    }
    for (const Finding& f : sink.findings()) {
      const std::string fp = report_fingerprint(report, f);
      if (!shown(report, f, fp)) continue;
      findings.push_back(finding_json(symbols, f, locks_key));
      findings.back()["confidence"] = confidence_name(
          f.kind == FindingKind::Failure ? Confidence::Observed : result.confidence);
      findings.back()["fingerprint"] = fp;
    }
    ordered_json counts = ordered_json::object();
    for (FindingKind kind : kFindingKinds)
      counts[std::string(finding_kind_name(kind))] = sink.count(kind);
    std::vector<std::string_view> locations;
    for (LocationId l : sink.racy_locations()) locations.push_back(symbols.locations.name(l));
    std::sort(locations.begin(), locations.end());
    ordered_json entry;
    entry["engine"] = result.engine;
    entry["confidence"] = confidence_name(result.confidence);
    entry["first_race_claim"] = result.first_race_claim;
    entry["findings"] = std::move(findings);
    entry["counts"] = std::move(counts);
    entry["race_count"] = sink.race_count();
    entry["location_pair_count"] = sink.location_pair_count();
    if (sink.location_pairs_lower_bound()) entry["location_pair_count_is_lower_bound"] = true;
    entry["racy_events"] = sink.racy_events();
    entry["racy_event_count"] = sink.racy_event_count();
    entry["racy_locations"] = locations;
    entry["racy_location_count"] = sink.racy_location_count();
    entry["truncated"] = sink.lists_truncated();
    entry["first_detected"] =
        sink.has_first_detected()
            ? finding_json(symbols, Finding::of_race(sink.first_detected()), locks_key)
            : ordered_json(nullptr);
    if (sink.has_first_detected())
      entry["first_detected"]["confidence"] =
          confidence_name(race_confidence(sink.first_detected()));
    entry["seconds"] = result.seconds;
    ordered_json x = ordered_json::object();
    for (const ExtraStat& stat : extras.stats) x[stat.key] = stat.value;
    entry["extras"] = std::move(x);
    if (!result.error.empty()) {  // the engine has no result: its lists and counts are empty
      entry["failed"] = true;
      entry["error"] = result.error;
    }
    results.push_back(std::move(entry));
  }
  root["results"] = std::move(results);
  const CombinedSummary summary = combined_summary(report);
  ordered_json combined;
  combined["unit"] = "location-pair";
  combined["distinct_races"] = summary.races.size();
  combined["complete"] = summary.complete;
  combined["counts"] = ordered_json::object();
  for (const Confidence c : kConfidences)
    combined["counts"][std::string(confidence_name(c))] = summary.count(c);
  ordered_json races = ordered_json::array();
  for (const DistinctRace& race : summary.races) {
    const Race& e = race.example;
    ordered_json r;
    r["variable"] = symbols.variables.name(e.variable);
    r["first_location"] =
        e.first.known() ? ordered_json(symbols.locations.name(e.first.location)) : ordered_json();
    r["second_location"] = symbols.locations.name(e.second.location);
    r["confidence"] = confidence_name(race.confidence);
    ordered_json found = ordered_json::array();
    for (const DistinctRace::Found& f : race.found)
      found.push_back({{"engine", report.results[f.result].engine},
                       {"confidence", confidence_name(f.confidence)},
                       {"count", f.count},
                       {"first", f.example.first.known() ? ordered_json(f.example.first.event)
                                                         : ordered_json()},
                       {"second", f.example.second.event}});
    r["engines"] = std::move(found);
    races.push_back(std::move(r));
  }
  combined["races"] = std::move(races);
  root["combined"] = std::move(combined);
  if (report.filter && report.filter->active())
    root["filter"] = filter_summary_json(*report.filter, filter_summary(report));
  return root;
}

void write_sarif_report(std::ostream& out, const Report& report) {
  write_json(out, sarif_log(report_findings(json_report(report)), report.command,
                            report.trace.path == "-" ? std::string() : report.trace.path));
}

void write_json_report(std::ostream& out, const Report& report) {
  write_json(out, json_report(report));
}

}  // namespace racepred
