// Shared checks of the libFuzzer targets: an input ends in a result or in an InputError whose
// message names where the problem is; anything else (another exception, a signal, a sanitizer
// report) is a finding.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>

#include "racepred/trace/error.hpp"

namespace racepred::fuzz {

inline constexpr const char* kName = "fuzz.std";

// An input error names the input and where: "fuzz.std:LINE:COL: error: …", or for errors about
// the whole input "fuzz.std: error: …".
inline void check_input_error(const InputError& e) {
  static const std::regex where(R"(^fuzz\.std(:[0-9]+:[0-9]+)?: error: .+)");
  if (!std::regex_search(e.what(), where)) {
    std::fprintf(stderr, "input error without FILE:LINE:COL: %s\n", e.what());
    std::abort();
  }
}

}  // namespace racepred::fuzz
