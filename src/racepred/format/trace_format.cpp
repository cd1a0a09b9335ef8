#include "racepred/format/trace_format.hpp"

namespace racepred::format {

const char* block_kind_name(uint8_t kind) {
  switch (kind) {
    case kBlockSymbols:
      return "symbols";
    case kBlockEvents:
      return "events";
    case kBlockIndex:
      return "index";
  }
  return "unknown";
}

}  // namespace racepred::format
