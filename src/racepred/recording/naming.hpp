// Names of a recording's variables, locks and locations (docs/RECORDER.md, "Names"): a global is
// named by its symbol and member path, heap memory by its allocation site and instance
// ("heap[file.c:7:9 (main)#3]+8"), anything else by its hex address ("stack of T2 0x7f…" on a
// thread's stack); the atomic lock of an address is "atomic:NAME". Locations are source lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "racepred/recording/assemble.hpp"
#include "racepred/recording/symbolizer.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred::recording {

// "heap[SITE#INSTANCE]" and "+OFFSET" unless it is 0.
std::string heap_name(const std::string& site, uint64_t instance, uint64_t offset);

// The symbols of `assembled` (names unique: a repeated name gets "@ADDRESS"), with its events'
// locations renumbered from code addresses to source lines (several addresses may share one).
Symbols name_trace(Assembled& assembled, Symbolizer& symbolizer);

}  // namespace racepred::recording
