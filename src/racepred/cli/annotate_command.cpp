// PLACEHOLDER owned by the hb-pairs work; replaced before the session ends.
#include "racepred/cli/cli.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::cli {

Command add_annotate_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("annotate", "Print the trace as a table annotated with an engine's state");
  return {sub, []() -> int { throw UsageError("'annotate' is not implemented yet"); }};
}

}  // namespace racepred::cli
