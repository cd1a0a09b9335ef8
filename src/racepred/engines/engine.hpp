// The engine interface (DESIGN.md "Engines") and the engine registry.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/report/race.hpp"
#include "racepred/trace/event.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred {

// What an engine may use (copy the references; the context object itself may be temporary).
// `symbols` grows while the trace is read, possibly in another thread: on_event() must not touch
// it. Ids are dense from 0 and an engine meets each id first in an event, so per-thread,
// per-variable and per-lock state is grown on demand. finish() and annotate() may read symbols.
struct EngineContext {
  const Symbols& symbols;
  RaceSink& sink;
};

// One cell of `racepred annotate` output: a named column and its value for one event.
struct AnnotationCell {
  std::string column;
  std::string value;
};
using Annotation = std::vector<AnnotationCell>;

class Engine {
 public:
  virtual ~Engine() = default;
  // Events arrive in trace order with strictly increasing ids (ids may have gaps).
  virtual void on_event(EventId id, const Event& event) = 0;
  // After the last event; offline engines do their work here.
  virtual void finish() {}

  // Annotated view (`racepred annotate`). When annotation is enabled the driver calls, for every
  // event, before_event(), then on_event(), then annotate(), and prints what annotate() appended.
  // Offline engines whose per-event state is known only at the end may keep the Annotation&
  // they were given and fill it in finish(): the driver (engines/annotate.hpp) keeps every row
  // alive until after finish().
  virtual bool supports_annotation() const { return false; }
  virtual void before_event(EventId /*id*/, const Event& /*event*/) {}
  virtual void annotate(EventId /*id*/, const Event& /*event*/, Annotation& /*row*/) {}
};

enum class EngineMode { Online, Offline };

struct EngineInfo {
  std::string name;         // stable, part of the CLI contract
  std::string description;  // one line
  std::string guarantee;    // e.g. "complete (no false negatives), unsound; race pairs"
  std::string seed;         // seed file and section it implements
  EngineMode mode = EngineMode::Online;
  std::function<std::unique_ptr<Engine>(EngineContext&)> make;
};

// All engines, in the order `racepred engines` lists them.
const std::vector<EngineInfo>& engine_registry();
const EngineInfo* find_engine(std::string_view name);

}  // namespace racepred
