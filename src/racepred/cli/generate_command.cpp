// PLACEHOLDER owned by the exact work; replaced before the session ends.
#include "racepred/cli/cli.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::cli {

Command add_generate_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("generate", "Write a random well-formed trace (seeded, reproducible)");
  return {sub, []() -> int { throw UsageError("'generate' is not implemented yet"); }};
}

}  // namespace racepred::cli
