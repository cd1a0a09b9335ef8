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
    case kBlockStacks:
      return "stacks";
    case kBlockEventStacks:
      return "event stacks";
    case kBlockThreadStacks:
      return "thread stacks";
  }
  return "unknown";
}

}  // namespace racepred::format
