#include "racepred/recording/finish.hpp"

#include "racepred/io/binary_writer.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/recording/assemble.hpp"
#include "racepred/recording/naming.hpp"
#include "racepred/recording/raw_recording.hpp"
#include "racepred/recording/symbolizer.hpp"

namespace racepred::recording {

uint64_t write_trace(const std::vector<Event>& events, const Symbols& symbols,
                     const std::string& out) {
  const bool text = out.size() > 4 && (out.ends_with(".std") || out.ends_with(".txt"));
  if (text) {
    StdWriter writer(symbols, out);
    for (size_t i = 0; i < events.size(); ++i) writer.on_event(i + 1, events[i], 0);
    writer.on_end();
    writer.close();
    return writer.bytes_written();
  }
  BinaryWriter writer(symbols, out);
  for (size_t i = 0; i < events.size(); ++i) writer.on_event(i + 1, events[i], 0);
  writer.on_end();
  writer.close();
  return writer.bytes_written();
}

FinishResult finish_recording(const std::string& raw, const FinishOptions& options) {
  FinishResult result;
  const RawFile file(raw);
  result.raw_bytes = file.bytes().size();
  const RawRecording recording = decode_recording(file.bytes(), raw);
  result.dropped = recording.dropped;
  result.capped = recording.capped;
  result.torn = recording.torn;
  result.complete = recording.complete();

  Assembled assembled = assemble(recording, consistent_cut(recording));
  result.cut_events = assembled.cut_events;

  Symbolizer symbolizer(parse_maps(recording.maps), options.symbolize);
  if (recording.maps.empty())
    result.notes.push_back("no memory map in the recording: names are hex");
  const Symbols symbols = name_trace(assembled, symbolizer);
  for (const std::string& p : symbolizer.problems) result.notes.push_back(p);

  const std::string& out = options.output;
  if (!symbols.stacks.empty() && out.size() > 4 && (out.ends_with(".std") || out.ends_with(".txt")))
    result.notes.push_back("STD cannot hold call stacks: write a binary trace to keep them");
  result.output_bytes = write_trace(assembled.events, symbols, options.output);
  result.events = assembled.events.size();
  result.threads = symbols.threads.size();
  result.variables = symbols.variables.size();
  result.locks = symbols.locks.size();
  result.locations = symbols.locations.size();
  return result;
}

}  // namespace racepred::recording
