// A tiny random trace maker for the lockset and pipeline tests (the project's generator,
// trace/generator.hpp, is another part's work).
#pragma once

#include <fmt/format.h>

#include <random>
#include <string>
#include <vector>

namespace racepred::testing_support {

// A random well-formed trace in STD: per-thread lock sets, locks only acquired when free,
// releases in any order, accesses under whatever locks are held. Out of 10 events,
// `acquires` try to acquire a lock and 2 release one (if held), the rest access a variable.
inline std::string random_trace(std::mt19937& rng, int threads, int variables, int locks,
                                int events, int acquires = 2) {
  std::vector<std::vector<int>> held(threads);
  std::vector<int> owner(locks, -1);
  std::string text;
  for (int i = 0; i < events; ++i) {
    const int t = static_cast<int>(rng() % threads);
    const int kind = static_cast<int>(rng() % 10);
    const std::string thread = fmt::format("T{}", t);
    const std::string loc = fmt::format("L{}", rng() % 5);
    if (kind < acquires) {
      const int l = static_cast<int>(rng() % locks);
      if (owner[l] == -1) {
        owner[l] = t;
        held[t].push_back(l);
        text += fmt::format("{}|acq(m{})|{}\n", thread, l, loc);
        continue;
      }
    } else if (kind < acquires + 2 && !held[t].empty()) {
      const size_t k = rng() % held[t].size();
      const int l = held[t][k];
      held[t].erase(held[t].begin() + static_cast<std::ptrdiff_t>(k));
      owner[l] = -1;
      text += fmt::format("{}|rel(m{})|{}\n", thread, l, loc);
      continue;
    }
    const char* op = rng() % 2 ? "w" : "r";
    text += fmt::format("{}|{}(x{})|{}\n", thread, op, rng() % variables, loc);
  }
  return text;
}

}  // namespace racepred::testing_support
