// libFuzzer target: compressed input. Bytes that start with a gzip, zstd or xz magic are
// decompressed while they are read; any bytes give events or an InputError, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace racepred;
  if (size == 0) return 0;
  // The first byte picks the magic, so that the fuzzer reaches every decoder.
  static const std::string_view kMagic[] = {std::string_view("\x1f\x8b", 2),
                                            std::string_view("\x28\xb5\x2f\xfd", 4),
                                            std::string_view("\xfd\x37\x7a\x58\x5a\x00", 6)};
  std::string bytes(kMagic[data[0] % 3]);
  bytes.append(fuzz::as_text(data + 1, size - 1));
  fuzz::read_every_way(bytes, InputFormat::Auto, false);
  return 0;
}
