// libFuzzer entry point for compressed input: bytes that start with a gzip, zstd or xz magic
// are decompressed while they are read; any bytes give events or an InputError, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "racepred/io/reader.hpp"
#include "racepred/trace/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the magic, so that the fuzzer reaches every decoder.
  static const std::string_view kMagic[] = {std::string_view("\x1f\x8b", 2),
                                            std::string_view("\x28\xb5\x2f\xfd", 4),
                                            std::string_view("\xfd\x37\x7a\x58\x5a\x00", 6)};
  std::string bytes(kMagic[data[0] % 3]);
  bytes.append(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const racepred::Trace trace = racepred::parse_trace(
        bytes, racepred::ReadOptions{racepred::InputFormat::Auto, true}, "fuzz");
    if (trace.events.size() != trace.ids.size()) __builtin_trap();
  } catch (const racepred::InputError&) {
  }
  return 0;
}
