// libFuzzer target: the STD reader, strict and --lenient and auto-detected, through the
// validator (fuzz_support.hpp).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace racepred;
  fuzz::read_every_way(fuzz::as_text(data, size), InputFormat::Std, true);
  return 0;
}
