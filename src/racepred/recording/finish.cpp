#include "racepred/recording/finish.hpp"

#include <algorithm>
#include <optional>

#include "racepred/format/trace_format.hpp"
#include "racepred/io/binary_writer.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/recording/assemble.hpp"
#include "racepred/recording/naming.hpp"
#include "racepred/recording/raw_recording.hpp"
#include "racepred/recording/symbolizer.hpp"

namespace racepred::recording {

namespace {

bool is_text(const std::string& out) {
  return out.size() > 4 && (out.ends_with(".std") || out.ends_with(".txt"));
}

// The names of variables and locks, made as the binary writer needs them (nothing kept).
class StreamedNames : public NameSource {
 public:
  explicit StreamedNames(KeyNamer& namer) : namer_(namer) {}
  uint32_t count(unsigned space) const override {
    return space == format::kVariables ? namer_.variables() : namer_.locks();
  }
  void name(unsigned space, uint32_t id, std::string& out) override {
    if (space == format::kVariables)
      namer_.variable(id, out);
    else
      namer_.lock(id, out);
  }

 private:
  KeyNamer& namer_;
};

// The second pass's events, named and numbered, to a writer: binary with their stacks and the
// names of variables and locks made as they are written, or STD text (which has no stacks, and
// whose names are all made first).
class WriterSink : public EventBatchSink {
 public:
  WriterSink(const Assembled& assembled, Symbols& symbols, KeyNamer& namer,
             const std::vector<uint32_t>& loc_map, const std::string& out)
      : loc_map_(loc_map),
        numbering_(assembled, loc_map, symbols.stacks),
        stacks_(!assembled.caller_nodes.empty()),
        names_(namer) {
    if (is_text(out)) {
      namer.name_all(symbols);
      text_.emplace(symbols, out);
    } else {
      // LZ4's fast compressor: compressing with LZ4 HC (level 4) was a third of lbzip2's
      // conversion; the trace is about 14% larger and reads as fast.
      BinaryWriteOptions o;
      o.level = 0;
      binary_.emplace(symbols, out, o);
      // Every name before the first events block, made as it is written (engines reading
      // the trace then size their tables once).
      binary_->stream_names(format::kVariables, names_, true);
      binary_->stream_names(format::kLocks, names_, true);
    }
  }
  void on_events(std::span<const Event> events) override {
    held_ = std::max<uint64_t>(held_, (binary_ ? binary_->pending_events() : 0) + events.size());
    // (Three loops, so that the per-event work has no test of what kind of output it is.)
    const uint32_t* const loc_map = loc_map_.data();
    if (!binary_) {
      for (Event e : events) {
        e.location = loc_map[e.location];
        text_->on_event(++id_, e, 0);
      }
    } else if (stacks_) {
      for (Event e : events) {
        const uint32_t stack = numbering_.number(e);
        e.location = loc_map[e.location];
        binary_->on_event(++id_, e, 0, stack);
      }
    } else {
      BinaryWriter& out = *binary_;
      for (Event e : events) {
        e.location = loc_map[e.location];
        out.on_event(++id_, e, 0, 0);
      }
    }
  }
  // Closes the file; the bytes written.
  uint64_t close() {
    if (binary_) {
      binary_->on_end();
      binary_->close();
      return binary_->bytes_written();
    }
    text_->on_end();
    text_->close();
    return text_->bytes_written();
  }
  uint64_t events() const { return id_; }
  uint64_t held() const { return held_; }

 private:
  const std::vector<uint32_t>& loc_map_;
  StackNumbering numbering_;
  const bool stacks_;  // the recording has call stacks
  StreamedNames names_;
  std::optional<BinaryWriter> binary_;
  std::optional<StdWriter> text_;
  uint64_t id_ = 0;
  uint64_t held_ = 0;  // the most events in the batch and the writer's open chunk at once
};

}  // namespace

FinishResult finish_recording(const std::string& raw, const FinishOptions& options) {
  FinishResult result;
  const RawFile file(raw, options.give_back_bytes);
  result.raw_bytes = file.bytes().size();
  const RawRecording recording = decode_recording(file, raw);
  result.dropped = recording.dropped;
  result.capped = recording.capped;
  result.torn = recording.torn;
  result.complete = recording.complete();

  // Two passes over the records (assemble.hpp): what is held in memory is the recording's
  // threads, variables, locks, locations and stacks, a block of raw bytes per thread and a
  // chunk of events, never all the events.
  Assembly assembly(recording, consistent_cut(recording), options.spill_chunk_bytes);
  assembly.scan();
  result.spill_bytes = assembly.spill_bytes();
  const Assembled& scanned = assembly.scanned();
  result.cut_events = scanned.cut_events;

  Symbolizer symbolizer(parse_maps(recording.maps), options.symbolize);
  if (recording.maps.empty())
    result.notes.push_back("no memory map in the recording: names are hex");
  std::vector<uint32_t> loc_map;
  Symbols symbols;
  KeyNamer namer(scanned, symbolizer, symbols, loc_map);

  WriterSink sink(scanned, symbols, namer, loc_map, options.output);
  assembly.emit(sink);
  result.output_bytes = sink.close();
  for (const std::string& p : symbolizer.problems) result.notes.push_back(p);
  if (!symbols.stacks.empty() && is_text(options.output))
    result.notes.push_back("STD cannot hold call stacks: write a binary trace to keep them");
  result.events = sink.events();
  result.threads = symbols.threads.size();
  result.variables = namer.variables();
  result.locks = namer.locks();
  result.locations = symbols.locations.size();
  result.peak_events_held = sink.held();
  result.peak_raw_bytes_held = std::max(recording.peak_raw_bytes, assembly.peak_raw_bytes());
  return result;
}

}  // namespace racepred::recording
