// The engine interface and the structured guarantees of engines.
//
// Adding an engine (the whole recipe; engines/observed/adjacent.cpp is a complete minimal
// engine to copy):
//  1. Write engines/<family>/<engine>.cpp, named after the engine. Derive from
//     DispatchEngine<YourEngine> (engines/dispatch.hpp) and implement the handlers your method
//     needs, named like the papers' procedures: read, write, acquire, release, fork, join (each
//     takes the event id and the event; the others default to doing nothing). Open the file with
//     the engine's state in the paper's notation (Th, Rel, W(x), R(x), LS, LH …) and keep it in
//     the clock kit's types (clock/): ThreadClocks for Th/Rel, IdTable for per-thread,
//     per-variable and per-lock state, LockSetTable for lock sets. Report races with
//     sink.report(Race{…}); never touch the symbol tables while events arrive.
//     An engine that needs the whole trace (several passes, random access) derives from
//     OfflineEngine instead and implements run(const TraceIndex&): the index of the run
//     (trace/trace_index.hpp: events by position, each thread's events, matching
//     acquire/release, fork/join, last writes, critical sections), shared with the run's other
//     offline engines. Its mode in engines.def is Offline; engines/exact/exact.cpp is a short one.
//  2. Define the factory `std::unique_ptr<Engine> make_<id>(EngineContext&)` in that file
//     (namespace racepred), where <id> is the engine's name with '-' written as '_'.
//  3. Add one ENGINE(...) line to engines/engines.def: name, mode, guarantee, paper section.
//  4. Optional: the paper's tabular view for `racepred annotate`: also derive from Annotator,
//     return `this` from annotator() (a plain getter) and write Annotated in the row's view
//     column. What the view needs set up (e.g. clocks indexed by thread) follows from
//     EngineContext::annotate in the constructor.
//  5. Put example traces with `# expect <engine>: …` lines under examples/<family>/ (the
//     example runner checks them) and describe the engine in docs/ENGINES.md. The guarantee
//     you declared is checked on random traces by tests/properties/guarantee_property_test.cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "racepred/engines/options.hpp"
#include "racepred/report/race.hpp"
#include "racepred/trace/debug_check.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/event.hpp"
#include "racepred/trace/symbols.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred {

// What an engine may use (copy the references; the context object itself may be temporary).
// `symbols` grows while the trace is read, possibly in another thread: the event handlers must
// not touch it. Ids are dense from 0 and an engine meets each id first in an event, so
// per-thread, per-variable and per-lock state is grown on demand. finish() and the Annotator
// may read symbols.
struct EngineContext {
  const Symbols& symbols;
  RaceSink& sink;
  // The settings of engines/options.def (--pwr-history, --max-states, …): each engine reads the
  // rows that name it.
  EngineOptions options = {};
  // The engine is built for its annotated view (`racepred annotate`): it may set itself up for
  // the view here (e.g. no reuse of thread slots, so clocks are shown by thread).
  bool annotate = false;
  // `analyze --witness`: the engine's witness_source(), if any, is asked for witnesses after
  // finish() (engines/witness_source.hpp); it may keep what they need during the run. Unset,
  // it keeps nothing extra.
  bool witnesses = false;
};

// One cell of `racepred annotate` output: a named column and its value for one event.
struct AnnotationCell {
  std::string column;
  std::string value;
};
using Annotation = std::vector<AnnotationCell>;

// The optional annotated view (`racepred annotate`, the papers' tables). The engine is built
// with EngineContext::annotate set. For a streaming engine the driver calls, for every event,
// before_event(), then the engine's handlers for that one event, then annotate(); after
// Engine::finish() it calls annotate_at_end() with every row. For an OfflineEngine (derive from
// OfflineAnnotator) it calls run() and finish(), then annotate_at_end(), which adds the cells
// run() filled; before_event() and annotate() are not called. Nothing here is on the analysis
// path.
class Annotator {
 public:
  virtual ~Annotator() = default;
  virtual void before_event(EventId /*id*/, const Event& /*event*/) {}
  virtual void annotate(EventId id, const Event& event, Annotation& row) = 0;
  // rows[i] belongs to the i-th event the engine saw.
  virtual void annotate_at_end(std::span<Annotation> /*rows*/) {}
};

// The annotated view of an offline engine: run() fills cells() (one row per position of the
// index) when annotating(), and annotate_at_end() hands them to the driver.
class OfflineAnnotator : public Annotator {
 public:
  explicit OfflineAnnotator(const EngineContext& context) : annotating_(context.annotate) {}
  void annotate(EventId, const Event&, Annotation&) final {}
  void annotate_at_end(std::span<Annotation> rows) final {
    for (size_t i = 0; i < rows.size() && i < cells_.size(); ++i)
      for (AnnotationCell& cell : cells_[i]) rows[i].push_back(std::move(cell));
  }

 protected:
  bool annotating() const { return annotating_; }
  // The rows of the index's `events` positions.
  std::vector<Annotation>& cells(size_t events) {
    cells_.resize(events);
    return cells_;
  }

 private:
  bool annotating_;
  std::vector<Annotation> cells_;
};

class OfflineEngine;
class WitnessSource;  // engines/witness_source.hpp

class Engine {
 public:
  virtual ~Engine() = default;
  // A batch of events in trace order with strictly increasing ids (ids may have gaps);
  // ids.size() == events.size(). The driver calls this once per batch, through feed().
  virtual void on_events(std::span<const EventId> ids, std::span<const Event> events) = 0;
  // After the last event (after run() for an OfflineEngine).
  virtual void finish() {}
  // The annotated view, or nullptr when the engine has none (the row's view column in
  // engines.def says which, without constructing the engine). A getter without side effects.
  virtual Annotator* annotator() { return nullptr; }
  // The engine as an OfflineEngine, or nullptr for an engine that takes the events in batches.
  virtual OfflineEngine* offline() { return nullptr; }
  // The engine's witnesses of its races (engines/witness_source.hpp), or nullptr when it gives
  // none. A getter without side effects.
  virtual WitnessSource* witness_source() { return nullptr; }

  // A batch from a driver (the pipeline, run_engine, annotate): on_events, after checking in
  // debug builds (trace/debug_check.hpp) that the ids strictly increase across all batches.
  void feed(std::span<const EventId> ids, std::span<const Event> events) {
    RACEPRED_DEBUG_ONLY(check_ids(ids, events.size());)
    on_events(ids, events);
  }
  // One event (tests, annotate): a batch of one.
  void on_event(EventId id, const Event& event) { feed({&id, 1}, {&event, 1}); }

#ifdef RACEPRED_DEBUG_CHECKS
 private:
  void check_ids(std::span<const EventId> ids, size_t events) {
    RACEPRED_DCHECK(ids.size() == events, "a batch has one id per event");
    for (const EventId id : ids) {
      RACEPRED_DCHECK(!fed_any_ || id > last_fed_, "event ids into an engine strictly increase");
      last_fed_ = id;
      fed_any_ = true;
    }
  }
  EventId last_fed_ = 0;
  bool fed_any_ = false;
#endif
};

// An engine that works on the whole trace at once (random access, several passes). The driver
// gives it no batches: once the trace is read it builds the run's TraceIndex (once, however many
// offline engines run) and calls run() with it, then finish(). The index is shared with the
// other offline engines of the run: read it, never change it. Its row in engines.def has mode
// Offline.
//
// Why apart from DispatchEngine: the input differs (the whole index, random access, several
// passes, positions), not the handling of one event. An offline engine that walks the index in
// trace order with per-event handlers uses the dispatch base's one switch, dispatch_event
// (engines/dispatch.hpp; hb-sets). Every engine that takes batches is on DispatchEngine, the
// test references too; only the driver's index collector derives from Engine directly.
class OfflineEngine : public Engine {
 public:
  virtual void run(const TraceIndex& index) = 0;
  OfflineEngine* offline() final { return this; }
  // The driver never streams to an offline engine (it calls run()); a caller that does is wrong.
  void on_events(std::span<const EventId>, std::span<const Event>) final {
    throw std::logic_error("an offline engine takes the trace index (run), not batches");
  }
};

// An engine ran out of its budget (states or memory of an exhaustive search): its result is
// lost, the other engines' results of the run stand. An InputError, so a command that runs only
// that engine exits with code 2.
class BudgetError : public InputError {
 public:
  using InputError::InputError;
};

enum class EngineMode { Online, Offline };
// Whether the engine has the annotated view of `racepred annotate` (engines.def's view column).
enum class EngineView { None, Annotated };

// What an engine's reports promise, in a form tests check (guarantee_property_test.cpp).
// "Real" is always relative to a ground truth computed by the exact module: Def. 3.8 of the
// cross-thread paper (the two events adjacent in a correctly reordered prefix, `exact`), or the
// weaker enabled notion (both events next in their threads, `exact --enabled`).
enum class GroundTruth { Predictable, Enabled };
// What the engine reports: pairs (first, second), or only racy events (`second` of the pairs).
enum class RaceUnit { Pairs, RacyEvents };
// The claim about reported races being real.
enum class Soundness {
  None,  // reported races may all be false
  // The earliest racy event e it reports, paired with the latest reported partner f of e, is a
  // race under the ground truth (the classic "first HB race is real"; earlier partners of e
  // may not be: in T0|fork(T1), T1|w(x), T1|w(x), T0|r(x) the pair (2,4) is not a Def. 3.8
  // race, since the read must keep its last write e3, but (3,4) is).
  FirstRace,
  Sound,  // every reported race is a race under the ground truth
};

struct Guarantee {
  RaceUnit unit = RaceUnit::Pairs;
  GroundTruth truth = GroundTruth::Predictable;
  Soundness soundness = Soundness::None;
  // The label of the engine's reports (report/finding.hpp): Observed or Predicted only for Sound
  // engines (Observed: the recorded order alone shows each race; Witnessed is given per race,
  // by analyze --witness, never here); a FirstRace engine's first race
  // (as above) is labelled Predicted, its others Possible.
  Confidence confidence = Confidence::Possible;
  bool complete = false;  // every race of the ground truth is reported (in `unit`)
  // An engine whose reports this one equals (in reference_unit), or "" for none.
  std::string reference;
  RaceUnit reference_unit = RaceUnit::Pairs;
  // An engine whose reports contain this one's (in within_unit), or "" for none.
  std::string within;
  RaceUnit within_unit = RaceUnit::Pairs;
  // The same in words for users (`racepred engines -v`, docs/ENGINES.md).
  std::string words;
};

using EngineFactory = std::unique_ptr<Engine> (*)(EngineContext&);

struct EngineInfo {
  std::string name;    // stable, part of the CLI contract
  std::string family;  // folder under engines/ ("exact" for the exact-based engines)
  EngineMode mode = EngineMode::Online;
  EngineView view = EngineView::None;
  std::string description;  // one line
  std::string seed;         // paper (author, title) and section it implements
  Guarantee guarantee;
  EngineFactory make = nullptr;
};

}  // namespace racepred
