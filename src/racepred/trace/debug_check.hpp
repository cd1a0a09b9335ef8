// Run-time checks of the contracts between the driver, the engines and the sink (event ids
// increase, a pair is reported once), on when RACEPRED_DEBUG_CHECKS is defined: the
// sanitizer build (cmake -DRACEPRED_SANITIZE=ON) and -DRACEPRED_DEBUG_CHECKS=ON define it.
// Otherwise RACEPRED_DCHECK and RACEPRED_DEBUG_ONLY compile to nothing, and the condition is
// not evaluated: the release build's hot path stays as it is.
#pragma once

#ifdef RACEPRED_DEBUG_CHECKS

#include <cstdio>
#include <cstdlib>

namespace racepred {
[[noreturn, gnu::cold, gnu::noinline]] inline void debug_check_failed(const char* condition,
                                                                      const char* what,
                                                                      const char* file, int line) {
  std::fprintf(stderr, "racepred: debug check failed: %s (%s) at %s:%d\n", what, condition, file,
               line);
  std::abort();
}
}  // namespace racepred

#define RACEPRED_DCHECK(condition, what) \
  ((condition) ? (void)0 : ::racepred::debug_check_failed(#condition, what, __FILE__, __LINE__))
#define RACEPRED_DEBUG_ONLY(...) __VA_ARGS__

#else

#define RACEPRED_DCHECK(condition, what) ((void)0)
#define RACEPRED_DEBUG_ONLY(...)

#endif
