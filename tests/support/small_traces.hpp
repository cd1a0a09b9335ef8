// Random small traces for property tests against the exact ground truth: 2–4 threads, up to 20
// events, few variables and locks, every fork/join shape; every third seed puts forks and joins
// inside critical sections (cross-thread critical sections, Sulzmann and Thiemann Fig. 2).
// Deterministic in the seed; built by the one generator (trace/generator.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "racepred/io/std_writer.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred::testing {

inline GeneratorOptions small_trace_options(uint64_t seed) {
  Rng rng(seed * 7919 + 17);
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 2 + static_cast<uint32_t>(rng.below(3));
  o.events = 4 + rng.below(17);
  o.variables = 1 + static_cast<uint32_t>(rng.below(3));
  o.locks = 1 + static_cast<uint32_t>(rng.below(2));
  o.nesting = 1 + static_cast<uint32_t>(rng.below(2));
  const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                              ForkShape::Nested};
  o.shape = shapes[rng.below(4)];
  o.cs_share = 0.3 + 0.15 * static_cast<double>(rng.below(5));
  o.write_share = 0.5;
  o.local_share = 0;
  o.guarded_share = 0.5;
  o.switch_share = 0.5;
  o.release_at_end = rng.below(4) != 0;
  o.early_joins = rng.below(2) != 0;
  if (seed % 3 == 0) {
    o.shape = ForkShape::Nested;
    o.early_joins = true;
    o.cs_share = 0.9;
  }
  return o;
}

// Random medium traces (2–5 threads, up to 57 events) for checks that need no ground truth.
inline GeneratorOptions medium_trace_options(uint64_t seed) {
  Rng rng(seed * 7919 + 1);
  const ForkShape shapes[] = {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin,
                              ForkShape::Nested};
  GeneratorOptions o;
  o.seed = seed;
  o.threads = 2 + static_cast<uint32_t>(rng.below(4));
  o.events = 8 + rng.below(50);
  o.variables = 1 + static_cast<uint32_t>(rng.below(4));
  o.locks = 1 + static_cast<uint32_t>(rng.below(3));
  o.nesting = static_cast<uint32_t>(rng.below(3));
  o.shape = shapes[seed % 4];
  o.cs_share = 0.5;
  o.local_share = 0.2;
  o.switch_share = 0.6;
  o.release_at_end = rng.chance(0.5);
  return o;
}

// Fewer iterations under the sanitizers (RACEPRED_SANITIZED is set by `make test-asan`); more
// for long local runs: RACEPRED_PROPERTY_SCALE=K multiplies the count by K (README, "Building by
// hand").
inline int property_iterations(int normal) {
  if (std::getenv("RACEPRED_SANITIZED")) return std::max(300, normal / 10);
  if (const char* scale = std::getenv("RACEPRED_PROPERTY_SCALE")) {
    const long k = std::strtol(scale, nullptr, 10);
    if (k > 1) return static_cast<int>(std::min<long>(long{normal} * k, 1L << 30));
  }
  return normal;
}

inline std::string trace_context(uint64_t seed, const Trace& trace) {
  return "seed " + std::to_string(seed) + ", trace:\n" + to_std_text(trace);
}

}  // namespace racepred::testing
