// libFuzzer target: the STD reader, strict and lenient, through the validator (Collect).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_support.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/validator.hpp"

namespace {

class Discard : public racepred::EventConsumer {
 public:
  void on_event(racepred::EventId, const racepred::Event&, uint32_t) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace racepred;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool lenient : {false, true}) {
    ReadOptions options;
    options.format = InputFormat::Std;
    options.lenient = lenient;
    Symbols symbols;
    Discard sink;
    Validator validator(symbols, ValidationOptions{ValidationMode::Collect, fuzz::kName}, sink);
    try {
      const ReadSummary summary =
          read_events_from_string(text, fuzz::kName, options, symbols, validator);
      validator.on_end();
      if (summary.delivered > summary.event_lines) std::abort();
    } catch (const InputError& e) {
      if (lenient) std::abort();  // --lenient skips malformed lines: no error at all
      fuzz::check_input_error(e);
    }
  }
  return 0;
}
