// PLACEHOLDER owned by the exact work; replaced before the session ends.
#include "racepred/cli/cli.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::cli {

Command add_exact_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("exact", "Ground truth: all predictable races of a small trace");
  return {sub, []() -> int { throw UsageError("'exact' is not implemented yet"); }};
}

}  // namespace racepred::cli
