// PLACEHOLDER owned by the report work; replaced before the session ends.
#include "racepred/cli/cli.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::cli {

Command add_analyze_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("analyze", "Predict races with one or more engines");
  return {sub, []() -> int { throw UsageError("'analyze' is not implemented yet"); }};
}

}  // namespace racepred::cli
