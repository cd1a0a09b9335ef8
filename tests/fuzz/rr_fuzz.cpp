// libFuzzer entry point for the RoadRunner's log reader: any bytes give events or an InputError
// (with and without --lenient), never a crash; read with auto-detection too.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "racepred/io/reader.hpp"
#include "racepred/trace/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (const racepred::ReadOptions& options :
       {racepred::ReadOptions{racepred::InputFormat::RoadRunner, false},
        racepred::ReadOptions{racepred::InputFormat::RoadRunner, true},
        racepred::ReadOptions{racepred::InputFormat::Auto, true}}) {
    try {
      const racepred::Trace trace = racepred::parse_trace(bytes, options, "fuzz");
      if (trace.events.size() != trace.ids.size()) __builtin_trap();
    } catch (const racepred::InputError&) {
    }
  }
  return 0;
}
