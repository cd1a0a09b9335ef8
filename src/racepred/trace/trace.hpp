// The event stream interface and the in-memory trace for offline analyses.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "racepred/trace/event.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred {

// Receives events one by one in trace order. Readers push into it; the validator is one
// (it filters and forwards), and so is the pipeline that feeds the engines.
class EventConsumer {
 public:
  virtual ~EventConsumer() = default;
  // `line` is the 1-based line of the event in its input (0 when there is none).
  virtual void on_event(EventId id, const Event& event, uint32_t line) = 0;
  // A run of events without input lines (line 0), as the binary reader decodes them a block at
  // a time: one call instead of one per event. By default, on_event for each.
  virtual void on_events(std::span<const EventId> ids, std::span<const Event> events) {
    for (size_t i = 0; i < events.size(); ++i) on_event(ids[i], events[i], 0);
  }
  // A run of events with their input lines, as the STD reader delivers them (a few hundred at
  // a time: one virtual call per run instead of one per event). By default, on_event for each.
  virtual void on_lines(std::span<const EventId> ids, std::span<const Event> events,
                        std::span<const uint32_t> lines) {
    for (size_t i = 0; i < events.size(); ++i) on_event(ids[i], events[i], lines[i]);
  }
  // Called once after the last event.
  virtual void on_end() {}
};

// Counts of what a reader saw besides the events it delivered.
struct ReadSummary {
  std::string format;        // the input format read: "std", "speedygo", "csv", "rr", ...
  std::string compression;   // "gzip", "zstd" or "xz" when the input was compressed, else ""
  uint64_t lines = 0;        // physical lines read
  uint64_t event_lines = 0;  // lines that carry an event (kept, skipped or malformed)
  uint64_t delivered = 0;    // events handed to the consumer
  std::map<std::string, uint64_t> skipped_ops;  // accepted but unused ops: begin, end, req, branch…
  uint64_t malformed = 0;                       // malformed lines skipped under --lenient
  std::vector<std::string> malformed_examples;  // the first few of them, as error messages
  // SpeedyGo signal/wait events that could not be translated to fork/join: the
  // synchronisation they stand for is lost (also counted in skipped_ops).
  uint64_t untranslated_syncs = 0;
  uint64_t skipped_total() const {
    uint64_t n = 0;
    for (const auto& [op, count] : skipped_ops) n += count;
    return n;
  }
};

// A whole trace in memory. Event ids may have gaps: an id is the ordinal of the event's line
// among the input's event lines, so ops that are skipped keep their numbers (as in RAPID).
struct Trace {
  Symbols symbols;
  std::vector<Event> events;
  std::vector<EventId> ids;     // ids[i] is the id of events[i]; strictly increasing
  std::vector<uint32_t> lines;  // input line of events[i], 0 if unknown
  ReadSummary summary;

  size_t size() const { return events.size(); }
  std::string_view thread_name(ThreadId t) const { return symbols.threads.name(t); }
  std::string_view variable_name(VariableId x) const { return symbols.variables.name(x); }
  std::string_view lock_name(LockId l) const { return symbols.locks.name(l); }
  std::string_view location_name(LocationId l) const { return symbols.locations.name(l); }
  // Name of the target of events[i] in its name space.
  std::string_view target_name(const Event& e) const;
  // "T1|w(x)|L3": the event in STD form.
  std::string to_std(const Event& e) const;
  // Position of the event with id `id` in `events`, or SIZE_MAX.
  size_t index_of(EventId id) const;
};

// Collects a stream into a Trace (the symbols are those the reader interned into).
class TraceCollector : public EventConsumer {
 public:
  explicit TraceCollector(Trace& trace) : trace_(trace) {}
  void on_event(EventId id, const Event& event, uint32_t line) override {
    trace_.events.push_back(event);
    trace_.ids.push_back(id);
    trace_.lines.push_back(line);
  }
  void on_events(std::span<const EventId> ids, std::span<const Event> events) override {
    trace_.events.insert(trace_.events.end(), events.begin(), events.end());
    trace_.ids.insert(trace_.ids.end(), ids.begin(), ids.end());
    trace_.lines.resize(trace_.lines.size() + events.size(), 0);
  }
  void on_lines(std::span<const EventId> ids, std::span<const Event> events,
                std::span<const uint32_t> lines) override {
    trace_.events.insert(trace_.events.end(), events.begin(), events.end());
    trace_.ids.insert(trace_.ids.end(), ids.begin(), ids.end());
    trace_.lines.insert(trace_.lines.end(), lines.begin(), lines.end());
  }

 private:
  Trace& trace_;
};

// Forwards every event to several consumers (one read feeds all engines).
class Fanout : public EventConsumer {
 public:
  void add(EventConsumer* consumer) { consumers_.push_back(consumer); }
  void on_event(EventId id, const Event& event, uint32_t line) override {
    for (EventConsumer* c : consumers_) c->on_event(id, event, line);
  }
  void on_events(std::span<const EventId> ids, std::span<const Event> events) override {
    for (EventConsumer* c : consumers_) c->on_events(ids, events);
  }
  void on_lines(std::span<const EventId> ids, std::span<const Event> events,
                std::span<const uint32_t> lines) override {
    for (EventConsumer* c : consumers_) c->on_lines(ids, events, lines);
  }
  void on_end() override {
    for (EventConsumer* c : consumers_) c->on_end();
  }

 private:
  std::vector<EventConsumer*> consumers_;
};

}  // namespace racepred
