// Witnesses of predicted races and their file format (docs/WITNESSES.md).
//
// A witness shows that a race is real: a correctly reordered prefix T' of the trace (Def. 3.4 of
// Sulzmann and Thiemann, "Cross-thread critical sections and efficient dynamic race prediction
// methods": each thread runs a prefix of its own events, the locks and forks and joins keep their
// rules, every read sees the write it saw in the trace) after which the two racing accesses meet.
// The module holds the data and the file; checker.hpp judges a witness against a trace. It
// depends on the trace module only: no engine's code decides whether a witness is valid.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/trace/event.hpp"

namespace racepred::witness {

// When the two accesses meet.
enum class Notion : uint8_t {
  // T' ends with `first` then `second` (Def. 3.8 of the cross-thread paper: the two accesses run
  // right next to each other; a racing read still sees the write it saw in the trace).
  Adjacent,
  // Neither access is in T'; each is the next event of its thread and its thread has started
  // (the notion of the SHB, SyncP and M2 papers: a racing read may see another write).
  Enabled,
};
std::string_view notion_name(Notion notion);  // "adjacent", "enabled"

struct Witness {
  std::string engine;  // who produced it (free text; the checker ignores it)
  EventId first = kNoEvent;
  EventId second = kNoEvent;
  Notion notion = Notion::Adjacent;
  // T' is the cut's events in trace order, then `prefix`. The cut names, for each thread it
  // covers, the last of its events in T' (each thread at most once): T' runs every event of the
  // trace that is, in its thread, at or before one of them. A downward-closed prefix (the
  // closure of a partial order) is written with as many ids as threads.
  std::vector<EventId> cut;
  std::vector<EventId> prefix;  // event ids (the trace's numbering), in order
};

struct WitnessFile {
  std::string trace;  // the trace the witnesses belong to, as the producer named it
  std::vector<Witness> witnesses;
};

// The JSON form (schema "racepred-witness/1"): runs of consecutive ids are written as
// [first, last] pairs, so a prefix that keeps long stretches of the trace stays small; a cut
// is its list of ids ("cut", absent when empty).
std::string to_json(const WitnessFile& file);
// Reads the JSON form. Throws InputError naming `name`, the line and the column (or the witness
// and the field) on anything malformed, and on a witness of more than `max_events` events (a
// witness of a trace of n events has at most n: pass n, so that a run such as [1, 4000000000]
// is refused before it is expanded).
WitnessFile parse_witness_file(std::string_view text, std::string_view name, uint64_t max_events);

}  // namespace racepred::witness
