// One read of a trace feeds every selected engine (docs/ARCHITECTURE.md):
//
//   reader ──▶ Validator ──▶ batches of (id, Event) ──▶ engine 1, engine 2, …
//   └──────── reader thread ────────┘   bounded queue   └──── main thread ────┘
//
// The reader and validator run in a second thread and hand over batches through a bounded
// queue (memory stays bounded whatever the trace length). With several engines, one thread per
// core (PipelineOptions::engine_threads) runs them: each engine sees every batch in order, one
// thread at a time, and a free thread takes the free engine that is furthest behind, so the
// load balances itself; otherwise the main thread runs each engine over each batch in turn.
// Each engine's time is summed over the threads that ran it, so "seconds" is that engine's own
// time. Engines never
// touch the symbol tables in on_event (engines/engine.hpp), which the reader thread is still
// filling.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/engines/engine.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/report/race.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/symbols.hpp"
#include "racepred/trace/trace.hpp"
#include "racepred/trace/validator.hpp"
#include "racepred/witness/witness.hpp"

namespace racepred {

// The engines `racepred analyze` runs when -e is not given (comma-separated): only engines
// whose every report is a predicted race (docs/ENGINES.md, "The default engine"). shb is the
// sound predictor that stays online and about as fast as fasttrack.
inline constexpr std::string_view kDefaultEngines = "shb";

// Resolves engine names ("hb", "lockset,hb" and "all" = every online engine) to registry
// entries, in the order given, without duplicates. Throws UsageError naming the valid engines.
std::vector<const EngineInfo*> resolve_engines(const std::vector<std::string>& names);

struct PipelineOptions {
  ReadOptions read;  // input format, lenient reading of malformed lines
  ValidationMode validation = ValidationMode::Strict;
  size_t max_races = 1000;      // races each sink keeps (all are counted)
  size_t batch_size = 1 << 16;  // events per batch
  EngineOptions engine;         // every engine's EngineContext::options
  bool threaded = true;         // read and validate in a second thread
  // Threaded with several engines: threads that run the engines (each engine on one of them at a
  // time, taken by whichever is free); 0 = one per core.
  size_t engine_threads = 0;
  // Called with the number of events read so far after each batch (from the reader thread
  // when threaded): for a progress line. May be empty.
  std::function<void(uint64_t events)> on_progress;
  // analyze --witness: every engine with a witness hook (engines/witness_source.hpp) builds a
  // witness of each race the report lists that its guarantee covers, after its run; each is
  // checked by the independent checker (witness/checker.hpp) before the report shows it.
  bool witnesses = false;
};

struct EngineRun {
  const EngineInfo* info = nullptr;
  RaceSink sink;
  double seconds = 0;  // time spent in this engine (on_event and finish)
  // Set when the engine ran out of its budget (an offline engine's search): its result is
  // missing, the other engines' results stand.
  std::string error;
  // With PipelineOptions::witnesses: the engine's checked witnesses (in the order of its kept
  // races; `engine` set), what the report shows of each by (first, second) event (numbered from
  // `first_witness_number`), the witnesses the checker rejected (an internal error: the engine's
  // relation and the checker disagree; such a witness is neither kept nor shown) and the time
  // spent building and checking them (not in `seconds`).
  std::vector<witness::Witness> witnesses{};
  std::map<std::pair<EventId, EventId>, WitnessSummary> witness_summaries{};
  std::vector<std::string> witness_errors{};
  double witness_seconds = 0;
};

struct PipelineResult {
  std::string path;
  Symbols symbols;
  ReadSummary read;
  ValidationReport validation;
  uint64_t events = 0;  // events the engines saw
  std::vector<EngineRun> runs;
  // Time spent collecting the events and building the trace index shared by the offline
  // engines (0 when none ran); in no engine's seconds.
  double index_seconds = 0;
  bool witnesses = false;  // PipelineOptions::witnesses was set

  // Event lines the engines did not see: unused ops, malformed lines and events the
  // validator dropped (normalised re-entrant locking, --lenient).
  uint64_t skipped_events() const { return read.event_lines - events; }
  // Some engine found what makes a run exit with code 1: a data race, a deadlock, a failure.
  bool any_finding() const;
  bool any_failed() const;
  TraceInfo trace_info() const;
  // A Report referring to this result (valid while the result lives).
  Report report() const;
};

// Reads `path` ("-" = standard input) once and runs every engine over the validated events.
// Throws InputError on malformed or (under Strict validation) ill-formed input.
PipelineResult run_pipeline(const std::string& path, const std::vector<const EngineInfo*>& engines,
                            const PipelineOptions& options = {});
// The same over trace text in memory; `name` stands for the path.
PipelineResult run_pipeline_on_text(std::string_view text, std::string_view name,
                                    const std::vector<const EngineInfo*>& engines,
                                    const PipelineOptions& options = {});

// The validator's and reader's remarks as "note: …" / "warning: …" lines, for stderr.
std::vector<std::string> pipeline_diagnostics(const PipelineResult& result);

}  // namespace racepred
